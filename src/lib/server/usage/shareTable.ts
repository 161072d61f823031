/**
 * The Account page's table of each user's share of the account (issue 29): per user, the
 * memberships their open /stream viewers take now and the calls they caused this window per
 * quota pool, with their share of the pool. Pure: the page's loader (routes/account/
 * usageShares.server.ts) gathers what it reads from the relay, the share store and the ledger.
 *
 * Who sees what: an admin every user (teams mode: every user, with or without use), the
 * dashboard's own calls and the calls made before the split was counted; a trader their own row
 * and the account's totals; a viewer their own row only.
 */
import type { Role } from '../users/roles';
import { GEXDECK_CALLER, INTEGRATIONS_CALLER, userCaller, type PoolShares } from './callShares';
import type { OwnerMemberships } from './memberships';

/** Calls in a pool's ledger the split does not know (counted before this process started). */
export const UNATTRIBUTED = 'unattributed';

export interface ShareCell {
	pool: string;
	today: number;
	month: number;
	/** Answers this caller got from calls others caused today (not in any total). */
	sharedToday: number;
	/** Of the pool's calls today (null when the pool made none). */
	share: number | null;
}

export interface ShareRow {
	caller: string;
	name: string;
	/** The row of the user looking at the page. */
	you: boolean;
	memberships: number;
	groups: string[];
	pools: ShareCell[];
}

export interface ShareTotals {
	/** Memberships the slot holds: the union of every viewer's groups. */
	memberships: number;
	limit: number;
	pools: { pool: string; today: number; month: number }[];
}

export interface UsageShares {
	/** Where the per-user counts live: 'memory' (one process) or 'redis' (cluster). */
	store: 'memory' | 'redis';
	rows: ShareRow[];
	/** Null for a viewer (their own row only). */
	totals: ShareTotals | null;
}

export interface ShareInput {
	me: { id: string; name: string; role: Role };
	/** Teams mode: every user (the admin sees them all); else []. */
	users: readonly { id: string; name: string }[];
	holdings: readonly OwnerMemberships[];
	union: { used: number; limit: number };
	calls: Record<string, PoolShares>;
	/** The account's spend per pool in the current windows (the quota ledger). */
	totals: Record<string, { today: number; month: number }>;
	pools: readonly string[];
	store: 'memory' | 'redis';
}

/** The words for a caller key. */
export function callerName(caller: string, names: ReadonlyMap<string, string>): string {
	if (caller === GEXDECK_CALLER) return 'gexdeck (recorder/alerts)';
	if (caller === INTEGRATIONS_CALLER) return 'integration tokens';
	if (caller === UNATTRIBUTED) return 'earlier (not attributed)';
	if (caller === userCaller('')) return 'owner';
	return names.get(caller) ?? caller.replace(/^user:/, 'user ');
}

export function shareTable(input: ShareInput): UsageShares {
	const names = new Map(input.users.map((u) => [userCaller(u.id), u.name]));
	const mine = userCaller(input.me.id);
	names.set(mine, input.me.name);
	const callers = new Set<string>(input.users.map((u) => userCaller(u.id)));
	for (const h of input.holdings) callers.add(h.owner);
	for (const p of Object.values(input.calls)) {
		for (const c of Object.keys(p.daily)) callers.add(c);
		for (const c of Object.keys(p.monthly)) callers.add(c);
	}
	callers.add(mine);

	const cellsOf = (caller: string): ShareCell[] =>
		input.pools.flatMap((pool) => {
			const p = input.calls[pool];
			const today = p?.daily[caller]?.calls ?? 0;
			const month = p?.monthly[caller]?.calls ?? 0;
			const sharedToday = p?.daily[caller]?.shared ?? 0;
			if (today + month + sharedToday === 0) return [];
			const total = input.totals[pool]?.today ?? 0;
			return [{ pool, today, month, sharedToday, share: total > 0 ? today / total : null }];
		});
	const held = new Map(input.holdings.map((h) => [h.owner, h]));
	const rowOf = (caller: string, pools = cellsOf(caller)): ShareRow => ({
		caller,
		name: callerName(caller, names),
		you: caller === mine,
		memberships: held.get(caller)?.memberships ?? 0,
		groups: held.get(caller)?.groups ?? [],
		pools
	});

	const admin = input.me.role === 'admin';
	const rows = admin ? [...callers].map((c) => rowOf(c)) : [rowOf(mine)];
	if (admin) {
		const earlier = unattributed(input);
		if (earlier.length > 0) rows.push(rowOf(UNATTRIBUTED, earlier));
	}
	rows.sort((a, b) => Number(b.you) - Number(a.you) || a.name.localeCompare(b.name));
	const totals =
		input.me.role === 'viewer'
			? null
			: {
					memberships: input.union.used,
					limit: input.union.limit,
					pools: input.pools
						.map((pool) => ({ pool, ...(input.totals[pool] ?? { today: 0, month: 0 }) }))
						.filter((p) => p.today + p.month > 0)
				};
	return { store: input.store, rows, totals };
}

/** Per pool, the ledger's calls the split has no caller for (before this process counted). */
function unattributed(input: ShareInput): ShareCell[] {
	return input.pools.flatMap((pool) => {
		const sum = (w: 'daily' | 'monthly') =>
			Object.values(input.calls[pool]?.[w] ?? {}).reduce((n, c) => n + c.calls, 0);
		const total = input.totals[pool] ?? { today: 0, month: 0 };
		const today = Math.max(0, total.today - sum('daily'));
		const month = Math.max(0, total.month - sum('monthly'));
		if (today + month === 0) return [];
		return [
			{ pool, today, month, sharedToday: 0, share: total.today > 0 ? today / total.today : null }
		];
	});
}
