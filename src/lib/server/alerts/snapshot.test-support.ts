/**
 * A classic SPX snapshot for the alert tests, as the upstream sends it: spot and zero gamma are
 * what the tests move (a crossing is spot passing zero gamma), the rest stays fixed.
 */
export const T0 = Date.UTC(2026, 10, 20, 15, 0, 0) / 1000;

export function snapshot(t: number, spot: number, zeroGamma = 6800): string {
	return JSON.stringify({
		timestamp: t,
		ticker: 'SPX',
		min_dte: 0,
		sec_min_dte: 1,
		spot,
		zero_gamma: zeroGamma,
		major_pos_vol: 6850,
		major_pos_oi: 6900,
		major_neg_vol: 6750,
		major_neg_oi: 6700,
		strikes: [[6800, 1, 2, [1, 2, 3, 4, 5]]],
		sum_gex_vol: 100,
		sum_gex_oi: 50,
		delta_risk_reversal: 0.1,
		max_priors: [
			[6800, 1],
			[6805, 2],
			[6810, 3],
			[6815, 4],
			[6820, 5],
			[6825, 6]
		]
	});
}
