import { describe, expect, it } from 'vitest';
import {
	chainArraysFromContracts,
	expiryBuckets,
	strikeLadder,
	type OptionContract
} from './chain';
import { computeExposures } from './exposures';
import { computeGreeks } from './greeks';

/** A small chain whose per-strike numbers were worked out separately (Python, textbook formulas). */
const market = { spot: 5000, rate: 0.05, dividendYield: 0.013, contractSize: 100 };
const contracts: OptionContract[] = [
	{ expiryYears: 0.0192, strike: 4950, isCall: true, iv: 0.2, openInterest: 1000, volume: 300 },
	{ expiryYears: 0.0192, strike: 4950, isCall: false, iv: 0.22, openInterest: 2000, volume: 500 },
	{ expiryYears: 0.0192, strike: 5050, isCall: true, iv: 0.18, openInterest: 1500, volume: 800 },
	{ expiryYears: 0.0192, strike: 5050, isCall: false, iv: 0.19, openInterest: 500, volume: 100 },
	{ expiryYears: 0.1, strike: 5050, isCall: true, iv: 0.17, openInterest: 700, volume: 50 }
];
const expected = {
	4950: {
		gexOi: -55889597.497699544,
		gexVol: -10653891.659169596,
		dexOi: -28234381.667236447,
		vannaOi: 2278281.8537670327,
		charmOi: -3476517.3881580876,
		callGexOi: 66370154.30510582,
		putGexOi: -122259751.80280536
	},
	5050: {
		gexOi: 102552081.66244905,
		gexVol: 54684979.85953927,
		dexOi: 274366175.5916332,
		vannaOi: 5333350.987956695,
		charmOi: -6509501.828563943,
		callGexOi: 138325360.64243776,
		putGexOi: -35773278.97998869
	}
};

const close = (a: number, b: number) => expect(Math.abs(a - b)).toBeLessThan(1e-9 * Math.abs(b));

describe('computeExposures', () => {
	const chain = chainArraysFromContracts(market, contracts);
	const greeks = computeGreeks(chain);

	it('sums the hand-checked chain per strike, call and put apart', () => {
		const x = computeExposures(chain, greeks);
		expect(Array.from(x.strikes)).toEqual([4950, 5050]);
		const rows = [expected[4950], expected[5050]];
		rows.forEach((row, k) => {
			close(x.gex.oi.net[k], row.gexOi);
			close(x.gex.vol.net[k], row.gexVol);
			close(x.dex.oi.net[k], row.dexOi);
			close(x.vanna.oi.net[k], row.vannaOi);
			close(x.charm.oi.net[k], row.charmOi);
			close(x.gex.oi.call[k], row.callGexOi);
			close(x.gex.oi.put[k], row.putGexOi);
			expect(x.gex.oi.net[k]).toBe(x.gex.oi.call[k] + x.gex.oi.put[k]);
		});
		close(x.totals.gex.oi.net, rows[0].gexOi + rows[1].gexOi);
		close(x.totals.dex.oi.net, rows[0].dexOi + rows[1].dexOi);
		close(x.totals.gex.oi.put, rows[0].putGexOi + rows[1].putGexOi);
	});

	it('aggregates subsets by index list or mask without recomputing greeks', () => {
		const buckets = expiryBuckets(chain);
		expect(Array.from(buckets.expiries)).toEqual([0.0192, 0.1]);
		const ladder = strikeLadder(chain);
		const front = computeExposures(chain, greeks, { selection: buckets.indices[0], ladder });
		const back = computeExposures(chain, greeks, {
			selection: Uint8Array.from([0, 0, 0, 0, 1]),
			ladder
		});
		const full = computeExposures(chain, greeks, { ladder });
		expect(Array.from(back.strikes)).toEqual([5050]);
		close(front.gex.oi.net[1] + back.gex.oi.net[0], full.gex.oi.net[1]);
		close(front.totals.charm.vol.net + back.totals.charm.vol.net, full.totals.charm.vol.net);
		expect(front.gex.oi.net[0]).toBe(full.gex.oi.net[0]);
	});

	it('puts carry negative GEX and their own (negative) delta', () => {
		const puts = computeExposures(chain, greeks, { selection: [1, 3] });
		for (const v of puts.gex.oi.net) expect(v).toBeLessThan(0);
		for (const v of puts.dex.oi.net) expect(v).toBeLessThan(0);
		expect(Array.from(puts.gex.oi.call)).toEqual([0, 0]);
	});

	it('an empty selection gives empty ladders and zero totals', () => {
		const none = computeExposures(chain, greeks, { selection: [] });
		expect(none.strikes.length).toBe(0);
		expect(none.totals.gex.oi.net).toBe(0);
	});
});

describe('categorySnapshot', () => {
	it('bundles exposures, zero gamma and majors of one selection', async () => {
		const { categorySnapshot } = await import('./report');
		const { zeroGamma } = await import('./zeroGamma');
		const chain = chainArraysFromContracts(market, contracts);
		const greeks = computeGreeks(chain);
		const snap = categorySnapshot(chain, greeks, { selection: [0, 1, 2, 3] });
		expect(Array.from(snap.exposures.strikes)).toEqual([4950, 5050]);
		expect(snap.majors).toEqual({ posOi: 5050, negOi: 4950, posVol: 5050, negVol: 4950 });
		expect(snap.zeroGamma.oi).toBe(zeroGamma(chain, { selection: [0, 1, 2, 3] }).oi);
	});
});

describe('exposures are finite for any finite positive chain (property)', () => {
	it('no NaN or Infinity in greeks, ladders, totals or zero gamma', async () => {
		const fc = (await import('fast-check')).default;
		const { zeroGamma } = await import('./zeroGamma');
		const contract = fc.record({
			expiryYears: fc.double({ min: 0, max: 3, noNaN: true }),
			strike: fc.double({ min: 1, max: 20000, noNaN: true }),
			isCall: fc.boolean(),
			iv: fc.double({ min: 0, max: 5, noNaN: true }),
			openInterest: fc.double({ min: 0, max: 1e6, noNaN: true }),
			volume: fc.double({ min: 0, max: 1e6, noNaN: true })
		});
		fc.assert(
			fc.property(
				fc.double({ min: 1, max: 20000, noNaN: true }),
				fc.array(contract, { maxLength: 20 }),
				(spot, cs) => {
					const chain = chainArraysFromContracts({ ...market, spot }, cs);
					const g = computeGreeks(chain);
					const x = computeExposures(chain, g);
					for (const m of ['gex', 'dex', 'vanna', 'charm'] as const)
						for (const w of ['oi', 'vol'] as const) {
							for (const v of x[m][w].net) expect(Number.isFinite(v)).toBe(true);
							expect(Number.isFinite(x.totals[m][w].net)).toBe(true);
						}
					const z = zeroGamma(chain);
					for (const r of [...z.rootsOi, ...z.rootsVol]) expect(Number.isFinite(r)).toBe(true);
					if (cs.length === 0) expect([z.oi, z.vol]).toEqual([null, null]);
				}
			),
			{ numRuns: 200 }
		);
	});
});
