/**
 * Zero gamma for the per-second engine: the root of the GEX profile G(X) nearest spot, the same
 * definition as src/lib/analytics/zeroGamma.ts, found by walking outward from spot.
 *
 * NOTE (why not the analytics scan): the analytics engine reports every root of the window
 * [0.8 S, 1.2 S] with a full-window scan, about 9 ms for a whole SPX chain; the engine needs only
 * the root nearest spot for 100+ chains every second and 23,401 times per regenerated day, and
 * the outward walk costs about a tenth of that. engine/sanity.test.ts checks that both agree.
 */

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
