/**
 * The Account page's "Each user's share" card (issue 29): reads the relay's viewers (whose
 * groups), the share store (who caused which calls: memory, or Redis in cluster mode) and the
 * account's totals (the quota ledger; in cluster mode the shared ledger in Redis), and lets
 * usage/shareTable.ts decide the rows the signed-in user may see.
 */
import { QUOTA_POOLS } from '$lib/contract/routes';
import type { SessionUser } from '$lib/server/auth';
import { appDatabase } from '$lib/server/db/appDb';
import type { PoolSpend } from '$lib/server/quotaLedger';
import { callShares } from '$lib/server/services';
import { allHoldings, streamRelay } from '$lib/server/stream/relayMount';
import { membershipsByOwner, membershipsOf } from '$lib/server/usage/memberships';
import { shareTable, type UsageShares } from '$lib/server/usage/shareTable';
import { UserStore } from '$lib/server/users/userStore';
import { teamsMode } from '$lib/server/users/teams';
import { IMPLICIT_ADMIN } from '$lib/server/requestGate';

export async function usageShares(
	user: SessionUser | undefined,
	accountId: string,
	/** The account's spend per pool: the ledger, or the cluster's shared one. */
	spend: Record<string, PoolSpend>
): Promise<UsageShares & { error: string | null }> {
	const me = user ?? IMPLICIT_ADMIN;
	const store = callShares();
	const relay = streamRelay();
	let error: string | null = null;
	const [calls, users, holdings] = await Promise.all([
		// Redis away (cluster mode): the page says so rather than showing nobody's calls.
		store.read(accountId, QUOTA_POOLS).catch((err: Error) => {
			error = err.message;
			return {};
		}),
		me.role === 'admin' && teamsMode() ? new UserStore(appDatabase()).list() : [],
		// Redis away: this replica's viewers at least.
		allHoldings().catch(() => relay.holdings())
	]);
	// The slot's total: the union of every viewer's groups (every replica's in a cluster).
	const union = [...new Set(holdings.flatMap((h) => h.groups))];
	const totals = Object.fromEntries(
		Object.entries(spend).map(([pool, s]) => [
			pool,
			{ today: s.daily.requests, month: s.monthly.requests }
		])
	);
	const table = shareTable({
		me,
		users: users.map((u) => ({ id: u.id, name: u.name })),
		holdings: membershipsByOwner(holdings),
		union: { used: membershipsOf(union), limit: relay.status().usage.limit },
		calls,
		totals,
		pools: QUOTA_POOLS,
		store: store.kind
	});
	return { ...table, error };
}
