import { describe, expect, it } from 'vitest';
import { defaultWindow, histogramModel, parseClassicChain, scaleWindow } from './classicChain';
import { levelRows, largestMaxChange, toFuture, distance } from './phoneLevels';

const chain = {
	timestamp: 1795192960,
	ticker: 'SPX',
	min_dte: 0,
	sec_min_dte: 3,
	spot: 7000.5,
	zero_gamma: 0,
	major_pos_vol: 7010,
	major_pos_oi: 7050,
	major_neg_vol: 6990,
	major_neg_oi: 6900,
	strikes: [
		[7010, 5, -2, [4, 3, 2, 1, 0]],
		[6990, -3, 8, [-2, -1, 0, 1, 2]],
		[7000, 1, 1, [1, 1, 1, 1, 1]]
	],
	sum_gex_vol: 3,
	sum_gex_oi: 7,
	delta_risk_reversal: 0.1,
	max_priors: [
		[7010, 2.5],
		[6990, -9],
		[7010, 1],
		[7000, 0.5],
		[7000, 0.1],
		[6990, 3]
	]
};

describe('classic chain model', () => {
	it('refuses a malformed chain with the path of the problem', () => {
		expect(() => parseClassicChain({ ...chain, spot: 'x' })).toThrow(/spot/);
		expect(() => parseClassicChain({ ...chain, strikes: [[1, 2]] })).toThrow(/strikes/);
	});

	it('sorts strikes, picks the metric column, groups max change windows', () => {
		const byOi = histogramModel(parseClassicChain(chain), 'oi');
		expect(byOi.rows.map((r) => [r.strike, r.value])).toEqual([
			[6990, 8],
			[7000, 1],
			[7010, -2]
		]);
		expect(byOi.zeroGamma).toBeNull(); // 0 = not computed yet
		expect(byOi.majorPositiveStrike).toBe(7050);
		expect(byOi.maxChange.find((m) => m.strike === 7010)?.windows).toEqual(['now', '5m']);
		const byVol = histogramModel(parseClassicChain(chain), 'vol');
		expect(byVol.rows[0].value).toBe(-3);
		expect(byVol.majorNegativeStrike).toBe(6990);
	});

	it('windows: nearest strikes to spot, zoom around the centre', () => {
		const rows = histogramModel(parseClassicChain(chain), 'vol').rows;
		expect(defaultWindow(rows, 7000.5, 2)).toEqual({ lo: 7000, hi: 7010 });
		expect(scaleWindow({ lo: 6900, hi: 7100 }, 0.5)).toEqual({ lo: 6950, hi: 7050 });
	});

	it('the automatic window takes in the nearby key levels, not the far ones', () => {
		// Strikes 6900..7395 every 5; the 10 nearest 7150 are 7130..7175.
		const rows = Array.from({ length: 100 }, (_, i) => ({ strike: 6900 + 5 * i, value: 1 }));
		const plain = defaultWindow(rows, 7151, 10)!;
		expect(plain).toEqual({ lo: 7130, hi: 7175 });
		// A major five strikes below, zero gamma between strikes above: both within 2 x 10 strikes.
		expect(defaultWindow(rows, 7151, 10, [7105, 7182.4, null], 2)).toEqual({
			lo: 7105,
			hi: 7182.4
		});
		// A major 46 strikes away would make the bars unreadable: left out, the near one still in.
		expect(defaultWindow(rows, 7151, 10, [6900, 7120], 2)).toEqual({ lo: 7120, hi: 7175 });
		// The default reach (1.5 x the window) keeps a desktop window within one bar per strike.
		expect(defaultWindow(rows, 7151, 40, [6900])).toEqual(defaultWindow(rows, 7151, 40));
		// Levels already inside change nothing; nonsense levels are ignored.
		expect(defaultWindow(rows, 7151, 10, [7150, 0, Number.NaN, undefined])).toEqual(plain);
	});

	it('levels: largest max change, distances, futures conversion', () => {
		expect(largestMaxChange(chain.max_priors as [number, number][])).toEqual({
			strike: 6990,
			change: -9,
			window: '1m'
		});
		const rows = levelRows(parseClassicChain(chain));
		expect(rows.find((r) => r.id === 'zero')?.value).toBeNull();
		expect(rows.map((r) => r.id)).toContain('maxchange');
		expect(distance(7070, 7000)).toEqual({ points: 70, percent: 1 });
		expect(toFuture(7000, { future_contract: 'ESZ6', multiplier: 1, additive: 39.5 })).toBe(7039.5);
		// Multipliers other than 1 (DIA -> YM, USO -> CL): level x multiplier + additive.
		expect(toFuture(474.26, { future_contract: 'YMZ6', multiplier: 100, additive: 162.73 })).toBe(
			47588.73
		);
		expect(
			toFuture(63.09, { future_contract: 'CLF7', multiplier: 0.82, additive: 0.15 })
		).toBeCloseTo(51.8838, 6);
	});
});
