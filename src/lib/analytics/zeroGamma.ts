/**
 * Zero gamma: the spot levels X in [lower*S, upper*S] where the total GEX profile G(X) (every
 * contract re-priced at X with its own IV, r and q) changes sign, found for the OI and the
 * volume weighting in one pass, refined with Brent to `tolerance` (price units); the reported
 * level is the root nearest spot, or null when there is none (never 0).
 *
 * The root nearest spot is GammaKernel's (gammaKernel.ts, the engine's one nearest-root search):
 * `nearestOnly` is a plain call to it. The full-window scan below stays for one thing the kernel
 * does not do: listing EVERY root in the window (the /chain page marks each flip on its G(X)
 * chart); the kernel walks outward from spot and stops at the nearest.
 *
 * Full scan: the window is cut into CELLS cells in log-spot. Wide bumps (sd >= WIDE_CELLS cells) are
 * evaluated with value and slope at the cell edges only and cubic-Hermite interpolated inside
 * (error ~1e-6 of their mass); narrow bumps (short expiries, 0DTE) are evaluated exactly on a
 * sub-grid whose step is at most sd/RESOLUTION of the narrowest bump present in that cell, so no
 * 0DTE sign change between grid points is missed, while cells far from any 0DTE strike stay
 * coarse. Every sign change is confirmed and refined on the exact sum over the bumps that reach it.
 */
import { brentRoot } from './brent';
import type { ChainArrays, Selection } from './chain';
import { GammaKernel } from './gammaKernel';
import {
	accumulateUniform,
	accumulateUniformWithSlope,
	evaluateH,
	gammaTerms,
	type GammaTerms
} from './gammaTerms';

const CELLS = 128;
const WIDE_CELLS = 6;
const RESOLUTION = 4;
/**
 * Cap on sub-grid points per cell (2^10). A 0DTE one minute before the close needs ~64; only
 * options with seconds left are narrower, and those are sampled at the cap rather than letting
 * the scan grow without bound (their gamma is then a spike no grid can follow anyway).
 */
const MAX_CELL_POINTS = 1024;
/**
 * Where |H| is below this fraction of the window's gross bump mass, G is numerically zero (far
 * tails of a few bumps); sign changes there are rounding noise, not zero-gamma levels.
 */
export const SIGNIFICANT = 1e-12;

export interface ZeroGammaOptions {
	selection?: Selection;
	/** Window as fractions of spot; default 0.8 .. 1.2. */
	lower?: number;
	upper?: number;
	/** Absolute tolerance on the root, in price units; default 1e-6. */
	tolerance?: number;
	/**
	 * Only the root nearest spot, by GammaKernel (the per-second service path); the root lists
	 * then hold just that root (or nothing). Default false: every root in the window.
	 */
	nearestOnly?: boolean;
}

export interface ZeroGammaResult {
	/** Root nearest spot by OI weighting, null when G never changes sign in the window. */
	oi: number | null;
	vol: number | null;
	/** Every root found in the window, ascending (with `nearestOnly`: the nearest one, if any). */
	rootsOi: number[];
	rootsVol: number[];
	/** Number of points the scan evaluated. */
	scanPoints: number;
}

export function zeroGamma(chain: ChainArrays, options: ZeroGammaOptions = {}): ZeroGammaResult {
	const spot = chain.spot;
	const tolerance = options.tolerance ?? 1e-6;
	if (options.nearestOnly) {
		const r = new GammaKernel()
			.update(chain, { selection: options.selection, lower: options.lower, upper: options.upper })
			.nearestRoots(tolerance);
		return {
			oi: r.oi,
			vol: r.vol,
			rootsOi: r.oi === null ? [] : [r.oi],
			rootsVol: r.vol === null ? [] : [r.vol],
			scanPoints: r.scanPoints
		};
	}
	const uLow = Math.log(spot * (options.lower ?? 0.8));
	const uHigh = Math.log(spot * (options.upper ?? 1.2));
	const terms = gammaTerms(chain, options.selection, uLow, uHigh);
	return zeroGammaFromTerms(terms, spot, uLow, uHigh, tolerance);
}

/** Every root in the window by the full scan (the nearest-only search is GammaKernel's). */
export function zeroGammaFromTerms(
	terms: GammaTerms,
	spot: number,
	uLow: number,
	uHigh: number,
	tolerance: number
): ZeroGammaResult {
	const hc = (uHigh - uLow) / CELLS;
	const wideWidth = WIDE_CELLS * hc;
	const wide: number[] = [];
	const narrow: number[] = [];
	for (let i = 0; i < terms.count; i++) (terms.w[i] >= wideWidth ? wide : narrow).push(i);

	// Step per cell: as fine as the narrowest bump that reaches the cell.
	const cellStep = new Float64Array(CELLS).fill(hc);
	for (const i of narrow) {
		const reach = terms.zCut[i] * terms.w[i];
		const c0 = Math.max(0, Math.floor((terms.m[i] - reach - uLow) / hc));
		const c1 = Math.min(CELLS - 1, Math.floor((terms.m[i] + reach - uLow) / hc));
		const step = terms.w[i] / RESOLUTION;
		for (let c = c0; c <= c1; c++) if (step < cellStep[c]) cellStep[c] = step;
	}
	const cellPoints = new Int32Array(CELLS);
	const cellOffset = new Int32Array(CELLS + 1);
	for (let c = 0; c < CELLS; c++) {
		// Powers of two, so cells with similar needs share one uniform sub-grid.
		cellPoints[c] =
			cellStep[c] >= hc
				? 1
				: Math.min(MAX_CELL_POINTS, 2 ** Math.ceil(Math.log2(hc / cellStep[c]) - 1e-9));
		cellOffset[c + 1] = cellOffset[c] + cellPoints[c];
	}
	const points = cellOffset[CELLS] + 1;
	const u = new Float64Array(points);
	for (let c = 0; c < CELLS; c++) {
		const start = uLow + c * hc;
		const step = hc / cellPoints[c];
		for (let k = 0; k < cellPoints[c]; k++) u[cellOffset[c] + k] = start + k * step;
	}
	u[points - 1] = uHigh;

	const hOi = new Float64Array(points);
	const hVol = new Float64Array(points);

	// Wide bumps: value and slope at cell edges, Hermite inside each cell.
	const vOi = new Float64Array(CELLS + 1);
	const vVol = new Float64Array(CELLS + 1);
	const dOi = new Float64Array(CELLS + 1);
	const dVol = new Float64Array(CELLS + 1);
	accumulateUniformWithSlope(terms, wide, uLow, hc, CELLS + 1, vOi, vVol, dOi, dVol);
	for (let c = 0; c < CELLS; c++) {
		const n = cellPoints[c];
		const off = cellOffset[c];
		for (let k = 0; k < n; k++) {
			const s = k / n;
			const s2 = s * s;
			const s3 = s2 * s;
			const h00 = 2 * s3 - 3 * s2 + 1;
			const h10 = (s3 - 2 * s2 + s) * hc;
			const h01 = 3 * s2 - 2 * s3;
			const h11 = (s3 - s2) * hc;
			hOi[off + k] = h00 * vOi[c] + h10 * dOi[c] + h01 * vOi[c + 1] + h11 * dOi[c + 1];
			hVol[off + k] = h00 * vVol[c] + h10 * dVol[c] + h01 * vVol[c + 1] + h11 * dVol[c + 1];
		}
	}
	hOi[points - 1] = vOi[CELLS];
	hVol[points - 1] = vVol[CELLS];

	// Narrow bumps: exact values on the points they reach, by the Gaussian recurrence along runs
	// of cells that share a step (power-of-two steps make neighbouring cells line up).
	for (const i of narrow) {
		const m = terms.m[i];
		const w = terms.w[i];
		const reach = terms.zCut[i] * w;
		const lo = m - reach;
		const hi = m + reach;
		const c0 = Math.max(0, Math.floor((lo - uLow) / hc));
		const c1 = Math.min(CELLS - 1, Math.floor((hi - uLow) / hc));
		const co = terms.cOi[i];
		const cv = terms.cVol[i];
		let runStep = -1;
		let g = 0;
		let rho = 0;
		let kappa = 0;
		for (let c = c0; c <= c1; c++) {
			const n = cellPoints[c];
			const start = uLow + c * hc;
			const step = hc / n;
			const k0 = Math.max(0, Math.ceil((lo - start) / step));
			const k1 = Math.min(n - 1, Math.floor((hi - start) / step));
			if (k0 > k1) {
				runStep = -1;
				continue;
			}
			const off = cellOffset[c];
			if (step > 0.5 * w) {
				// Capped cell coarser than the bump: direct values (the recurrence would overflow).
				for (let k = k0; k <= k1; k++) {
					const z = (start + k * step - m) / w;
					const e = Math.exp(-0.5 * z * z);
					hOi[off + k] += co * e;
					hVol[off + k] += cv * e;
				}
				runStep = -1;
				continue;
			}
			if (step !== runStep || k0 !== 0) {
				const z = (start + k0 * step - m) / w;
				const delta = step / w;
				g = Math.exp(-0.5 * z * z);
				rho = Math.exp(-z * delta - 0.5 * delta * delta);
				kappa = Math.exp(-delta * delta);
				runStep = step;
			}
			for (let k = k0; k <= k1; k++) {
				hOi[off + k] += co * g;
				hVol[off + k] += cv * g;
				g *= rho;
				rho *= kappa;
			}
			if (k1 !== n - 1) runStep = -1;
		}
		if (hi >= uHigh && lo <= uHigh) {
			const z = (uHigh - m) / w;
			const e = Math.exp(-0.5 * z * z);
			hOi[points - 1] += co * e;
			hVol[points - 1] += cv * e;
		}
	}

	const rootsOi = refineRoots(terms, terms.cOi, u, hOi, SIGNIFICANT * terms.massOi, tolerance);
	const rootsVol = refineRoots(terms, terms.cVol, u, hVol, SIGNIFICANT * terms.massVol, tolerance);
	return {
		oi: nearest(rootsOi, spot),
		vol: nearest(rootsVol, spot),
		rootsOi,
		rootsVol,
		scanPoints: points
	};
}

function nearest(roots: number[], spot: number): number | null {
	let best: number | null = null;
	for (const r of roots) if (best === null || Math.abs(r - spot) < Math.abs(best - spot)) best = r;
	return best;
}

/** Bumps that reach anywhere in [ua, ub]. */
function reaching(terms: GammaTerms, ua: number, ub: number): Int32Array {
	const list: number[] = [];
	for (let i = 0; i < terms.count; i++) {
		const reach = terms.zCut[i] * terms.w[i];
		if (terms.m[i] - reach <= ub && terms.m[i] + reach >= ua) list.push(i);
	}
	return Int32Array.from(list);
}

/**
 * Sign changes of the scanned H (ignoring exact zeros, which only occur where every bump was
 * negligible), each confirmed and refined on the exact sum of the bumps that reach it.
 */
function refineRoots(
	terms: GammaTerms,
	c: Float64Array,
	u: Float64Array,
	h: Float64Array,
	floor: number,
	tolerance: number
): number[] {
	const roots: number[] = [];
	const last = u.length - 1;
	// Sign changes of the scan as [previous significant point, point].
	const brackets: [number, number][] = [];
	let prev = -1;
	for (let j = 0; j <= last; j++) {
		if (!(Math.abs(h[j]) > floor)) continue;
		if (prev >= 0 && h[prev] > 0 !== h[j] > 0) brackets.push([prev, j]);
		prev = j;
	}
	for (const [p, j] of brackets) {
		// Usual case: the exact sum confirms the change on the same interval; otherwise the
		// interpolated wide part moved it by a point or two, so search the neighbourhood.
		const local = localH(terms, c, u[p], u[j]);
		const xa = Math.exp(u[p]);
		const xb = Math.exp(u[j]);
		const fa = local(xa);
		const fb = local(xb);
		if (Math.abs(fa) > floor && Math.abs(fb) > floor && fa > 0 !== fb > 0)
			pushRoot(roots, local, brentRoot(local, xa, xb, fa, fb, tolerance), tolerance);
		else
			bracketRoots(terms, c, u, Math.max(0, p - 2), Math.min(last, j + 2), floor, tolerance, roots);
	}
	return roots.sort((x, y) => x - y);
}

/** Taylor degree of the wide bumps' local expansion (|eps| <= 1/TAYLOR_REACH, error < 1e-16). */
const TAYLOR_DEGREE = 12;
const TAYLOR_REACH = 12;
const INV_N = Float64Array.from({ length: TAYLOR_DEGREE + 1 }, (_, n) => (n === 0 ? 0 : 1 / n));

/**
 * H(ln x) on [ua, ub], exact to rounding: bumps at least TAYLOR_REACH half-widths of the interval
 * wide are summed once into a Taylor polynomial about its middle (exp(-(z0+e)^2/2) =
 * exp(-z0^2/2) sum_n (-1)^n He_n(z0) e^n / n!), narrower ones are evaluated directly, so each
 * Brent step costs a polynomial plus a handful of exps instead of one exp per contract.
 */
function localH(terms: GammaTerms, c: Float64Array, ua: number, ub: number): (x: number) => number {
	const mid = 0.5 * (ua + ub);
	const half = 0.5 * (ub - ua);
	const coef = new Float64Array(TAYLOR_DEGREE + 1);
	const direct: number[] = [];
	for (let i = 0; i < terms.count; i++) {
		const w = terms.w[i];
		const reach = terms.zCut[i] * w;
		const m = terms.m[i];
		if (m - reach > ub || m + reach < ua || c[i] === 0) continue;
		if (w < TAYLOR_REACH * half) {
			direct.push(i);
			continue;
		}
		const z0 = (mid - m) / w;
		const g = c[i] * Math.exp(-0.5 * z0 * z0);
		let hePrev = 1;
		let he = z0;
		let fac = 1;
		const negInvW = -1 / w;
		coef[0] += g;
		for (let n = 1; n <= TAYLOR_DEGREE; n++) {
			fac *= negInvW * INV_N[n];
			coef[n] += g * he * fac;
			const next = z0 * he - n * hePrev;
			hePrev = he;
			he = next;
		}
	}
	const which = Int32Array.from(direct);
	return (x: number) => {
		const u = Math.log(x);
		const d = u - mid;
		let p = coef[TAYLOR_DEGREE];
		for (let n = TAYLOR_DEGREE - 1; n >= 0; n--) p = p * d + coef[n];
		return p + evaluateH(terms, which, c, u);
	};
}

function bracketRoots(
	terms: GammaTerms,
	c: Float64Array,
	u: Float64Array,
	a: number,
	b: number,
	floor: number,
	tolerance: number,
	roots: number[]
): void {
	const which = reaching(terms, u[a], u[b]);
	const exact = (x: number) => evaluateH(terms, which, c, Math.log(x));
	let prevX = 0;
	let prevF = 0;
	for (let k = a; k <= b; k++) {
		const x = Math.exp(u[k]);
		const f = exact(x);
		if (!(Math.abs(f) > floor)) continue;
		if (prevF !== 0 && prevF > 0 !== f > 0)
			pushRoot(roots, exact, brentRoot(exact, prevX, x, prevF, f, tolerance), tolerance);
		prevX = x;
		prevF = f;
	}
}

/**
 * Records x unless it is already listed or lies inside a stretch where G is exactly zero (between
 * two 0DTE strikes whose bumps have both dropped out, Brent stops at any point of it; neither the
 * reference nor GammaKernel counts that as a crossing).
 */
function pushRoot(roots: number[], f: (x: number) => number, x: number, tolerance: number): void {
	if (f(x - 4 * tolerance) === 0 && f(x + 4 * tolerance) === 0) return;
	for (const r of roots) if (Math.abs(r - x) <= 4 * tolerance) return;
	roots.push(x);
}

export interface GexProfile {
	/** Hypothetical spot levels, ascending (log-spaced). */
	spots: Float64Array;
	/** G(X) in $ per 1% move, by OI and by volume. */
	oi: Float64Array;
	vol: Float64Array;
}

export interface GexProfileOptions {
	selection?: Selection;
	lower?: number;
	upper?: number;
	/** Number of curve points; default 121. */
	points?: number;
}

/** The whole GEX profile G(X) for charting, on log-spaced spots across the window. */
export function gexProfile(chain: ChainArrays, options: GexProfileOptions = {}): GexProfile {
	const n = Math.max(2, Math.floor(options.points ?? 121));
	const uLow = Math.log(chain.spot * (options.lower ?? 0.8));
	const uHigh = Math.log(chain.spot * (options.upper ?? 1.2));
	const terms = gammaTerms(chain, options.selection, uLow, uHigh);
	const h = (uHigh - uLow) / (n - 1);
	const oi = new Float64Array(n);
	const vol = new Float64Array(n);
	accumulateUniform(terms, null, uLow, h, n, oi, vol);
	const spots = new Float64Array(n);
	for (let j = 0; j < n; j++) {
		const x = Math.exp(uLow + j * h);
		spots[j] = x;
		oi[j] *= terms.scale * x;
		vol[j] *= terms.scale * x;
	}
	return { spots, oi, vol };
}

/** G(X) at one spot exactly, by OI and by volume ($ per 1% move). */
export function gexAt(
	chain: ChainArrays,
	x: number,
	selection?: Selection
): { oi: number; vol: number } {
	const terms = gammaTerms(chain, selection);
	const u = Math.log(x);
	return {
		oi: terms.scale * x * evaluateH(terms, null, terms.cOi, u),
		vol: terms.scale * x * evaluateH(terms, null, terms.cVol, u)
	};
}
