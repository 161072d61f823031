/**
 * The reference-counted union of every viewer's groups, and the membership plan it needs
 * upstream. Viewers name analytics groups only; each analytics ticker's `{ticker}_spot` is added
 * by the book (spot coverage), so the plan is always a valid POST or PATCH body.
 *
 * The account's membership limit is enforced here, before the upstream is asked: a group whose
 * memberships would push the union over the limit is refused with the reason, the rest of the
 * request is accepted.
 */
import {
	DEFAULT_GROUP_LIMIT,
	parseGroup,
	planNegotiation,
	spotGroupName,
	V2_HUBS,
	type Membership,
	type V2Hub
} from '../../contract/hubs';
import type { MembershipUsage, RefusedGroup } from '../../relay/protocol';

export interface UnionPlan {
	/** POST body groups: analytics groups plus one spot group per analytics ticker. */
	groups: string[];
	/** PATCH body: every hub-and-group membership (spot expanded per hub). */
	memberships: Membership[];
	usedHubs: V2Hub[];
	usage: MembershipUsage;
}

export interface AddResult {
	accepted: string[];
	refused: RefusedGroup[];
}

export class SubscriptionBook<V> {
	/** group -> viewers holding it (reference counts). */
	private readonly holders = new Map<string, Set<V>>();
	private readonly byViewer = new Map<V, Set<string>>();
	private cached: UnionPlan | undefined;
	private readonly tickerOf = new Map<string, string>();
	/** ticker -> viewers, rebuilt lazily after any change (spot frames are routed by it). */
	private byTicker: Map<string, Set<V>> | undefined;

	constructor(readonly limit: number = DEFAULT_GROUP_LIMIT) {}

	/** Adds groups for a viewer; each is accepted or refused with a reason. */
	add(viewer: V, groups: readonly string[]): AddResult {
		const accepted: string[] = [];
		const refused: RefusedGroup[] = [];
		const mine = this.byViewer.get(viewer) ?? new Set<string>();
		this.byViewer.set(viewer, mine);
		for (const name of new Set(groups)) {
			const parsed = parseGroup(name);
			if (!parsed.ok) {
				refused.push({ group: name, reason: parsed.error });
				continue;
			}
			if (parsed.group.kind === 'spot') {
				refused.push({
					group: name,
					reason: 'Spot groups are added automatically with their ticker’s analytics groups.'
				});
				continue;
			}
			if (mine.has(name)) {
				accepted.push(name);
				continue;
			}
			if (!this.holders.has(name)) {
				const plan = this.planFor([...this.holders.keys(), name]);
				if (plan.usage.used > this.limit) {
					refused.push({
						group: name,
						reason: `Membership limit: adding ${name} needs ${plan.usage.used} hub-and-group memberships (spot included), the account's limit is ${this.limit}.`
					});
					continue;
				}
			}
			this.hold(viewer, name, parsed.group.ticker);
			accepted.push(name);
		}
		return { accepted, refused };
	}

	/** Releases groups of a viewer; returns those it actually held. */
	remove(viewer: V, groups: readonly string[]): string[] {
		const mine = this.byViewer.get(viewer);
		if (!mine) return [];
		const removed: string[] = [];
		for (const name of new Set(groups)) {
			if (!mine.delete(name)) continue;
			removed.push(name);
			this.byTicker = undefined;
			const set = this.holders.get(name)!;
			set.delete(viewer);
			if (set.size === 0) {
				this.holders.delete(name);
				this.tickerOf.delete(name);
				this.cached = undefined;
			}
		}
		return removed;
	}

	/** A viewer left: returns the groups that left the union (those no other viewer holds). */
	removeViewer(viewer: V): string[] {
		const released = this.remove(viewer, [...(this.byViewer.get(viewer) ?? [])]);
		this.byViewer.delete(viewer);
		return released.filter((g) => !this.holders.has(g));
	}

	/** Analytics groups of a viewer. */
	groupsOf(viewer: V): string[] {
		return [...(this.byViewer.get(viewer) ?? [])];
	}

	/** Viewers that receive a group's frames (spot: every holder of that ticker's analytics). */
	viewersOf(group: string): ReadonlySet<V> | undefined {
		return this.holders.get(group);
	}

	/** Every viewer holding at least one analytics group of `ticker` (its spot's audience). */
	viewersOfTicker(ticker: string): ReadonlySet<V> | undefined {
		if (!this.byTicker) {
			this.byTicker = new Map();
			for (const [name, set] of this.holders) {
				const t = this.tickerOf.get(name)!;
				const out = this.byTicker.get(t) ?? new Set<V>();
				for (const v of set) out.add(v);
				this.byTicker.set(t, out);
			}
		}
		return this.byTicker.get(ticker);
	}

	/** Every (viewer, group) whose group is carried by one of `hubs`. */
	holdingsOnHubs(hubs: ReadonlySet<string>): { viewer: V; group: string }[] {
		const out: { viewer: V; group: string }[] = [];
		for (const [group, viewers] of this.holders) {
			const p = parseGroup(group);
			if (!p.ok || p.group.kind === 'spot' || !hubs.has(p.group.hub)) continue;
			for (const viewer of viewers) out.push({ viewer, group });
		}
		return out;
	}

	tickerOfGroup(group: string): string | undefined {
		return this.tickerOf.get(group);
	}

	get size(): number {
		return this.holders.size;
	}

	/** The union's plan (cached until the union changes). */
	plan(): UnionPlan {
		this.cached ??= this.planFor([...this.holders.keys()]);
		return this.cached;
	}

	private hold(viewer: V, name: string, ticker: string): void {
		this.byViewer.get(viewer)!.add(name);
		this.tickerOf.set(name, ticker);
		this.byTicker = undefined;
		let set = this.holders.get(name);
		if (!set) {
			set = new Set<V>();
			this.holders.set(name, set);
			this.cached = undefined;
		}
		set.add(viewer);
	}

	private planFor(analytics: string[]): UnionPlan {
		const perHub = Object.fromEntries(V2_HUBS.map((h) => [h, 0])) as Record<string, number>;
		if (analytics.length === 0) {
			return {
				groups: [],
				memberships: [],
				usedHubs: [],
				usage: { used: 0, limit: this.limit, perHub }
			};
		}
		const tickers = new Set<string>();
		for (const name of analytics) {
			const p = parseGroup(name);
			if (p.ok) tickers.add(p.group.ticker);
		}
		const groups = [...analytics].sort().concat([...tickers].sort().map(spotGroupName));
		// Plan without a limit: the book compares against its own limit and says why.
		const plan = planNegotiation(groups, { limit: Number.MAX_SAFE_INTEGER });
		if (!plan.ok) throw new Error(`relay book built an invalid plan: ${plan.error}`);
		for (const h of V2_HUBS) perHub[h] = plan.hubs[h];
		return {
			groups,
			memberships: plan.memberships,
			usedHubs: plan.usedHubs,
			usage: { used: plan.memberships.length, limit: this.limit, perHub }
		};
	}
}

/** Order-independent identity of a membership set (to skip PATCHes that change nothing). */
export function membershipKey(memberships: readonly Membership[]): string {
	return memberships
		.map((m) => `${m.hub}/${m.group}`)
		.sort()
		.join(',');
}
