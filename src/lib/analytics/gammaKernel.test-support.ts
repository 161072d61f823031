/**
 * The brute-force zero-gamma reference the kernel's tests compare with (gammaKernel.test.ts on
 * synthetic chains, the service engine's tests on its simulated ones): G(X) summed from every
 * contract's own gamma, scanned on a log grid finer than the narrowest sigma sqrt T.
 */
import { brentRoot } from './brent';
import { bsmGamma } from './bsm';
import { selectionIndices, type ChainArrays, type Selection } from './chain';

/** G(X) straight from per-contract gamma (the definition), by OI or by volume. */
export function bruteGex(
	chain: ChainArrays,
	x: number,
	by: 'oi' | 'vol',
	selection?: Selection
): number {
	const idx = selectionIndices(chain.length, selection);
	let sum = 0;
	for (let j = 0; j < idx.length; j++) {
		const i = idx[j];
		const g = bsmGamma(
			x,
			chain.strike[i],
			chain.expiryYears[i],
			chain.iv[i],
			chain.rate,
			chain.dividendYield
		);
		const n = by === 'oi' ? chain.openInterest[i] : chain.volume[i];
		sum += (chain.isCall[i] === 1 ? 1 : -1) * g * n * x * x;
	}
	return sum;
}

/**
 * The root of G nearest spot in [0.8 S, 1.2 S]: a uniform log grid `fine` times finer than
 * `minWidth` (the narrowest sigma sqrt T), every sign change refined by Brent to 1e-9.
 */
export function bruteNearest(
	chain: ChainArrays,
	by: 'oi' | 'vol',
	minWidth: number,
	fine = 64,
	selection?: Selection
): number | null {
	const g = (x: number) => bruteGex(chain, x, by, selection);
	const lo = Math.log(chain.spot * 0.8);
	const hi = Math.log(chain.spot * 1.2);
	const steps = Math.ceil((hi - lo) / (minWidth / fine));
	let best: number | null = null;
	let px = Math.exp(lo);
	let pf = g(px);
	for (let j = 1; j <= steps; j++) {
		const x = Math.exp(lo + ((hi - lo) * j) / steps);
		const f = g(x);
		if (pf !== 0 && f !== 0 && pf > 0 !== f > 0) {
			const r = brentRoot(g, px, x, pf, f, 1e-9);
			if (best === null || Math.abs(r - chain.spot) < Math.abs(best - chain.spot)) best = r;
		}
		px = x;
		pf = f;
	}
	return best;
}
