/**
 * Each user's share of the account's upstream calls, per quota pool and window (daily and
 * monthly, 00:00 America/New_York like the quota ledger). The proxy counts, per answered /api
 * request of a pooled route, who caused it (proxy.ts, `caller`):
 *   - `calls`: the request went upstream for this caller (the coalescer's 'miss'): counted once,
 *     as the account's ledger counts it;
 *   - `shared`: the caller was answered by a call another request caused (coalesced 'shared' or
 *     'hit'): shown beside the calls, never added to any total.
 * 429 answers spend no quota and are not counted (the ledger counts them apart).
 *
 * Callers: a user's id (`user:<id>`; the implicit admin of a dashboard without teams mode is
 * `user:`), the dashboard's own calls (recorder, alerts, the feed holder's polls: GEXDECK_CALLER)
 * and the /feed and /mcp answers of integration tokens (INTEGRATIONS_CALLER).
 *
 * Stores: in one process, memory (MemoryShares): the ledger in the database keeps the account's
 * totals across a restart; this split is a fairness view of the current windows, and after a
 * restart the calls before it show as not attributed (usageShares.ts), rather than writing a
 * row per user per call. In cluster mode, Redis (cluster/sharedShares.ts), so every replica
 * shows the same split.
 */
import { etWindowIds } from '$lib/contract/newYorkTime';

/** The dashboard's own calls: the recorder, the alert rules and the feed holder's polls. */
export const GEXDECK_CALLER = 'gexdeck';
/** The levels feed's stream (one for every token) and integration calls without a token. */
export const INTEGRATIONS_CALLER = 'integrations';

/** The caller key of a signed-in user (the implicit admin's id is ''). */
export function userCaller(userId: string): string {
	return `user:${userId}`;
}

export type ShareKind = 'calls' | 'shared';

export interface CallerCount {
	calls: number;
	shared: number;
}

/** Per caller, for one pool: the current daily and monthly windows. */
export interface PoolShares {
	daily: Record<string, CallerCount>;
	monthly: Record<string, CallerCount>;
}

export interface ShareStore {
	/** Where the counts live ('memory' or 'redis'), for the page's note. */
	readonly kind: 'memory' | 'redis';
	/** Count one answered request of `caller` for `pool` of `account`. */
	add(account: string, pool: string, caller: string, kind: ShareKind): Promise<void>;
	/** The current windows' counts of `pools` of `account` (pools never used are absent). */
	read(account: string, pools: readonly string[]): Promise<Record<string, PoolShares>>;
}

/** Bump `kind` of `caller` in `counts`. */
export function bump(counts: Record<string, CallerCount>, caller: string, kind: ShareKind): void {
	const c = (counts[caller] ??= { calls: 0, shared: 0 });
	c[kind]++;
}

interface WindowCounts {
	window: string;
	counts: Record<string, CallerCount>;
}

/** One process's counts; a window that has passed starts again at zero. */
export class MemoryShares implements ShareStore {
	readonly kind = 'memory' as const;
	private readonly pools = new Map<string, { daily: WindowCounts; monthly: WindowCounts }>();

	constructor(private readonly now: () => Date = () => new Date()) {}

	private current(account: string, pool: string) {
		const ids = etWindowIds(this.now());
		const key = `${account}\u0000${pool}`;
		let p = this.pools.get(key);
		if (!p) {
			p = {
				daily: { window: ids.daily, counts: {} },
				monthly: { window: ids.monthly, counts: {} }
			};
			this.pools.set(key, p);
		}
		if (p.daily.window !== ids.daily) p.daily = { window: ids.daily, counts: {} };
		if (p.monthly.window !== ids.monthly) p.monthly = { window: ids.monthly, counts: {} };
		return p;
	}

	async add(account: string, pool: string, caller: string, kind: ShareKind): Promise<void> {
		const p = this.current(account, pool);
		bump(p.daily.counts, caller, kind);
		bump(p.monthly.counts, caller, kind);
	}

	async read(account: string, pools: readonly string[]): Promise<Record<string, PoolShares>> {
		const out: Record<string, PoolShares> = {};
		for (const pool of pools) {
			if (!this.pools.has(`${account}\u0000${pool}`)) continue;
			const p = this.current(account, pool);
			out[pool] = { daily: copy(p.daily.counts), monthly: copy(p.monthly.counts) };
		}
		return out;
	}
}

function copy(counts: Record<string, CallerCount>): Record<string, CallerCount> {
	return Object.fromEntries(Object.entries(counts).map(([k, v]) => [k, { ...v }]));
}
