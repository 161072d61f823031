/**
 * Hot loops of the per-second engine over struct-of-arrays chains.
 *
 * NOTE: the numbers' definitions (BSM greeks with continuous dividend yield, exposure units,
 * zero gamma = root of the GEX profile nearest spot) are those of src/lib/analytics; the engine
 * keeps these flat-array loops because it runs them for 100+ chains every simulated second and
 * for 23,401 seconds when it regenerates a day, where a per-contract object API would cost
 * several times more. engine/sanity.test.ts checks them against the analytics engine.
 */

const INV_SQRT_2PI = 0.3989422804014327;

/** Complementary error function, relative error below 1.2e-7 (Numerical Recipes erfcc). */
function erfc(x: number): number {
	const z = Math.abs(x);
	const t = 1 / (1 + 0.5 * z);
	const r =
		t *
		Math.exp(
			-z * z -
				1.26551223 +
				t *
					(1.00002368 +
						t *
							(0.37409196 +
								t *
									(0.09678418 +
										t *
											(-0.18628806 +
												t *
													(0.27886807 +
														t *
															(-1.13520398 +
																t * (1.48851587 + t * (-0.82215223 + t * 0.17087277))))))))
		);
	return x >= 0 ? r : 2 - r;
}

/** Standard normal CDF through erfc so the far tail keeps its relative precision. */
export function normCdf(x: number): number {
	return 0.5 * erfc(-x / Math.SQRT2);
}

/** Per-contract BSM outputs, one array per quantity (index = contract). */
export interface GreekArrays {
	price: Float64Array;
	delta: Float64Array;
	gamma: Float64Array;
	vanna: Float64Array;
	/** dDelta/dt per calendar day (the delta a holder gains overnight). */
	charmPerDay: Float64Array;
}

export function allocGreeks(n: number): GreekArrays {
	return {
		price: new Float64Array(n),
		delta: new Float64Array(n),
		gamma: new Float64Array(n),
		vanna: new Float64Array(n),
		charmPerDay: new Float64Array(n)
	};
}

/**
 * BSM price and greeks for every contract at spot `spot`. `years[c]` is calendar time to expiry
 * (already floored above zero by the caller), `iv[c]` the implied vol.
 */
export function computeGreeks(
	spot: number,
	rate: number,
	dividendYield: number,
	strike: Float64Array,
	isCall: Uint8Array,
	years: Float64Array,
	iv: Float64Array,
	out: GreekArrays,
	n: number
): void {
	for (let c = 0; c < n; c++)
		contractGreeks(spot, rate, dividendYield, strike, isCall, years, iv, out, c);
}

/** Greeks of contract `c` alone (the same arithmetic as computeGreeks, so results are identical). */
export function contractGreeks(
	spot: number,
	rate: number,
	dividendYield: number,
	strike: Float64Array,
	isCall: Uint8Array,
	years: Float64Array,
	iv: Float64Array,
	out: GreekArrays,
	c: number
): void {
	const T = years[c];
	const sigma = iv[c];
	const K = strike[c];
	const sqrtT = Math.sqrt(T);
	const vst = sigma * sqrtT;
	const dq = Math.exp(-dividendYield * T);
	const dr = Math.exp(-rate * T);
	const d1 = (Math.log(spot / K) + (rate - dividendYield + 0.5 * sigma * sigma) * T) / vst;
	const d2 = d1 - vst;
	const pdf = INV_SQRT_2PI * Math.exp(-0.5 * d1 * d1);
	const charmCore = (dq * pdf * (2 * (rate - dividendYield) * T - d2 * vst)) / (2 * T * vst);
	if (isCall[c] === 1) {
		const nd1 = normCdf(d1);
		out.price[c] = spot * dq * nd1 - K * dr * normCdf(d2);
		out.delta[c] = dq * nd1;
		out.charmPerDay[c] = (dividendYield * dq * nd1 - charmCore) / 365;
	} else {
		const nmd1 = normCdf(-d1);
		out.price[c] = K * dr * normCdf(-d2) - spot * dq * nmd1;
		out.delta[c] = -dq * nmd1;
		out.charmPerDay[c] = (-dividendYield * dq * nmd1 - charmCore) / 365;
	}
	out.gamma[c] = (dq * pdf) / (spot * vst);
	out.vanna[c] = (-dq * pdf * d2) / sigma;
}

/**
 * Precomputed per-contract terms of the GEX profile G(X) = sum_c w_c * gamma_c(X) * X^2 * 0.01,
 * so evaluating G at a hypothetical spot costs one exp per contract.
 */
export interface GammaProfile {
	count: number;
	logStrike: Float64Array;
	/** (r - q + sigma^2 / 2) T */
	drift: Float64Array;
	/** 1 / (sigma sqrt T) */
	invVst: Float64Array;
	/** w_c * e^{-qT} * phi-normaliser * 0.01 / (sigma sqrt T): multiply by exp(-d1^2/2) * X. */
	weight: Float64Array;
}

export function allocProfile(n: number): GammaProfile {
	return {
		count: 0,
		logStrike: new Float64Array(n),
		drift: new Float64Array(n),
		invVst: new Float64Array(n),
		weight: new Float64Array(n)
	};
}

/** G(X) in the units of `weight` (see buildProfile). */
export function profileAt(p: GammaProfile, x: number): number {
	const lx = Math.log(x);
	let sum = 0;
	for (let i = 0; i < p.count; i++) {
		const d1 = (lx - p.logStrike[i] + p.drift[i]) * p.invVst[i];
		if (d1 > 9 || d1 < -9) continue;
		sum += p.weight[i] * Math.exp(-0.5 * d1 * d1);
	}
	return sum * x;
}

/**
 * Root of G nearest `spot` inside [0.8 spot, 1.2 spot], or null. Walks outward from spot in
 * steps of `stepFraction` of spot on both sides (0.1% is fine enough for an index's 0DTE sign
 * change; the engine scales it with the ticker's vol) and refines the first bracket with
 * Illinois regula falsi to 1e-6 of spot. The answer depends only on the profile and spot (no
 * warm start), so a regenerated day reproduces the live loop's values exactly.
 */
export function nearestRoot(p: GammaProfile, spot: number, stepFraction = 0.001): number | null {
	if (p.count === 0) return null;
	const g0 = profileAt(p, spot);
	if (g0 === 0) return spot;
	const h = spot * stepFraction;
	const maxSteps = Math.ceil(0.2 / stepFraction);
	let upPrev = g0;
	let downPrev = g0;
	for (let k = 1; k <= maxSteps; k++) {
		const up = spot + k * h;
		const down = spot - k * h;
		const gu = profileAt(p, up);
		if (gu * upPrev <= 0) return refine(p, up - h, up, upPrev, gu, spot);
		const gd = profileAt(p, down);
		if (gd * downPrev <= 0) return refine(p, down, down + h, gd, downPrev, spot);
		upPrev = gu;
		downPrev = gd;
	}
	return null;
}

function refine(
	p: GammaProfile,
	a: number,
	b: number,
	fa: number,
	fb: number,
	spot: number
): number {
	// Illinois regula falsi on a sign-changing bracket [a, b].
	const tol = spot * 1e-6;
	let side = 0;
	for (let it = 0; it < 80 && b - a > tol; it++) {
		let x = (a * fb - b * fa) / (fb - fa);
		if (!(x > a && x < b)) x = 0.5 * (a + b);
		const fx = profileAt(p, x);
		if (fx === 0) return x;
		if (fx * fa < 0) {
			b = x;
			fb = fx;
			if (side === -1) fa /= 2;
			side = -1;
		} else {
			a = x;
			fa = fx;
			if (side === 1) fb /= 2;
			side = 1;
		}
		if (Math.abs(fx) < 1e-12 * (Math.abs(fa) + Math.abs(fb))) break;
	}
	const x = (a * fb - b * fa) / (fb - fa);
	return x > a && x < b ? x : 0.5 * (a + b);
}
