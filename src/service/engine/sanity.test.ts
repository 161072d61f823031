/**
 * Analytics sanity: what a snapshot says (zero gamma, majors, sums, per-strike GEX) equals what
 * the analytics engine (src/lib/analytics) computes from the very same chain at that second.
 */
import { describe, expect, it } from 'vitest';
import { computeExposures } from '../../lib/analytics/exposures';
import { computeGreeks } from '../../lib/analytics/greeks';
import { majorStrikes } from '../../lib/analytics/keyStrikes';
import { zeroGamma } from '../../lib/analytics/zeroGamma';
import { advanceDay } from './live';
import { gexChainValue, majorsValue } from './categoryPayloads';
import { TickerDay } from './tickerDay';

describe.each([
	['SPX', 5400],
	['TSLA', 12_000],
	['VIX', 20_000]
])('%s snapshot vs analytics engine', (ticker, tick) => {
	const day = new TickerDay(17, ticker, '2026-11-18');
	advanceDay(day, tick);

	it.each(['full', 'zero', 'one'] as const)('%s expiry set', (name) => {
		const subset = day.subsets[name];
		const selection = Int32Array.from(
			{ length: subset.end - subset.start },
			(_, i) => subset.start + i
		);
		const greeks = computeGreeks(day.arrays);
		const ladder = computeExposures(day.arrays, greeks, { selection });
		const chain = gexChainValue(day, subset);
		const majors = majorsValue(day, subset);

		expect(chain.sum_gex_vol).toBeCloseTo(ladder.totals.gex.vol.net / 1e6, 3);
		expect(chain.sum_gex_oi).toBeCloseTo(ladder.totals.gex.oi.net / 1e6, 3);
		expect(majors.net_gex_vol).toBe(chain.sum_gex_vol);

		const byStrike = new Map<number, [number, number]>();
		ladder.strikes.forEach((k, i) =>
			byStrike.set(k, [ladder.gex.vol.net[i], ladder.gex.oi.net[i]])
		);
		for (const [strike, vol, oi] of chain.strikes) {
			const [v, o] = byStrike.get(strike) as [number, number];
			expect(vol).toBeCloseTo(v / 1e6, 2);
			expect(oi).toBeCloseTo(o / 1e6, 2);
		}

		const byVol = majorStrikes(ladder.strikes, ladder.gex.vol.net, day.spot);
		const byOi = majorStrikes(ladder.strikes, ladder.gex.oi.net, day.spot);
		expect([chain.major_pos_vol, chain.major_neg_vol]).toEqual([byVol.positive, byVol.negative]);
		expect([chain.major_pos_oi, chain.major_neg_oi]).toEqual([byOi.positive, byOi.negative]);
		expect([majors.mpos_vol, majors.mneg_oi]).toEqual([byVol.positive, byOi.negative]);

		const zg = zeroGamma(day.arrays, { selection });
		const expected = zg.vol ?? zg.oi;
		if (expected === null) expect(chain.zero_gamma).toBe(0);
		else expect(Math.abs(chain.zero_gamma - expected)).toBeLessThan(0.006);
		expect(majors.zero_gamma).toBe(chain.zero_gamma);
	});
});
