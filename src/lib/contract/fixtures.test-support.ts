/**
 * Response fixtures the schema, wire and bench tests start from, fresh objects on every call so
 * that a test mutating its copy changes no other test's. A test that needs another ticker,
 * timestamp or ladder spreads one and overrides those fields.
 */
import type { ClassicChain, GreekProfile } from './schemas';

/** The classic chain the upstream contract quotes as a real response (ES_SPX, one strike row). */
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

/** A one-row greek profile (SPX), both sides with values and priors. */
export const sampleGreekProfile = (): GreekProfile => ({
	timestamp: 1,
	ticker: 'SPX',
	spot: 7000.5,
	min_dte: 0,
	sec_min_dte: 100,
	major_positive: 7010,
	major_negative: 6990,
	major_long_gamma: 7020,
	major_short_gamma: 6980,
	mini_contracts: [[7000, 0.12, 0.14, 1500.5, [1, 2], -300, [4, 5]]]
});
