/**
 * Each user's share of the account's stream slot: the memberships the analytics groups of their
 * open /stream viewers take (spot coverage included, as the relay negotiates them). A group two
 * users hold counts for both, so the rows add up to more than the slot's total, which is the
 * memberships of the union of every viewer's groups (the relay's book).
 */
import { parseGroup, planNegotiation, spotGroupName } from '$lib/contract/hubs';

/** What the relay says one viewer holds, and whose it is (callShares.ts's caller keys). */
export interface Holding {
	owner: string;
	groups: readonly string[];
}

export interface OwnerMemberships {
	owner: string;
	/** Analytics groups the owner's viewers hold, sorted. */
	groups: string[];
	/** Memberships those groups take upstream (with their tickers' spot groups). */
	memberships: number;
}

/** Memberships `analytics` take: each group on its hub, each ticker's spot on its hubs. */
export function membershipsOf(analytics: readonly string[]): number {
	if (analytics.length === 0) return 0;
	const tickers = new Set<string>();
	for (const name of analytics) {
		const p = parseGroup(name);
		if (p.ok) tickers.add(p.group.ticker);
	}
	const plan = planNegotiation([...analytics, ...[...tickers].map(spotGroupName)], {
		limit: Number.MAX_SAFE_INTEGER
	});
	return plan.ok ? plan.memberships.length : 0;
}

/** Per owner, the union of their viewers' groups and its memberships. */
export function membershipsByOwner(holdings: Iterable<Holding>): OwnerMemberships[] {
	const byOwner = new Map<string, Set<string>>();
	for (const h of holdings) {
		const set = byOwner.get(h.owner) ?? new Set<string>();
		for (const g of h.groups) set.add(g);
		byOwner.set(h.owner, set);
	}
	return [...byOwner].map(([owner, set]) => {
		const groups = [...set].sort();
		return { owner, groups, memberships: membershipsOf(groups) };
	});
}
