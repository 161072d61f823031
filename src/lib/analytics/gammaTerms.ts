/**
 * The total GEX profile G(X) as a sum of Gaussian bumps in log-spot.
 *
 * At a hypothetical spot X, contract i has gamma e^{-qT} phi(d1) / (X sd) with sd = sigma sqrt T
 * and d1 = (ln X - m) / sd, m = ln K - (r - q) T - sd^2 / 2. So
 *   G(X) = M * 0.01 * X * H(ln X),   H(u) = sum_i c_i exp(-((u - m_i) / sd_i)^2 / 2),
 *   c_i  = s_i * N_i * e^{-q T_i} / (sd_i sqrt(2 pi)),
 * and the sign of G is the sign of H. Each contract is one bump centred at m_i of width sd_i;
 * calls and puts with the same (m, sd) (same strike, expiry and IV) collapse into one bump with
 * netted weights. Bumps that cannot matter anywhere in the window are dropped up front, and every
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
	const byCentre = new Map<number, number>();
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
		const prev = byCentre.get(centre);
		if (prev !== undefined && w[prev] === sd) {
			cOi[prev] += base * oi;
			cVol[prev] += base * vol;
			continue;
		}
		if (prev === undefined) byCentre.set(centre, count);
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

/**
 * Adds every bump's H contribution (and optionally dH/du) on the uniform log-spot grid
 * u0 + j h, j = 0..points-1, only where the bump is not negligible. Uses the Gaussian
 * recurrence g_{j+1} = g_j rho_j, rho_{j+1} = rho_j e^{-delta^2}: three exps per bump
 * instead of one per grid point.
 */
export function accumulateUniform(
	t: GammaTerms,
	which: ArrayLike<number> | null,
	u0: number,
	h: number,
	points: number,
	hOi: Float64Array,
	hVol: Float64Array,
	dOi?: Float64Array,
	dVol?: Float64Array
): void {
	const count = which === null ? t.count : which.length;
	const last = points - 1;
	for (let a = 0; a < count; a++) {
		const i = which === null ? a : which[a];
		const m = t.m[i];
		const w = t.w[i];
		const reach = t.zCut[i] * w;
		const j0 = reach === Infinity ? 0 : Math.max(0, Math.ceil((m - reach - u0) / h));
		const j1 = reach === Infinity ? last : Math.min(last, Math.floor((m + reach - u0) / h));
		if (j0 > j1) continue;
		const delta = h / w;
		const co = t.cOi[i];
		const cv = t.cVol[i];
		if (delta > 0.5) {
			// A bump narrower than the grid: the recurrence factors would overflow, go direct.
			for (let j = j0; j <= j1; j++) {
				const z = (u0 + j * h - m) / w;
				if (z > 38 || z < -38) continue;
				const g = Math.exp(-0.5 * z * z);
				hOi[j] += co * g;
				hVol[j] += cv * g;
				if (dOi !== undefined && dVol !== undefined) {
					const dz = (-z / w) * g;
					dOi[j] += co * dz;
					dVol[j] += cv * dz;
				}
			}
			continue;
		}
		let z = (u0 + j0 * h - m) / w;
		// Start where exp(-z^2/2) is representable; the recurrence cannot climb out of 0.
		let j = j0;
		if (z < -37) {
			j = Math.max(j0, Math.ceil(j0 + (-37 - z) / delta));
			z = (u0 + j * h - m) / w;
		}
		let g = Math.exp(-0.5 * z * z);
		let rho = Math.exp(-z * delta - 0.5 * delta * delta);
		const kappa = Math.exp(-delta * delta);
		for (; j <= j1; j++) {
			hOi[j] += co * g;
			hVol[j] += cv * g;
			if (dOi !== undefined && dVol !== undefined) {
				const dz = (-z / w) * g;
				dOi[j] += co * dz;
				dVol[j] += cv * dz;
			}
			g *= rho;
			rho *= kappa;
			z += delta;
			if (g === 0 && z > 0) break;
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
