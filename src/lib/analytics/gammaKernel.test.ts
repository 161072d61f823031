import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { brentRoot } from './brent';
import { bsmGamma } from './bsm';
import { chainArraysFromContracts, type ChainArrays, type OptionContract } from './chain';
import { CELLS, GammaKernel, RESOLUTION, WIDE_CELLS, nearestZeroGamma } from './gammaKernel';
import { computeGreeks, createGreekArrays } from './greeks';
import { syntheticChain } from './syntheticChain';

const market = { spot: 5000, rate: 0.05, dividendYield: 0.013, contractSize: 100 };

/** G(X) straight from per-contract gamma (the definition), by OI or by volume. */
function bruteGex(chain: ChainArrays, x: number, by: 'oi' | 'vol'): number {
	let sum = 0;
	for (let i = 0; i < chain.length; i++) {
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
 * The brute-force reference: G from per-contract gamma on a uniform log grid `fine` times finer
 * than the narrowest sigma sqrt T, every sign change refined by Brent to 1e-9; the root nearest
 * spot.
 */
function bruteNearest(
	chain: ChainArrays,
	by: 'oi' | 'vol',
	minWidth: number,
	fine = 64
): number | null {
	const lo = Math.log(chain.spot * 0.8);
	const hi = Math.log(chain.spot * 1.2);
	const steps = Math.ceil((hi - lo) / (minWidth / fine));
	let best: number | null = null;
	let px = Math.exp(lo);
	let pf = bruteGex(chain, px, by);
	for (let j = 1; j <= steps; j++) {
		const x = Math.exp(lo + ((hi - lo) * j) / steps);
		const f = bruteGex(chain, x, by);
		if (pf !== 0 && f !== 0 && pf > 0 !== f > 0) {
			const r = brentRoot((v) => bruteGex(chain, v, by), px, x, pf, f, 1e-9);
			if (best === null || Math.abs(r - chain.spot) < Math.abs(best - chain.spot)) best = r;
		}
		px = x;
		pf = f;
	}
	return best;
}

describe('GammaKernel greeks', () => {
	it('writes the same greeks as computeGreeks, expired and zero-vol contracts included', () => {
		const chain = syntheticChain({ zeroDteHours: 2 });
		chain.expiryYears[0] = 0;
		chain.expiryYears[1] = -1;
		chain.iv[2] = 0;
		const want = computeGreeks(chain);
		const got = createGreekArrays(chain.length);
		new GammaKernel().update(chain, { greeks: got });
		for (const k of ['price', 'delta', 'gamma', 'vega', 'vanna', 'charm', 'charmPerDay'] as const)
			for (let i = 0; i < chain.length; i++) {
				const scale = Math.max(1e-12, Math.abs(want[k][i]));
				expect(Math.abs(got[k][i] - want[k][i]) / scale, `${k} ${i}`).toBeLessThan(1e-9);
			}
	});
});

describe('GammaKernel nearest zero gamma', () => {
	it('equals the brute-force reference within 1e-6 on the benchmark chain, 5 h and 15 min to the 0DTE close', () => {
		for (const hours of [5, 0.25]) {
			const chain = syntheticChain({ zeroDteHours: hours });
			const kernel = new GammaKernel().update(chain);
			const got = kernel.nearestRoots();
			for (const by of ['oi', 'vol'] as const) {
				// 12,000 contracts: a grid at half the narrowest width (still no 0DTE change fits
				// between two points), 500-1,100 points of the whole chain each.
				const want = bruteNearest(chain, by, kernel.minWidth, 2);
				expect(want, `${hours} h ${by}`).not.toBeNull();
				expect(Math.abs((got[by] as number) - (want as number)), `${hours} h ${by}`).toBeLessThan(
					1e-6
				);
			}
			// It did not scan the whole window to get there.
			expect(got.edges).toBeLessThan(CELLS + 1);
		}
	}, 300_000);

	it('bounds the scan step by the narrowest sigma sqrt T reaching each cell', () => {
		const chain = syntheticChain({ zeroDteHours: 0.25 });
		const kernel = new GammaKernel().update(chain);
		const k = kernel as unknown as { cellPoints: Int32Array; hc: number };
		// Every contract narrower than the wide threshold: its cells' step is <= width / RESOLUTION.
		for (let i = 0; i < kernel.count; i++) {
			const w = kernel.w[i];
			if (w >= WIDE_CELLS * kernel.hc) continue;
			const c = Math.floor((kernel.m[i] - kernel.uLow) / kernel.hc);
			if (c < 0 || c >= CELLS) continue;
			const points = k.cellPoints[c];
			if (points >= 1024) continue; // the cap: seconds from expiry
			expect(kernel.hc / points).toBeLessThanOrEqual(w / RESOLUTION + 1e-15);
		}
		expect(kernel.minWidth).toBeLessThan(0.002);
	});

	it('never misses a 0DTE sign change: random chains against the brute-force reference', () => {
		const contract = fc.record({
			strike: fc.integer({ min: 4600, max: 5400 }),
			isCall: fc.boolean(),
			iv: fc.double({ min: 0.08, max: 0.6, noNaN: true }),
			openInterest: fc.integer({ min: 0, max: 5000 }),
			volume: fc.integer({ min: 0, max: 5000 })
		});
		fc.assert(
			fc.property(
				fc.array(contract, { minLength: 2, maxLength: 14 }),
				fc.array(contract, { minLength: 0, maxLength: 10 }),
				fc.double({ min: 0.1, max: 6, noNaN: true }),
				(zeroDte, later, hours) => {
					const contracts: OptionContract[] = [
						...zeroDte.map((c) => ({ ...c, expiryYears: hours / 24 / 365 })),
						...later.map((c) => ({ ...c, expiryYears: 30 / 365 }))
					];
					const chain = chainArraysFromContracts(market, contracts);
					const kernel = new GammaKernel().update(chain);
					const got = kernel.nearestRoots();
					for (const by of ['oi', 'vol'] as const) {
						const want = bruteNearest(chain, by, kernel.minWidth);
						if (want === null) expect(got[by]).toBeNull();
						else expect(Math.abs((got[by] ?? Infinity) - want)).toBeLessThan(1e-6);
					}
				}
			),
			{ numRuns: 40, seed: 1311 }
		);
	}, 120_000);

	it('warm-starts from the previous second and finds the same roots', () => {
		const chain = syntheticChain({ zeroDteHours: 3 });
		const kernel = new GammaKernel();
		const first = kernel.update(chain).nearestRoots();
		chain.spot += 0.5;
		const cold = kernel.update(chain).nearestRoots();
		const warm = kernel.nearestRoots(1e-6, {
			spot: chain.spot - 0.5,
			oi: first.oi,
			vol: first.vol
		});
		expect(warm.warm).toBe(true);
		expect(Math.abs((warm.oi as number) - (cold.oi as number))).toBeLessThan(1e-6);
		expect(Math.abs((warm.vol as number) - (cold.vol as number))).toBeLessThan(1e-6);
		expect(nearestZeroGamma(chain).oi).toBeCloseTo(cold.oi as number, 6);
	});
});
