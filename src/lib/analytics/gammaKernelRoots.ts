/**
 * The gamma kernel's root refinement (./gammaKernel.ts finds the cells whose sub-grid changes
 * sign; this confirms each sign change on the exact sum and refines it): the cell's brackets
 * nearest spot first, a warm bracket around the previous second's root, Brent on the exact sum,
 * and the exact sum itself near an interval (wide bumps as one Taylor polynomial, narrow ones
 * summed directly). Pure functions of the kernel's bumps.
 */
import { brentRoot } from './brent';

/** |z| beyond which a bump is below 1e-300 of its peak. */
export const Z_MAX = 37;
/**
 * Taylor degree and reach of the wide bumps' local expansion at refinement: with |e| <= w / 6,
 * Cramer's bound on He_13 puts the remainder under 1.1 (1/6)^13 / sqrt(13!) < 1e-15 of each bump's
 * peak, i.e. rounding level against the window's mass.
 */
const TAYLOR_DEGREE = 12;
const TAYLOR_REACH = 6;
const INV_N = Float64Array.from({ length: TAYLOR_DEGREE + 1 }, (_, n) => (n === 0 ? 0 : 1 / n));

/** The kernel's Gaussian bumps: centre m, width w and weight by OI and by volume, count used. */
export interface Bumps {
	m: Float64Array;
	w: Float64Array;
	cOi: Float64Array;
	cVol: Float64Array;
	count: number;
}

/** The root nearest spot among the sign changes of one scanned cell, refined exactly. */
export function cellRoots(
	spot: number,
	exactOf: () => (x: number) => number,
	u: Float64Array,
	h: Float64Array,
	points: number,
	floor: number,
	tolerance: number,
	previous: number | null
): { root: number | null; warm: boolean } {
	// The cell's sign changes, nearest spot first; refined until the next cannot be nearer.
	const brackets: number[] = [];
	let prev = -1;
	for (let k = 0; k < points; k++) {
		if (!(Math.abs(h[k]) > floor)) continue;
		if (prev >= 0 && h[prev] > 0 !== h[k] > 0) brackets.push(prev, k);
		prev = k;
	}
	if (brackets.length === 0) return { root: null, warm: false };
	const gap = (a: number, b: number) => {
		const xa = Math.exp(u[a]);
		const xb = Math.exp(u[b]);
		return spot < xa ? xa - spot : spot > xb ? spot - xb : 0;
	};
	const order = Array.from({ length: brackets.length / 2 }, (_, j) => j).sort(
		(x, y) => gap(brackets[2 * x], brackets[2 * x + 1]) - gap(brackets[2 * y], brackets[2 * y + 1])
	);
	const exact = exactOf();
	let best: number | null = null;
	let warm = false;
	for (const j of order) {
		const a = brackets[2 * j];
		const b = brackets[2 * j + 1];
		if (best !== null && gap(a, b) > Math.abs(best - spot)) break;
		const r = refine(spot, exact, u[a], u[b], floor, tolerance, previous);
		if (r.root !== null && (best === null || Math.abs(r.root - spot) < Math.abs(best - spot))) {
			best = r.root;
			warm = r.warm;
		}
	}
	return { root: best, warm };
}

/**
 * Exact root in [ua, ub] (log-spot) of one weighting's exact sum, nearest `spot`. The scan's sign change is confirmed
 * on the exact sum; when the Hermite part moved it by a sub-grid step, the neighbourhood is
 * searched on the exact sum instead.
 */
function refine(
	spot: number,
	exact: (x: number) => number,
	ua: number,
	ub: number,
	floor: number,
	tolerance: number,
	previous: number | null
): { root: number | null; warm: boolean } {
	const step = ub - ua;
	const lo = ua - 2 * step;
	const hi = ub + 2 * step;
	const xa = Math.exp(ua);
	const xb = Math.exp(ub);
	if (previous !== null && previous > xa && previous < xb) {
		// Warm start: a bracket of a few tolerances around the previous root.
		const a = Math.max(xa, previous - 64 * tolerance);
		const b = Math.min(xb, previous + 64 * tolerance);
		const fa = exact(a);
		const fb = exact(b);
		if (Math.abs(fa) > floor && Math.abs(fb) > floor && fa > 0 !== fb > 0)
			return { root: brentRoot(exact, a, b, fa, fb, tolerance), warm: true };
	}
	const fa = exact(xa);
	const fb = exact(xb);
	if (Math.abs(fa) > floor && Math.abs(fb) > floor && fa > 0 !== fb > 0)
		return { root: brentRoot(exact, xa, xb, fa, fb, tolerance), warm: false };
	// Search [lo, hi] on the exact sum at the scan's step.
	let best: number | null = null;
	let px = 0;
	let pf = 0;
	for (let v = lo; v <= hi + 1e-15; v += step / 2) {
		const x = Math.exp(v);
		const f = exact(x);
		if (!(Math.abs(f) > floor)) continue;
		if (pf !== 0 && pf > 0 !== f > 0) {
			const r = brentRoot(exact, px, x, pf, f, tolerance);
			if (best === null || Math.abs(r - spot) < Math.abs(best - spot)) best = r;
		}
		px = x;
		pf = f;
	}
	return { root: best, warm: false };
}

/**
 * H(ln x) on [ua, ub] by OI and by volume exactly (to rounding): bumps at least TAYLOR_REACH
 * half-widths of the interval wide summed once into a Taylor polynomial about its middle
 * (both weightings from the same exps), narrower ones directly.
 */
export function localPair(
	bumps: Bumps,
	ua: number,
	ub: number
): Record<'oi' | 'vol', (x: number) => number> {
	const mid = 0.5 * (ua + ub);
	const half = 0.5 * (ub - ua);
	const coefOi = new Float64Array(TAYLOR_DEGREE + 1);
	const coefVol = new Float64Array(TAYLOR_DEGREE + 1);
	const direct: number[] = [];
	const { m, w, cOi, cVol } = bumps;
	for (let i = 0; i < bumps.count; i++) {
		const wi = w[i];
		const reach = Z_MAX * wi;
		const mi = m[i];
		if (mi - reach > ub || mi + reach < ua) continue;
		if (wi < TAYLOR_REACH * half) {
			direct.push(i);
			continue;
		}
		const z0 = (mid - mi) / wi;
		const e = Math.exp(-0.5 * z0 * z0);
		const go = cOi[i] * e;
		const gv = cVol[i] * e;
		let hePrev = 1;
		let he = z0;
		let fac = 1;
		const negInvW = -1 / wi;
		coefOi[0] += go;
		coefVol[0] += gv;
		for (let k = 1; k <= TAYLOR_DEGREE; k++) {
			fac *= negInvW * INV_N[k];
			const t = he * fac;
			coefOi[k] += go * t;
			coefVol[k] += gv * t;
			const next = z0 * he - k * hePrev;
			hePrev = he;
			he = next;
		}
	}
	const which = Int32Array.from(direct);
	const at = (coef: Float64Array, c: Float64Array) => (x: number) => {
		const v = Math.log(x);
		const d = v - mid;
		let p = coef[TAYLOR_DEGREE];
		for (let k = TAYLOR_DEGREE - 1; k >= 0; k--) p = p * d + coef[k];
		for (let a = 0; a < which.length; a++) {
			const i = which[a];
			const z = (v - m[i]) / w[i];
			if (z > Z_MAX || z < -Z_MAX) continue;
			p += c[i] * Math.exp(-0.5 * z * z);
		}
		return p;
	};
	return { oi: at(coefOi, cOi), vol: at(coefVol, cVol) };
}
