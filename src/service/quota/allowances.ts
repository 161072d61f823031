/**
 * Default request allowances per quota pool and subscription level.
 *
 * The service publishes the rules, not the numbers: api_default grows with every level;
 * api_majors and api_max_change are equal to each other, smaller than api_default, grow from
 * classic to state to orderflow, and quant equals orderflow on them; history and futures
 * allowances are fixed; a research key gets 1,000,000 per day and 30,000,000 per month.
 * The numbers below respect those rules; an accounts file can override any pool per account.
 */

export { QUOTA_POOLS, type QuotaPool } from '../../lib/contract/routes';
export { LEVELS, type Level } from '../../lib/contract/subscriptionLevels';
import type { QuotaPool } from '../../lib/contract/routes';
import type { Level } from '../../lib/contract/subscriptionLevels';
import { QUOTA_POOLS } from '../../lib/contract/routes';

export interface Allowance {
	daily: number;
	monthly: number;
}

export type Allowances = Record<QuotaPool, Allowance>;

const defaultByLevel: Record<Level, Allowance> = {
	classic: { daily: 10_000, monthly: 250_000 },
	state: { daily: 20_000, monthly: 500_000 },
	orderflow: { daily: 40_000, monthly: 1_000_000 },
	quant: { daily: 80_000, monthly: 2_000_000 }
};

const majorsByLevel: Record<Level, Allowance> = {
	classic: { daily: 2_500, monthly: 60_000 },
	state: { daily: 5_000, monthly: 120_000 },
	orderflow: { daily: 10_000, monthly: 240_000 },
	quant: { daily: 10_000, monthly: 240_000 }
};

const FUTURES_CONVERSION: Allowance = { daily: 1_000, monthly: 25_000 };
const HISTORY_CACHE: Allowance = { daily: 500, monthly: 10_000 };
const RESEARCH_COMMAND: Allowance = { daily: 1_000_000, monthly: 30_000_000 };

/** The level's allowances for every pool, before per-account overrides. */
export function defaultAllowances(level: Level): Allowances {
	return {
		api_default: { ...defaultByLevel[level] },
		api_majors: { ...majorsByLevel[level] },
		api_max_change: { ...majorsByLevel[level] },
		api_futures_conversion: { ...FUTURES_CONVERSION },
		api_history_cache: { ...HISTORY_CACHE },
		api_research_command: { ...RESEARCH_COMMAND }
	};
}

/** Level defaults with the account's overrides applied to the named pools only. */
export function resolveAllowances(
	level: Level,
	overrides: Partial<Record<QuotaPool, Allowance>> | undefined
): Allowances {
	const out = defaultAllowances(level);
	for (const pool of QUOTA_POOLS) {
		const o = overrides?.[pool];
		if (o) out[pool] = { daily: o.daily, monthly: o.monthly };
	}
	return out;
}
