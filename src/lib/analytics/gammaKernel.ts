/**
 * The per-second zero-gamma and greeks kernel: once per tick it turns the chain into flat
 * per-contract constants (log strike, sigma sqrt T, discount factors per expiry) from which it
 * writes every contract's greeks and the Gaussian bumps of the GEX profile (gammaTerms.ts has
 * the derivation: G(X) = scale X H(ln X), H(u) = sum c_i exp(-((u - m_i) / w_i)^2 / 2)); then it
 * finds the roots of G nearest spot, by OI and by volume, exactly (Brent on the exact sum, to an
 * absolute tolerance in price), without scanning the whole window. It is the service engine's
 * zero gamma too (src/service/engine/tickerDay.ts: the live loop and the history generator).
 *
 * Scan (see SCAN below): the window [0.8 S, 1.2 S] is cut into CELLS cells of width hc in
 * log-spot, walked outward from spot. Wide bumps (w >= WIDE_CELLS hc) enter through value and
 * slope at the cell edges, evaluated lazily (only the cells the walk reaches) and interpolated
 * inside the cell (cubic Hermite); narrow bumps (0DTE, near expiries) are evaluated exactly on
 * a sub-grid whose step is at most w / RESOLUTION of the narrowest bump reaching the cell (each
 * cell's list of narrow bumps and sub-grid are laid out on the walk's first visit too). That
 * step bound is what makes the scan unable to miss a narrow bump's sign change: a sign change a
 * bump of width w causes against a background that varies on scales >= WIDE_CELLS hc spans at
 * least about w / 2 (gammaKernel.test.ts checks the bound and compares every root with a
 * brute-force reference). The walk stops once the next cell is farther from spot than the
 * nearest root found.
 *
 * Warm start: given the previous second's roots and spot, when spot moved less than one cell the
 * refinement first tries a narrow bracket around the previous root (one or two Brent steps
 * instead of ten); the scan still certifies that no nearer root appeared.
 */
import { MIN_STDDEV } from './bsm';
import { INV_SQRT_2PI, noDiffusion, writeGreeks } from './gammaKernelGreeks';
import { nearestRootsOf, Z_MAX, type NearestRoots, type WarmStart } from './gammaKernelRoots';

export type { NearestRoots, WarmStart };
import { selectionIndices, type ChainArrays, type Selection } from './chain';
import type { GreekArrays } from './greeks';

/** Cells across the window, in log-spot. */
export const CELLS = 128;
/** Bumps at least this many cells wide are wide (edge values + Hermite inside a cell). */
export const WIDE_CELLS = 6;
/** Sub-grid points per narrowest bump width. */
export const RESOLUTION = 4;
/** Sub-grid points per recurrence run in a cell's scan (see scanCell). */
const RUN = 16;
/** Sub-grid points per cell at most (a contract seconds from expiry is a spike, not a level). */
const MAX_CELL_POINTS = 1024;
/** The cell scan's scratch, shared by the kernels of this thread (see GammaKernel.scanU). */
const SCAN = {
	u: new Float64Array(MAX_CELL_POINTS + 1),
	oi: new Float64Array(MAX_CELL_POINTS + 1),
	vol: new Float64Array(MAX_CELL_POINTS + 1)
};
/** A bump is negligible where it is below this fraction of the window's gross bump mass. */
const NEGLIGIBLE = 1e-17;

export interface KernelOptions {
	selection?: Selection;
	/** Window as fractions of spot; default 0.8 .. 1.2. */
	lower?: number;
	upper?: number;
	/** Also write every selected contract's greeks here (same values as computeGreeks). */
	greeks?: GreekArrays;
}

function grow(a: Float64Array, n: number): Float64Array {
	return a.length >= n ? a : new Float64Array(Math.max(n, 2 * a.length));
}

/** `a` with room for n entries, its contents kept. */
function grow32(a: Int32Array<ArrayBuffer>, n: number): Int32Array<ArrayBuffer> {
	if (a.length >= n) return a;
	const b = new Int32Array(Math.max(n, 2 * a.length));
	b.set(a);
	return b;
}

/** Reusable state of the kernel (typed arrays kept between ticks). */
export class GammaKernel {
	spot = 0;
	count = 0;
	m: Float64Array = new Float64Array(0);
	w: Float64Array = new Float64Array(0);
	cOi: Float64Array = new Float64Array(0);
	cVol: Float64Array = new Float64Array(0);
	/** The narrowest bump width reaching the window (the scan's step bound). */
	minWidth = Infinity;
	uLow = 0;
	uHigh = 0;
	hc = 0;
	private strikeSeen: Float64Array = new Float64Array(0);
	private logStrike: Float64Array = new Float64Array(0);
	/** @internal read by ./gammaKernelRoots */
	massOi = 0;
	/** @internal read by ./gammaKernelRoots */
	massVol = 0;
	private wide = new Int32Array(0);
	private wideCount = 0;
	private narrow = new Int32Array(0);
	private narrowCount = 0;
	/** Per narrow bump (in `narrow` order): the first and last cell it reaches. */
	private narrowLo = new Int32Array(0);
	private narrowHi = new Int32Array(0);
	// Per cell, laid out on the walk's first visit (it rarely goes past a few cells of 128):
	// sub-grid points, and the narrow bumps reaching it (cellList[cellStart .. cellStart + cellSize]).
	private readonly cellReady = new Uint8Array(CELLS);
	private readonly cellPoints = new Int32Array(CELLS);
	private readonly cellStart = new Int32Array(CELLS);
	private readonly cellSize = new Int32Array(CELLS);
	private cellList = new Int32Array(0);
	private cellListEnd = 0;
	// Scan buffers of one cell: scratch filled and read within one nearestRoots call, so every
	// kernel of a thread shares one set (the embedded service keeps 321 kernels: 7.5 MB of copies).
	/** @internal read by ./gammaKernelRoots */
	readonly scanU = SCAN.u;
	/** @internal read by ./gammaKernelRoots */
	readonly scanOi = SCAN.oi;
	/** @internal read by ./gammaKernelRoots */
	readonly scanVol = SCAN.vol;
	// Wide-bump edge values and slopes, computed on first use per tick.
	private readonly edgeReady = new Uint8Array(CELLS + 1);
	private readonly vOi = new Float64Array(CELLS + 1);
	private readonly vVol = new Float64Array(CELLS + 1);
	private readonly dOi = new Float64Array(CELLS + 1);
	private readonly dVol = new Float64Array(CELLS + 1);
	/** @internal read by ./gammaKernelRoots */
	edges = 0;
	/** @internal read by ./gammaKernelRoots */
	scanPoints = 0;

	/**
	 * The tick's constants: greeks of the selected contracts (when `options.greeks` is given)
	 * and the profile's bumps, in one pass over the chain.
	 */
	update(chain: ChainArrays, options: KernelOptions = {}): this {
		const idx = selectionIndices(chain.length, options.selection);
		const n = idx.length;
		this.m = grow(this.m, n);
		this.w = grow(this.w, n);
		this.cOi = grow(this.cOi, n);
		this.cVol = grow(this.cVol, n);
		if (this.strikeSeen.length < chain.length) {
			this.strikeSeen = new Float64Array(chain.length).fill(NaN);
			this.logStrike = new Float64Array(chain.length);
		}
		const { m, w, cOi, cVol } = this;
		const { spot, rate: r, dividendYield: q, strike, expiryYears, iv, isCall } = chain;
		const { openInterest, volume } = chain;
		const g = options.greeks;
		if (g && g.price.length < chain.length) throw new RangeError('greek arrays too short');
		if (g) g.length = chain.length;
		const lnS = Math.log(spot);
		this.spot = spot;
		this.uLow = Math.log(spot * (options.lower ?? 0.8));
		this.uHigh = Math.log(spot * (options.upper ?? 1.2));
		this.hc = (this.uHigh - this.uLow) / CELLS;
		// Per-expiry constants, recomputed only when T changes (contracts come grouped by expiry).
		let lastT = NaN;
		let sqrtT = 0;
		let dq = 1;
		let dr = 1;
		let count = 0;
		for (let j = 0; j < n; j++) {
			const i = idx[j];
			const t = expiryYears[i];
			const call = isCall[i] === 1;
			if (t !== lastT) {
				lastT = t;
				sqrtT = Math.sqrt(t);
				dq = Math.exp(-q * t);
				dr = Math.exp(-r * t);
			}
			const sigma = iv[i];
			const sd = sigma * sqrtT;
			if (!(t > 0) || !(sd >= MIN_STDDEV)) {
				// No diffusion left: bsmGreeks' limits (intrinsic, step delta, no gamma), no bump.
				if (g) noDiffusion(g, i, call, spot, strike[i], t, dq, dr);
				continue;
			}
			// Log strikes carry over from the previous tick (a compare costs less than a log).
			if (this.strikeSeen[i] !== strike[i]) {
				this.strikeSeen[i] = strike[i];
				this.logStrike[i] = Math.log(strike[i]);
			}
			const logK = this.logStrike[i];
			const drift = (r - q) * t;
			if (g) {
				// d1 term by term as bsmD1 builds it, so a huge sigma cannot overflow.
				const d1 = (lnS - logK) / sd + drift / sd + 0.5 * sd;
				writeGreeks(g, i, call, d1, spot, strike[i], t, sigma, sd, sqrtT, r, q, dq, dr);
			}
			const oi = openInterest[i];
			const vol = volume[i];
			if (oi === 0 && vol === 0) continue;
			const base = ((call ? 1 : -1) * dq * INV_SQRT_2PI) / sd;
			const centre = logK - drift - 0.5 * sd * sd;
			// A strike's call and put with one IV are the same Gaussian: one bump, netted weights.
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
		this.count = count;
		this.plan();
		return this;
	}

	/**
	 * Splits the bumps into wide and narrow, and finds the cells each narrow one reaches (a cell's
	 * list and sub-grid are laid out when the walk first visits it, layCell).
	 */
	private plan(): void {
		const { m, w, cOi, cVol, count, uLow, uHigh, hc } = this;
		if (this.wide.length < count) {
			this.wide = new Int32Array(Math.max(count, 2 * this.wide.length));
			this.narrow = new Int32Array(this.wide.length);
			this.narrowLo = new Int32Array(this.wide.length);
			this.narrowHi = new Int32Array(this.wide.length);
		}
		// The window's gross bump mass, then each bump's reach: where it falls below NEGLIGIBLE of
		// that mass (far below the SIGNIFICANT floor), so a 0DTE bump's fine grid and cell lists
		// span its few widths, not the whole window.
		let massOi = 0;
		let massVol = 0;
		for (let i = 0; i < count; i++) {
			const z = m[i] < uLow ? (uLow - m[i]) / w[i] : m[i] > uHigh ? (m[i] - uHigh) / w[i] : 0;
			if (z > Z_MAX) continue;
			const peak = z === 0 ? 1 : Math.exp(-0.5 * z * z);
			massOi += Math.abs(cOi[i]) * peak;
			massVol += Math.abs(cVol[i]) * peak;
		}
		this.massOi = massOi;
		this.massVol = massVol;
		const floorOi = NEGLIGIBLE * massOi;
		const floorVol = NEGLIGIBLE * massVol;
		let nw = 0;
		let nn = 0;
		let minWidth = Infinity;
		const wideWidth = WIDE_CELLS * hc;
		for (let i = 0; i < count; i++) {
			const wi = w[i];
			if (wi >= wideWidth) {
				// Wide: whole cells, its edge values are summed wherever |z| <= Z_MAX.
				if (m[i] + Z_MAX * wi < uLow || m[i] - Z_MAX * wi > uHigh) continue;
				if (wi < minWidth) minWidth = wi;
				this.wide[nw++] = i;
				continue;
			}
			const ratio = Math.max(
				floorOi > 0 ? Math.abs(cOi[i]) / floorOi : 0,
				floorVol > 0 ? Math.abs(cVol[i]) / floorVol : 0
			);
			if (!(ratio > 1)) continue;
			const reach = Math.min(Z_MAX, Math.sqrt(2 * Math.log(ratio))) * wi;
			if (m[i] + reach < uLow || m[i] - reach > uHigh) continue;
			if (wi < minWidth) minWidth = wi;
			this.narrowLo[nn] = Math.max(0, Math.floor((m[i] - reach - uLow) / hc));
			this.narrowHi[nn] = Math.min(CELLS - 1, Math.floor((m[i] + reach - uLow) / hc));
			this.narrow[nn++] = i;
		}
		this.wideCount = nw;
		this.narrowCount = nn;
		this.minWidth = minWidth;
		this.cellReady.fill(0);
		this.cellListEnd = 0;
		this.edgeReady.fill(0);
	}

	/**
	 * Lays out cell c: the narrow bumps reaching it (in `narrow` order) and its sub-grid, a power
	 * of two of points with a step at most w / RESOLUTION of the narrowest of them.
	 */
	private layCell(c: number): void {
		if (this.cellReady[c] === 1) return;
		const nn = this.narrowCount;
		if (this.cellList.length < this.cellListEnd + nn)
			this.cellList = grow32(this.cellList, this.cellListEnd + nn);
		const start = this.cellListEnd;
		let end = start;
		let step = this.hc;
		for (let a = 0; a < nn; a++) {
			if (this.narrowLo[a] > c || this.narrowHi[a] < c) continue;
			const i = this.narrow[a];
			this.cellList[end++] = i;
			const sub = this.w[i] / RESOLUTION;
			if (sub < step) step = sub;
		}
		this.cellStart[c] = start;
		this.cellSize[c] = end - start;
		this.cellListEnd = end;
		this.cellPoints[c] =
			step >= this.hc
				? 1
				: Math.min(MAX_CELL_POINTS, 2 ** Math.ceil(Math.log2(this.hc / step) - 1e-9));
		this.cellReady[c] = 1;
	}

	/** Sub-grid points of cell c this tick (the scan's step there is hc / points). */
	pointsOf(c: number): number {
		this.layCell(c);
		return this.cellPoints[c];
	}

	/** Value and slope of the wide bumps at cell edge e (once per tick). */
	private edge(e: number): void {
		if (this.edgeReady[e] === 1) return;
		const u = this.uLow + e * this.hc;
		const { m, w, cOi, cVol, wide } = this;
		let vo = 0;
		let vv = 0;
		let so = 0;
		let sv = 0;
		for (let a = 0; a < this.wideCount; a++) {
			const i = wide[a];
			const inv = 1 / w[i];
			const z = (u - m[i]) * inv;
			if (z > Z_MAX || z < -Z_MAX) continue;
			const g = Math.exp(-0.5 * z * z);
			const slope = -z * inv * g;
			vo += cOi[i] * g;
			vv += cVol[i] * g;
			so += cOi[i] * slope;
			sv += cVol[i] * slope;
		}
		this.vOi[e] = vo;
		this.vVol[e] = vv;
		this.dOi[e] = so;
		this.dVol[e] = sv;
		this.edgeReady[e] = 1;
		this.edges++;
	}

	/**
	 * SCAN of one cell: H by OI and by volume at its sub-grid points (both edges included),
	 * written to `hOi` / `hVol` / `u`; returns the number of points.
	 *
	 * On a fine sub-grid (RUN points or more) each narrow bump is walked along the grid by the
	 * Gaussian recurrence e(z + d) = e(z) r, r(z + d) = r(z) exp(-d^2), restarted from exact exps
	 * every RUN points: three exps per bump and run instead of one per point. A run of RUN
	 * products is off by about RUN^2 / 2 ulps of the bump's own value (~1e-14), far below the
	 * SIGNIFICANT floor of the window's mass, so the signs the scan reports are the exact sum's.
	 */
	/** @internal the walk in ./gammaKernelRoots scans cell by cell */
	scanCell(c: number, u: Float64Array, hOi: Float64Array, hVol: Float64Array): number {
		this.edge(c);
		this.edge(c + 1);
		this.layCell(c);
		const n = this.cellPoints[c];
		const first = this.cellStart[c];
		const last = first + this.cellSize[c];
		const hc = this.hc;
		const u0 = this.uLow + c * hc;
		const { vOi, vVol, dOi, dVol, m, w, cOi, cVol } = this;
		const fine = n >= RUN / 2;
		for (let k = 0; k <= n; k++) {
			const s = k / n;
			const s2 = s * s;
			const s3 = s2 * s;
			const h00 = 2 * s3 - 3 * s2 + 1;
			const h10 = (s3 - 2 * s2 + s) * hc;
			const h01 = 3 * s2 - 2 * s3;
			const h11 = (s3 - s2) * hc;
			const x = u0 + k * (hc / n);
			u[k] = x;
			let ho = h00 * vOi[c] + h10 * dOi[c] + h01 * vOi[c + 1] + h11 * dOi[c + 1];
			let hv = h00 * vVol[c] + h10 * dVol[c] + h01 * vVol[c + 1] + h11 * dVol[c + 1];
			if (!fine) {
				for (let p = first; p < last; p++) {
					const i = this.cellList[p];
					const z = (x - m[i]) / w[i];
					if (z > Z_MAX || z < -Z_MAX) continue;
					const e = Math.exp(-0.5 * z * z);
					ho += cOi[i] * e;
					hv += cVol[i] * e;
				}
			}
			hOi[k] = ho;
			hVol[k] = hv;
		}
		if (fine) {
			const step = hc / n;
			for (let p = first; p < last; p++) {
				const i = this.cellList[p];
				const inv = 1 / w[i];
				const mi = m[i];
				const co = cOi[i];
				const cv = cVol[i];
				const d = step * inv;
				const q = Math.exp(-d * d);
				for (let k0 = 0; k0 <= n; k0 += RUN) {
					const k1 = Math.min(n, k0 + RUN - 1);
					const z = (u[k0] - mi) * inv;
					// The whole run beyond Z_MAX on one side: below 1e-297 of the bump's peak.
					if (z > Z_MAX || z + (k1 - k0) * d < -Z_MAX) continue;
					let e = Math.exp(-0.5 * z * z);
					let r = Math.exp(-z * d - 0.5 * d * d);
					for (let k = k0; k <= k1; k++) {
						hOi[k] += co * e;
						hVol[k] += cv * e;
						e *= r;
						r *= q;
					}
				}
			}
		}
		this.scanPoints += n + 1;
		return n + 1;
	}

	/**
	 * The roots of G nearest spot by OI and by volume, to `tolerance` (price units, default
	 * 1e-6). `warm`: the previous second's answer, tried first when spot moved less than a cell.
	 * `only`: one weighting (the other stays null), so the walk stops at that weighting's nearest
	 * root instead of going on for the other one (the service wants the by-OI root only when
	 * there is no by-volume one).
	 */
	nearestRoots(tolerance = 1e-6, warm?: WarmStart, only?: 'oi' | 'vol'): NearestRoots {
		return nearestRootsOf(this, CELLS, tolerance, warm, only);
	}

	/** H(u) of one weighting over every bump (the reference the tests compare with). */
	exactH(weighting: 'oi' | 'vol', u: number): number {
		const c = weighting === 'oi' ? this.cOi : this.cVol;
		let sum = 0;
		for (let i = 0; i < this.count; i++) {
			const z = (u - this.m[i]) / this.w[i];
			sum += c[i] * Math.exp(-0.5 * z * z);
		}
		return sum;
	}
}

/** The roots of G nearest spot in one call (the engine keeps one GammaKernel per chain). */
export function nearestZeroGamma(
	chain: ChainArrays,
	options: KernelOptions & { tolerance?: number; warm?: WarmStart } = {}
): NearestRoots {
	return new GammaKernel().update(chain, options).nearestRoots(options.tolerance, options.warm);
}
