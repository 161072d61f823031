import { describe, expect, it } from 'vitest';
import { columnarGex } from '../../wire/columnar';
import {
	defaultWindow,
	histogramModel,
	parseClassicChain,
	parseGexColumns,
	scaleWindow,
	windowRange
} from './classicChain';
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
		const byOi = histogramModel(parseGexColumns(chain), 'oi');
		expect([...byOi.strikes]).toEqual([6990, 7000, 7010]);
		expect([...byOi.values]).toEqual([8, 1, -2]);
		expect([...byOi.others]).toEqual([-3, 1, 5]);
		// The priors are the by-volume history: by OI (published once a day) there are none.
		expect(byOi.priorCount).toBe(0);
		expect(byOi.priors).toHaveLength(0);
		expect(byOi.zeroGamma).toBeNull(); // 0 = not computed yet
		expect(byOi.majorPositiveStrike).toBe(7050);
		expect(byOi.maxChange.find((m) => m.strike === 7010)?.windows).toEqual(['now', '5m']);
		const byVol = histogramModel(parseGexColumns(chain), 'vol');
		expect(byVol.values[0]).toBe(-3);
		// Each strike's priors move with it.
		expect(byVol.priorCount).toBe(5);
		expect([...byVol.priors.subarray(0, 5)]).toEqual([-2, -1, 0, 1, 2]);
		expect([...byVol.priors.subarray(10, 15)]).toEqual([4, 3, 2, 1, 0]);
		expect(byVol.majorNegativeStrike).toBe(6990);
	});

	it("uses ascending columns as they are: the worker's arrays reach the chart uncopied", () => {
		const sorted = {
			...chain,
			strikes: [...chain.strikes].sort((a, b) => (a[0] as number) - (b[0] as number))
		};
		const columns = columnarGex(parseClassicChain(sorted));
		const model = histogramModel(columns, 'vol');
		expect(model.strikes).toBe(columns.strikes);
		expect(model.values).toBe(columns.gexVol);
		expect(model.others).toBe(columns.gexOi);
		expect(model.priors).toBe(columns.priors);
	});

	it('reads a cached chain back as columns, and refuses broken columns', () => {
		const columns = parseGexColumns(chain);
		const cached = structuredClone(columns);
		expect(parseGexColumns(cached)).toBe(cached);
		expect(() => parseGexColumns({ ...cached, gexOi: new Float64Array(1) })).toThrow();
		expect(() => parseGexColumns({ ...cached, strikes: [1, 2, 3] })).toThrow();
	});

	it('windows: nearest strikes to spot, zoom around the centre, index range', () => {
		const strikes = histogramModel(parseGexColumns(chain), 'vol').strikes;
		expect(defaultWindow(strikes, 7000.5, 2)).toEqual({ lo: 7000, hi: 7010 });
		expect(windowRange(strikes, 6995, 7010)).toEqual([1, 3]);
		expect(windowRange(strikes, 6990, 6990)).toEqual([0, 1]);
		expect(windowRange(strikes, 7011, 7100)).toEqual([3, 3]);
		expect(scaleWindow({ lo: 6900, hi: 7100 }, 0.5)).toEqual({ lo: 6950, hi: 7050 });
	});

	it('the automatic window takes in the nearby key levels, not the far ones', () => {
		// Strikes 6900..7395 every 5; the 10 nearest 7150 are 7130..7175.
		const rows = Array.from({ length: 100 }, (_, i) => 6900 + 5 * i);
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
		expect(largestMaxChange(chain.max_priors.flat())).toEqual({
			strike: 6990,
			change: -9,
			window: '1m'
		});
		const rows = levelRows(parseGexColumns(chain));
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
