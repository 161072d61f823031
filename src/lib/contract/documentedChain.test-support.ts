/**
 * The classic chain the upstream contract quotes as a real response (ES_SPX, abbreviated to one
 * strike row, with six max_priors), the one fixture the schema, wire and bench tests start from:
 * a test that needs another ticker or ladder spreads it and overrides those fields. A fresh
 * object each call, so that a test mutating its copy changes no other test's.
 */
import type { ClassicChain } from './schemas';

export const documentedChain = (): ClassicChain => ({
	timestamp: 1767277800,
	ticker: 'ES_SPX',
	min_dte: 0,
	sec_min_dte: 23400,
	spot: 7138.55,
	zero_gamma: 7112.95,
	major_pos_vol: 7135,
	major_pos_oi: 7200,
	major_neg_vol: 7100,
	major_neg_oi: 6900,
	strikes: [[6890, -228.01, -86.9, [-240.55, -243.15, -245.22, -221.27, -220.12]]],
	sum_gex_vol: 1712585.519,
	sum_gex_oi: 51521.105,
	delta_risk_reversal: 0.118,
	max_priors: [
		[7135, 12.5],
		[7140, -3.2],
		[7100, 8],
		[7150, 1],
		[7000, -9],
		[7200, 4]
	]
});
