import { describe, expect, it } from 'vitest';
import { histogramModel } from '../histogram/classicChain';
import { NA_FOR_STATE, stateOiMissing, stateValue } from './stateFields';
import type { ClassicChain } from '../../contract/schemas';
import { columnarGex } from '../../wire/columnar';

const rows = (oi: number, sum: number): ClassicChain => ({
	timestamp: 1,
	ticker: 'SPX',
	min_dte: 0,
	sec_min_dte: 1,
	spot: 7000,
	zero_gamma: 0,
	major_pos_vol: 7050,
	major_pos_oi: 0,
	major_neg_vol: 6950,
	major_neg_oi: 0,
	strikes: [
		[6950, -3, oi, [1, 2, 3, 4, 5]],
		[7050, 4, oi, [1, 2, 3, 4, 5]]
	],
	sum_gex_vol: 1,
	sum_gex_oi: sum,
	delta_risk_reversal: 0,
	max_priors: []
});
const chain = (oi: number, sum: number) => columnarGex(rows(oi, sum));

describe('State fields the service sends as 0', () => {
	it('read n/a for State, other values as formatted', () => {
		expect(stateValue(0, String)).toBe(NA_FOR_STATE);
		expect(stateValue(7000.5, (v) => v.toFixed(2))).toBe('7000.50');
		expect(stateValue(-0.118, String)).toBe('-0.118');
	});

	it('a chain without OI values is recognised; one with them is not', () => {
		expect(stateOiMissing(chain(0, 0))).toBe(true);
		expect(stateOiMissing(chain(2, 4))).toBe(false);
	});

	it('majors and zero gamma of 0 are never levels of the histogram', () => {
		const byOi = histogramModel(chain(0, 0), 'oi');
		expect(byOi.zeroGamma).toBeNull();
		expect(byOi.majorPositiveStrike).toBeNull();
		expect(byOi.majorNegativeStrike).toBeNull();
		const byVol = histogramModel(chain(0, 0), 'vol');
		expect(byVol.majorPositiveStrike).toBe(7050);
		expect(byVol.majorNegativeStrike).toBe(6950);
	});
});
