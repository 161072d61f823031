/**
 * The brute-force zero-gamma reference, the one copy every check compares with (gammaKernel and
 * zeroGamma tests on synthetic chains, the service engine's tests on its simulated ones, the
 * analytics and service-loop benchmarks): G(X) summed from every contract's own gamma, scanned
 * on a log grid finer than the narrowest sigma sqrt T.
 */
import { brentRoot } from './brent';
import { bsmGamma } from './bsm';
import { selectionIndices, type ChainArrays, type Selection } from './chain';

/** G(X) by OI and by volume, and the sums of the terms' absolute values (the gross scale). */
export interface BruteProfile {
	oi: number;
	vol: number;
	grossOi: number;
	grossVol: number;
}

/**
 * G(X) straight from per-contract gamma (the definition), in dollars per 1% move as the
 * exposures report it, by OI and by volume in one pass over the contracts; with `gross`, the
 * sums of the terms' absolute values too (the scale rounding noise is measured against; 0
 * without it, which keeps the benchmark's naive grid to the work it names).
 */
export function bruteProfile(
	chain: ChainArrays,
	x: number,
	selection?: Selection,
	gross = false
): BruteProfile {
	// Without a selection, every contract in order (no index array per call).
	const idx = selection === undefined ? null : selectionIndices(chain.length, selection);
	const n = idx ? idx.length : chain.length;
	let oi = 0;
	let vol = 0;
	let grossOi = 0;
	let grossVol = 0;
	for (let j = 0; j < n; j++) {
		const i = idx ? idx[j] : j;
		const g = bsmGamma(
			x,
			chain.strike[i],
			chain.expiryYears[i],
			chain.iv[i],
			chain.rate,
			chain.dividendYield
		);
		const size = g * chain.contractSize * x * x * 0.01;
		const unit = chain.isCall[i] === 1 ? size : -size;
		oi += unit * chain.openInterest[i];
		vol += unit * chain.volume[i];
		if (gross) {
			grossOi += size * chain.openInterest[i];
			grossVol += size * chain.volume[i];
		}
	}
	return { oi, vol, grossOi, grossVol };
}

/** One side of bruteProfile: G(X) by OI or by volume; with `gross`, that side's gross sum. */
export function bruteGex(
	chain: ChainArrays,
	x: number,
	by: 'oi' | 'vol',
	selection?: Selection,
	gross = false
): number {
	const p = bruteProfile(chain, x, selection, gross);
	if (gross) return by === 'oi' ? p.grossOi : p.grossVol;
	return p[by];
}

/**
 * Every root of G in [0.8 S, 1.2 S], ascending: a uniform log grid `fine` times finer than
 * `minWidth` (the narrowest sigma sqrt T), each sign change between two neighbouring non-zero
 * points refined by Brent to 1e-9 (a stretch where G is exactly 0 breaks the pair: no root).
 * `significant`: |G| at or below this fraction of the window's largest gross sum counts as zero
 * too (the implementations' rule: a crossing deep in the bumps' tails is rounding noise).
 */
export function bruteRoots(
	chain: ChainArrays,
	by: 'oi' | 'vol',
	minWidth: number,
	fine = 64,
	selection?: Selection,
	significant = 0
): number[] {
	const g = (x: number) => bruteGex(chain, x, by, selection);
	const lo = Math.log(chain.spot * 0.8);
	const hi = Math.log(chain.spot * 1.2);
	const steps = Math.ceil((hi - lo) / (minWidth / fine));
	const xs = Float64Array.from({ length: steps + 1 }, (_, j) =>
		Math.exp(lo + ((hi - lo) * j) / steps)
	);
	const fs = xs.map(g);
	let gross = 0;
	if (significant > 0)
		for (const x of xs) gross = Math.max(gross, bruteGex(chain, x, by, selection, true));
	const floor = significant * gross;
	const roots: number[] = [];
	let px = xs[0];
	let pf = Math.abs(fs[0]) > floor ? fs[0] : 0;
	for (let j = 1; j <= steps; j++) {
		const x = xs[j];
		const f = Math.abs(fs[j]) > floor ? fs[j] : 0;
		if (pf !== 0 && f !== 0 && pf > 0 !== f > 0) roots.push(brentRoot(g, px, x, pf, f, 1e-9));
		px = x;
		pf = f;
	}
	return roots;
}

/** The root of G nearest spot in [0.8 S, 1.2 S] (of bruteRoots), null when there is none. */
export function bruteNearest(
	chain: ChainArrays,
	by: 'oi' | 'vol',
	minWidth: number,
	fine = 64,
	selection?: Selection,
	significant = 0
): number | null {
	return nearestTo(bruteRoots(chain, by, minWidth, fine, selection, significant), chain.spot);
}

/** The root nearest spot (the first of two equally near), null when there is none. */
export function nearestTo(roots: number[], spot: number): number | null {
	let best: number | null = null;
	for (const r of roots) if (best === null || Math.abs(r - spot) < Math.abs(best - spot)) best = r;
	return best;
}
