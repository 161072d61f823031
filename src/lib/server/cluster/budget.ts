/**
 * GEXDECK_QUOTA_BUDGET: the upstream allowances the cluster's shared quota ledger must never
 * exceed, per pool, as `pool=daily[/monthly]` separated by commas, e.g.
 * `api_default=40000/1000000,api_majors=10000`. The upstream publishes its rules, not the
 * numbers (docs/UPSTREAM.md), so replicas can only stay inside a quota they are told; a pool not
 * named has no budget here (the upstream's 429 and the shared backoff still hold it).
 */
import { QUOTA_POOLS, type QuotaPool } from '$lib/contract/routes';

export interface PoolBudget {
	daily: number | undefined;
	monthly: number | undefined;
}

export type QuotaBudget = Partial<Record<QuotaPool, PoolBudget>>;

function count(text: string, whole: string): number {
	if (!/^\d+$/.test(text)) throw new Error(`GEXDECK_QUOTA_BUDGET: not a count in "${whole}"`);
	return Number(text);
}

/** Parse the variable; throws naming the part that is wrong. */
export function parseQuotaBudget(raw: string | undefined): QuotaBudget {
	const out: QuotaBudget = {};
	for (const part of (raw ?? '').split(',').map((p) => p.trim())) {
		if (!part) continue;
		const [pool, limits, extra] = part.split('=').map((p) => p.trim());
		if (extra !== undefined || limits === undefined) {
			throw new Error(`GEXDECK_QUOTA_BUDGET: expected pool=daily[/monthly], got "${part}"`);
		}
		if (!(QUOTA_POOLS as readonly string[]).includes(pool)) {
			throw new Error(`GEXDECK_QUOTA_BUDGET: unknown pool "${pool}" (${QUOTA_POOLS.join(', ')})`);
		}
		const [daily, monthly, more] = limits.split('/').map((p) => p.trim());
		if (more !== undefined) throw new Error(`GEXDECK_QUOTA_BUDGET: too many parts in "${part}"`);
		out[pool as QuotaPool] = {
			daily: daily ? count(daily, part) : undefined,
			monthly: monthly ? count(monthly, part) : undefined
		};
	}
	return out;
}
