import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { chainArraysFromContracts, type OptionContract } from './chain';
import { bruteNearest } from './gammaKernel.test-support';
import { CELLS, GammaKernel, RESOLUTION, WIDE_CELLS, nearestZeroGamma } from './gammaKernel';
import { computeGreeks, createGreekArrays } from './greeks';
import { syntheticChain } from './syntheticChain';

const market = { spot: 5000, rate: 0.05, dividendYield: 0.013, contractSize: 100 };

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
		// Every contract narrower than the wide threshold: its cells' step is <= width / RESOLUTION.
		for (let i = 0; i < kernel.count; i++) {
			const w = kernel.w[i];
			if (w >= WIDE_CELLS * kernel.hc) continue;
			const c = Math.floor((kernel.m[i] - kernel.uLow) / kernel.hc);
			if (c < 0 || c >= CELLS) continue;
			const points = kernel.pointsOf(c);
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
