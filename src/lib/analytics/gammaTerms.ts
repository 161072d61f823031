/**
 * The total GEX profile G(X) as a sum of Gaussian bumps in log-spot.
 *
 * At a hypothetical spot X, contract i has gamma e^{-qT} phi(d1) / (X sd) with sd = sigma sqrt T
 * and d1 = (ln X - m) / sd, m = ln K - (r - q) T - sd^2 / 2. So
 *   G(X) = M * 0.01 * X * H(ln X),   H(u) = sum_i c_i exp(-((u - m_i) / sd_i)^2 / 2),
 *   c_i  = s_i * N_i * e^{-q T_i} / (sd_i sqrt(2 pi)),
 * and the sign of G is the sign of H. Each contract is one bump centred at m_i of width sd_i;
 * a call and a put with the same (m, sd) (same strike, expiry and IV) listed next to each other
 * collapse into one bump with netted weights. Bumps that cannot matter anywhere in the window are dropped up front, and every
 * kept bump carries the |z| beyond which its contribution is below that same negligible level.
 */
import { MIN_STDDEV } from './bsm';
import { selectionIndices, type ChainArrays, type Selection } from './chain';

const INV_SQRT_2PI = 0.3989422804014327;
/** A bump is negligible where it is below this fraction of the window's total bump mass. */
export const NEGLIGIBLE = 1e-17;

export interface GammaTerms {
	count: number;
	/** Centre of each bump in log-spot. */
	m: Float64Array;
	/** Width (sigma sqrt T). */
	w: Float64Array;
	/** Weight by open interest and by volume. */
	cOi: Float64Array;
	cVol: Float64Array;
	/** |z| beyond which the bump is negligible (Infinity when nothing was culled). */
	zCut: Float64Array;
	/** Scale from H(u) to G(X): G = scale * X * H. */
	scale: number;
	/** Gross bump mass (sum of |c| at its peak in the window) per weighting; 0 when not culled. */
	massOi: number;
	massVol: number;
}

/**
 * Bumps of the selected contracts. With a window [uLow, uHigh] (log-spot) bumps negligible over
 * the whole window are dropped and zCut is set; without one every bump is kept.
 */
export function gammaTerms(
	chain: ChainArrays,
	selection?: Selection,
	uLow?: number,
	uHigh?: number
): GammaTerms {
	const idx = selectionIndices(chain.length, selection);
	const n = idx.length;
	const m = new Float64Array(n);
	const w = new Float64Array(n);
	const cOi = new Float64Array(n);
	const cVol = new Float64Array(n);
	const {
		rate: r,
		dividendYield: q,
		strike,
		expiryYears,
		iv,
		isCall,
		openInterest,
		volume
	} = chain;
	let count = 0;
	for (let j = 0; j < n; j++) {
		const i = idx[j];
		const t = expiryYears[i];
		if (!(t > 0)) continue;
		const sd = iv[i] * Math.sqrt(t);
		if (!(sd >= MIN_STDDEV)) continue;
		const oi = openInterest[i];
		const vol = volume[i];
		if (oi === 0 && vol === 0) continue;
		const base = ((isCall[i] === 1 ? 1 : -1) * Math.exp(-q * t) * INV_SQRT_2PI) / sd;
		const centre = Math.log(strike[i]) - (r - q) * t - 0.5 * sd * sd;
		// Net into the previous bump when it is the same Gaussian (a strike's call and put usually
		// sit side by side; a Map over every centre cost more than the netting saved).
		if (count > 0 && m[count - 1] === centre && w[count - 1] === sd) {
			cOi[count - 1] += base * oi;
			cVol[count - 1] += base * vol;
			continue;
		}
		m[count] = centre;
		w[count] = sd;
		cOi[count] = base * oi;
		cVol[count] = base * vol;
		count++;
	}
	const zCut = new Float64Array(count).fill(Infinity);
	const terms: GammaTerms = {
		count,
		m,
		w,
		cOi,
		cVol,
		zCut,
		scale: chain.contractSize * 0.01,
		massOi: 0,
		massVol: 0
	};
	if (uLow === undefined || uHigh === undefined) return terms;
	return cullTerms(terms, uLow, uHigh);
}

/** Distance (in widths) from a bump's centre to the nearest point of [uLow, uHigh]. */
function zToWindow(m: number, w: number, uLow: number, uHigh: number): number {
	return m < uLow ? (uLow - m) / w : m > uHigh ? (m - uHigh) / w : 0;
}

function cullTerms(t: GammaTerms, uLow: number, uHigh: number): GammaTerms {
	let massOi = 0;
	let massVol = 0;
	const peak = new Float64Array(t.count);
	for (let i = 0; i < t.count; i++) {
		const z = zToWindow(t.m[i], t.w[i], uLow, uHigh);
		const p = Math.exp(-0.5 * z * z);
		peak[i] = p;
		massOi += Math.abs(t.cOi[i]) * p;
		massVol += Math.abs(t.cVol[i]) * p;
	}
	t.massOi = massOi;
	t.massVol = massVol;
	const floorOi = NEGLIGIBLE * massOi;
	const floorVol = NEGLIGIBLE * massVol;
	let k = 0;
	for (let i = 0; i < t.count; i++) {
		const aOi = Math.abs(t.cOi[i]);
		const aVol = Math.abs(t.cVol[i]);
		const ratio = Math.max(floorOi > 0 ? aOi / floorOi : 0, floorVol > 0 ? aVol / floorVol : 0);
		if (!(ratio * peak[i] > 1)) continue;
		t.m[k] = t.m[i];
		t.w[k] = t.w[i];
		t.cOi[k] = t.cOi[i];
		t.cVol[k] = t.cVol[i];
		t.zCut[k] = Math.sqrt(2 * Math.log(ratio));
		k++;
	}
	t.count = k;
	return t;
}

/** First and last grid index where bump i is not negligible (j0 > j1: none). */
function supportRange(
	t: GammaTerms,
	i: number,
	u0: number,
	h: number,
	last: number
): [number, number] {
	const reach = t.zCut[i] * t.w[i];
	if (reach === Infinity) return [0, last];
	return [
		Math.max(0, Math.ceil((t.m[i] - reach - u0) / h)),
		Math.min(last, Math.floor((t.m[i] + reach - u0) / h))
	];
}

/**
 * Adds every listed bump's H contribution on the uniform log-spot grid u0 + j h,
 * j = 0..points-1, where the bump is not negligible. Bumps at least twice the step wide use the
 * Gaussian recurrence g_{j+1} = g_j rho_j, rho_{j+1} = rho_j e^{-delta^2} (three exps per bump
 * instead of one per point); narrower ones are evaluated directly.
 */
export function accumulateUniform(
	t: GammaTerms,
	which: ArrayLike<number> | null,
	u0: number,
	h: number,
	points: number,
	hOi: Float64Array,
	hVol: Float64Array
): void {
	const count = which === null ? t.count : which.length;
	for (let a = 0; a < count; a++) {
		const i = which === null ? a : which[a];
		const [j0, j1] = supportRange(t, i, u0, h, points - 1);
		const m = t.m[i];
		const w = t.w[i];
		const co = t.cOi[i];
		const cv = t.cVol[i];
		const delta = h / w;
		if (delta > 0.5 || j0 > j1) {
			for (let j = j0; j <= j1; j++) {
				const z = (u0 + j * h - m) / w;
				if (z > 38 || z < -38) continue;
				const g = Math.exp(-0.5 * z * z);
				hOi[j] += co * g;
				hVol[j] += cv * g;
			}
			continue;
		}
		const z = (u0 + j0 * h - m) / w;
		let g = Math.exp(-0.5 * z * z);
		let rho = Math.exp(-z * delta - 0.5 * delta * delta);
		const kappa = Math.exp(-delta * delta);
		for (let j = j0; j <= j1; j++) {
			hOi[j] += co * g;
			hVol[j] += cv * g;
			g *= rho;
			rho *= kappa;
		}
	}
}

/**
 * As accumulateUniform, also adding dH/du, for bumps at least 2 steps wide whose support is
 * bounded (culled terms): the zero-gamma scan's node pass.
 */
export function accumulateUniformWithSlope(
	t: GammaTerms,
	which: ArrayLike<number>,
	u0: number,
	h: number,
	points: number,
	hOi: Float64Array,
	hVol: Float64Array,
	dOi: Float64Array,
	dVol: Float64Array
): void {
	for (let a = 0; a < which.length; a++) {
		const i = which[a];
		const [j0, j1] = supportRange(t, i, u0, h, points - 1);
		if (j0 > j1) continue;
		const m = t.m[i];
		const w = t.w[i];
		const co = t.cOi[i];
		const cv = t.cVol[i];
		const delta = h / w;
		const invW = 1 / w;
		let z = (u0 + j0 * h - m) * invW;
		let g = Math.exp(-0.5 * z * z);
		let rho = Math.exp(-z * delta - 0.5 * delta * delta);
		const kappa = Math.exp(-delta * delta);
		for (let j = j0; j <= j1; j++) {
			const slope = -z * invW * g;
			hOi[j] += co * g;
			hVol[j] += cv * g;
			dOi[j] += co * slope;
			dVol[j] += cv * slope;
			g *= rho;
			rho *= kappa;
			z += delta;
		}
	}
}

/** H(u) of one weighting, exactly, over the bumps listed in `which` (all when null). */
export function evaluateH(
	t: GammaTerms,
	which: ArrayLike<number> | null,
	c: Float64Array,
	u: number
): number {
	let sum = 0;
	const count = which === null ? t.count : which.length;
	for (let a = 0; a < count; a++) {
		const i = which === null ? a : which[a];
		const z = (u - t.m[i]) / t.w[i];
		if (z > 38 || z < -38) continue;
		sum += c[i] * Math.exp(-0.5 * z * z);
	}
	return sum;
}
