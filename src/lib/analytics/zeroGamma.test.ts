import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { chainArraysFromContracts, type ChainArrays, type OptionContract } from './chain';
import { computeExposures } from './exposures';
import { bruteProfile, bruteRoots as bruteRootList, nearestTo } from './gammaKernel.test-support';
import { computeGreeks } from './greeks';
import { syntheticChain } from './syntheticChain';
import { gexAt, gexProfile, zeroGamma } from './zeroGamma';

const market = { spot: 5000, rate: 0.05, dividendYield: 0.013, contractSize: 100 };

/** G(X) straight from per-contract gamma (the definition), by OI and by volume, plus gross |G|. */
function bruteGex(chain: ChainArrays, x: number): { oi: number; vol: number; gross: number } {
	const p = bruteProfile(chain, x, undefined, true);
	return { oi: p.oi, vol: p.vol, gross: p.grossOi + p.grossVol };
}

/** Sign changes of the brute-force profile on a fine uniform grid, and the largest gross |G|. */
function bruteRoots(
	chain: ChainArrays,
	points: number
): { oi: number[]; vol: number[]; gross: number } {
	const lo = chain.spot * 0.8;
	const hi = chain.spot * 1.2;
	const out = { oi: [] as number[], vol: [] as number[], gross: 0 };
	let px = lo;
	let prev = bruteGex(chain, lo);
	for (let j = 1; j <= points; j++) {
		const x = lo + ((hi - lo) * j) / points;
		const f = bruteGex(chain, x);
		if (prev.oi * f.oi < 0) out.oi.push(0.5 * (px + x));
		if (prev.vol * f.vol < 0) out.vol.push(0.5 * (px + x));
		out.gross = Math.max(out.gross, f.gross);
		px = x;
		prev = f;
	}
	return out;
}

describe('zeroGamma', () => {
	it('finds the closed-form root of a call/put pair with equal gamma shape', () => {
		// Two bumps of equal width and opposite weight cross exactly halfway in log-spot:
		// X* = sqrt(K1 K2) exp(-(r - q) T - sigma^2 T / 2).
		const t = 0.05;
		const sigma = 0.2;
		const contracts: OptionContract[] = [
			{ expiryYears: t, strike: 5100, isCall: true, iv: sigma, openInterest: 1000, volume: 10 },
			{ expiryYears: t, strike: 4900, isCall: false, iv: sigma, openInterest: 1000, volume: 10 }
		];
		const chain = chainArraysFromContracts(market, contracts);
		const want = Math.sqrt(5100 * 4900) * Math.exp(-(0.05 - 0.013) * t - (sigma * sigma * t) / 2);
		const r = zeroGamma(chain);
		expect(r.rootsOi.length).toBe(1);
		expect(Math.abs((r.oi ?? 0) - want)).toBeLessThan(1e-6);
		expect(Math.abs((r.vol ?? 0) - want)).toBeLessThan(1e-6);
	});

	it('returns null, never 0, when the profile keeps its sign', () => {
		const chain = chainArraysFromContracts(market, [
			{ expiryYears: 0.1, strike: 5000, isCall: true, iv: 0.2, openInterest: 10, volume: 0 }
		]);
		const r = zeroGamma(chain);
		expect(r.oi).toBeNull();
		expect(r.vol).toBeNull();
		expect(r.rootsOi).toEqual([]);
	});

	it('matches a brute-force scan on an SPX-like chain, including a late-session 0DTE', () => {
		for (const zeroDteHours of [5, 0.25]) {
			const chain = syntheticChain({ zeroDteHours });
			const r = zeroGamma(chain);
			const brute = bruteRoots(chain, 3000);
			for (const [roots, want, key] of [
				[r.rootsOi, brute.oi, 'oi'],
				[r.rootsVol, brute.vol, 'vol']
			] as const) {
				expect(roots.length).toBe(want.length);
				roots.forEach((x, k) => {
					expect(Math.abs(x - want[k])).toBeLessThan(0.5);
					// Refined to the tolerance: G changes sign within +-2e-6 of the root.
					expect(
						bruteGex(chain, x - 2e-6)[key] * bruteGex(chain, x + 2e-6)[key]
					).toBeLessThanOrEqual(0);
				});
			}
			expect(r.oi).not.toBeNull();
		}
	}, 120_000);

	it('agrees with brute force on random small chains (property)', () => {
		const contract = fc.record({
			expiryYears: fc.double({ min: 1 / 8760, max: 1, noNaN: true }),
			strike: fc.double({ min: 3500, max: 6500, noNaN: true }),
			isCall: fc.boolean(),
			iv: fc.double({ min: 0.05, max: 1, noNaN: true }),
			openInterest: fc.integer({ min: 0, max: 5000 }),
			volume: fc.integer({ min: 0, max: 5000 })
		});
		fc.assert(
			fc.property(fc.array(contract, { minLength: 1, maxLength: 12 }), (contracts) => {
				const chain = chainArraysFromContracts(market, contracts);
				const r = zeroGamma(chain);
				// Every reported root has a sign change of the true profile within +-1e-5 wherever the
				// profile is distinguishable from rounding noise of the gross sum.
				const scale = bruteRoots(chain, 200).gross;
				for (const x of r.rootsOi) {
					expect(x).toBeGreaterThanOrEqual(4000);
					expect(x).toBeLessThanOrEqual(6000);
					const floor = 1e-12 * Math.max(scale, bruteGex(chain, x).gross);
					const a = bruteGex(chain, x - 1e-5).oi;
					const b = bruteGex(chain, x + 1e-5).oi;
					if (Math.abs(a) > floor && Math.abs(b) > floor) expect(a * b).toBeLessThan(0);
				}
				if (r.oi === null) expect(r.rootsOi).toEqual([]);
				else expect(r.rootsOi).toContain(r.oi);
			}),
			{ numRuns: 150 }
		);
	});

	it('nearestOnly (GammaKernel) reports the nearest of every root, within 1e-6', () => {
		for (const zeroDteHours of [5, 0.25, 0.05]) {
			for (const spot of [4950, 5000, 5060]) {
				const chain = syntheticChain({ zeroDteHours, spot });
				const all = zeroGamma(chain);
				const near = zeroGamma(chain, { nearestOnly: true });
				expect(Math.abs((near.oi ?? NaN) - (all.oi ?? NaN))).toBeLessThan(1e-6);
				expect(Math.abs((near.vol ?? NaN) - (all.vol ?? NaN))).toBeLessThan(1e-6);
				expect(near.rootsVol).toEqual([near.vol]);
			}
		}
	});

	it('both modes equal brute force within 1e-6 on random and degenerate chains (property)', () => {
		const contract = fc.record({
			expiryYears: fc.double({ min: 1 / 8760, max: 1, noNaN: true }),
			strike: fc.integer({ min: 4200, max: 5800 }),
			isCall: fc.boolean(),
			iv: fc.double({ min: 0.05, max: 0.8, noNaN: true }),
			openInterest: fc.integer({ min: 0, max: 5000 }),
			volume: fc.integer({ min: 0, max: 5000 })
		});
		const random = fc.array(contract, { minLength: 1, maxLength: 10 });
		// No weight at all: G is 0 everywhere.
		const allZero = random.map((cs) => cs.map((c) => ({ ...c, openInterest: 0, volume: 0 })));
		// Calls only: G > 0 everywhere, no sign change.
		const oneSign = random.map((cs) => cs.map((c) => ({ ...c, isCall: true })));
		// A call/put pair of one width crosses halfway in log-spot, at R; a strike listed at R
		// (a call and a put with equal weights, which cancel) puts a strike exactly on the root.
		const atStrike = fc
			.record({
				t: fc.double({ min: 0.002, max: 0.5, noNaN: true }),
				sigma: fc.double({ min: 0.08, max: 0.5, noNaN: true }),
				k: fc.double({ min: 0.2, max: 2, noNaN: true }),
				n: fc.integer({ min: 1, max: 5000 })
			})
			.map(({ t, sigma, k, n }) => {
				// Strikes k sd either side: the root sits on the bumps' flanks, not deep in their tails.
				const sd = sigma * Math.sqrt(t);
				const a = k * sd;
				const centre = Math.log(5000);
				const strikeOf = (m: number) => Math.exp(m + (0.05 - 0.013) * t + 0.5 * sd * sd);
				const root = Math.exp(centre);
				const pair = { expiryYears: t, iv: sigma, openInterest: n, volume: n };
				return [
					{ ...pair, strike: strikeOf(centre + a), isCall: true },
					{ ...pair, strike: strikeOf(centre - a), isCall: false },
					{ ...pair, strike: root, isCall: true },
					{ ...pair, strike: root, isCall: false }
				];
			});
		// Two 3-minute contracts 400 apart: G underflows to exactly 0 between them (no crossing).
		const zeroStretch = fc
			.record({ call: fc.boolean(), n: fc.integer({ min: 1, max: 5000 }) })
			.map(({ call, n }) =>
				[4800, 5200].map((strike, k) => ({
					expiryYears: 0.05 / 8760,
					strike,
					isCall: (k === 0) === call,
					iv: 0.2,
					openInterest: n,
					volume: n
				}))
			);
		fc.assert(
			fc.property(
				fc.oneof(random, allZero, oneSign, atStrike, zeroStretch),
				(contracts: OptionContract[]) => {
					const chain = chainArraysFromContracts(market, contracts);
					let minWidth = Infinity;
					for (let i = 0; i < chain.length; i++)
						minWidth = Math.min(minWidth, chain.iv[i] * Math.sqrt(chain.expiryYears[i]));
					const all = zeroGamma(chain);
					const nearest = zeroGamma(chain, { nearestOnly: true });
					for (const by of ['oi', 'vol'] as const) {
						// Crossings deep in the bumps' tails, where |G| is near 1e-12 of the gross sum,
						// count or not depending on how that scale is measured; the implementations must
						// find every root the strict reference finds and only roots the loose one finds.
						const strict = bruteRootList(chain, by, minWidth, 16, undefined, 1e-10);
						const loose = bruteRootList(chain, by, minWidth, 16, undefined, 1e-14);
						const near = (x: number, list: number[]) => list.some((y) => Math.abs(x - y) < 1e-6);
						const got = by === 'oi' ? all.rootsOi : all.rootsVol;
						for (const x of got) expect(near(x, loose), `${by} ${x} listed`).toBe(true);
						for (const y of strict) expect(near(y, got), `${by} ${y} missed`).toBe(true);
						const strictNearest = nearestTo(strict, chain.spot);
						for (const [mode, r] of [
							['all', all[by]],
							['kernel', nearest[by]]
						] as const) {
							if (loose.length === 0) expect(r, `${mode} ${by}`).toBeNull();
							if (r !== null) expect(near(r, loose), `${mode} ${by} ${r}`).toBe(true);
							if (strictNearest !== null) {
								expect(r, `${mode} ${by}`).not.toBeNull();
								expect(Math.abs((r as number) - chain.spot)).toBeLessThanOrEqual(
									Math.abs(strictNearest - chain.spot) + 1e-6
								);
							}
						}
					}
				}
			),
			{ numRuns: 60, seed: 20261124 }
		);
	}, 300_000);

	it('the nearest root to spot is reported', () => {
		const chain = syntheticChain({ zeroDteHours: 0.25 });
		const r = zeroGamma(chain);
		expect(r.rootsVol.length).toBeGreaterThan(1);
		const best = r.rootsVol.reduce((a, b) =>
			Math.abs(b - chain.spot) < Math.abs(a - chain.spot) ? b : a
		);
		expect(r.vol).toBe(best);
	});

	it('respects a selection (0DTE only)', () => {
		const chain = syntheticChain();
		const zero: number[] = [];
		for (let i = 0; i < chain.length; i++)
			if (chain.expiryYears[i] === chain.expiryYears[0]) zero.push(i);
		const r = zeroGamma(chain, { selection: zero });
		const only = syntheticChain();
		only.length = zero.length; // the 0DTE contracts come first in the synthetic layout
		expect(Math.max(...zero)).toBe(zero.length - 1);
		expect(r.rootsOi.length).toBe(bruteRoots(only, 3000).oi.length);
		expect(r.rootsOi).toEqual(zeroGamma(only).rootsOi);
	}, 60_000);
});

describe('gexProfile / gexAt', () => {
	it('equals the total GEX of the exposures at spot and brute force elsewhere', () => {
		const chain = syntheticChain({ seed: 7 });
		const greeks = computeGreeks(chain);
		const total = computeExposures(chain, greeks).totals.gex;
		const at = gexAt(chain, chain.spot);
		expect(Math.abs(at.oi - total.oi.net)).toBeLessThan(1e-9 * Math.abs(total.oi.net));
		expect(Math.abs(at.vol - total.vol.net)).toBeLessThan(1e-9 * Math.abs(total.vol.net));
		const profile = gexProfile(chain, { points: 41 });
		expect(profile.spots.length).toBe(41);
		expect(profile.spots[0]).toBeCloseTo(4000, 9);
		expect(profile.spots[40]).toBeCloseTo(6000, 9);
		for (const j of [0, 13, 20, 33, 40]) {
			const want = bruteGex(chain, profile.spots[j]).oi;
			expect(Math.abs(profile.oi[j] - want)).toBeLessThan(1e-9 * Math.abs(want) + 1);
		}
	});
});

describe('zeroGamma edge cases', () => {
	it('copes with options seconds from expiry and expired ones without blowing up the scan', () => {
		const contracts: OptionContract[] = [
			{ expiryYears: 1e-9, strike: 5000, isCall: true, iv: 0.2, openInterest: 100, volume: 100 },
			{ expiryYears: 0, strike: 5005, isCall: false, iv: 0.2, openInterest: 100, volume: 100 },
			{ expiryYears: 0.05, strike: 5100, isCall: true, iv: 0.2, openInterest: 1000, volume: 10 },
			{ expiryYears: 0.05, strike: 4900, isCall: false, iv: 0.2, openInterest: 1000, volume: 10 }
		];
		const r = zeroGamma(chainArraysFromContracts(market, contracts));
		expect(r.scanPoints).toBeLessThanOrEqual(128 * 1024 + 1);
		expect(r.oi).not.toBeNull();
		for (const x of [...r.rootsOi, ...r.rootsVol]) expect(Number.isFinite(x)).toBe(true);
	});
});
