/**
 * The membership rules of negotiation (src/lib/contract/hubs.ts) applied with this service's
 * data: explicit expiries are checked against the market's expiry calendar, PATCH needs a live
 * connection on every hub it names, legacy joins respect the hub of the group and the limit.
 */
import {
	isLegacyHub,
	LEGACY_HUBS,
	parseGroup,
	planNegotiation,
	planPatch,
	V2_HUBS,
	v2HubOf,
	type Membership
} from '../../lib/contract/hubs';
import { fromCompactDate } from '../../lib/contract/dates';
import type { Failure } from '../../lib/contract/outcome';
import { underlyingOf } from '../../lib/contract/tickers';
import type { MarketSource } from '../source';
import type { Memberships, Slot } from './slots';

export type PlanResult =
	{ ok: true; memberships: Memberships } | (Failure & { status: 400 | 403 | 409 });

export class GroupPlanner {
	readonly v2Hubs: readonly string[] = V2_HUBS;
	readonly legacyHubs: readonly string[] = LEGACY_HUBS;
	private readonly isValidExpiry: (ticker: string, expiry: string) => boolean;

	constructor(market: MarketSource) {
		this.isValidExpiry = (ticker, expiry) =>
			market.expiries(underlyingOf(ticker)).includes(fromCompactDate(expiry));
	}

	isHub(hub: string): boolean {
		return (V2_HUBS as readonly string[]).includes(hub) || isLegacyHub(hub);
	}

	/** POST /v2/negotiate `{"groups": [...]}`. */
	planPost(groups: unknown, limit: number): PlanResult {
		if (!Array.isArray(groups)) {
			return {
				ok: false,
				status: 400,
				error: 'Body must be {"groups": ["SPX_classic_gex_full", "SPX_spot", ...]}.'
			};
		}
		const plan = planNegotiation(groups, { limit, isValidExpiry: this.isValidExpiry });
		if (!plan.ok) return plan;
		return { ok: true, memberships: toMap(plan.memberships) };
	}

	/** PATCH /v2/negotiate `{"groups": [{"hub", "group"}, ...]}` against the slot's live hubs. */
	planPatch(items: unknown, liveHubs: ReadonlySet<string>, limit: number): PlanResult {
		if (
			!Array.isArray(items) ||
			!items.every((i) => typeof i === 'object' && i !== null && !Array.isArray(i))
		) {
			return {
				ok: false,
				status: 400,
				error:
					'Body must be {"groups": [{"hub": "v2_classic", "group": "SPX_classic_gex_full"}, ...]}.'
			};
		}
		const plan = planPatch(items as { hub: unknown; group: unknown }[], {
			limit,
			isValidExpiry: this.isValidExpiry
		});
		if (!plan.ok) return plan;
		const dead = plan.usedHubs.filter((h) => !liveHubs.has(h));
		if (dead.length > 0) {
			return {
				ok: false,
				status: 409,
				error: `No live connection on hub ${dead.join(', ')}: connect its negotiated URL before PATCH.`
			};
		}
		return { ok: true, memberships: toMap(plan.memberships) };
	}

	/** Why a legacy connection on `hub` may not join the unprefixed `group` (undefined: it may). */
	legacyJoinError(slot: Slot, hub: string, group: string, limit: number): string | undefined {
		const parsed = parseGroup(group);
		if (!parsed.ok) return parsed.error;
		const g = parsed.group;
		if (!isLegacyHub(hub)) return `Hub ${hub} is not a legacy hub.`;
		if (g.kind !== 'spot' && g.hub !== v2HubOf(hub)) {
			return `Group ${group} belongs on hub ${g.hub.slice(3)}, not ${hub}.`;
		}
		if (g.kind === 'expiry' && !this.isValidExpiry(g.ticker, g.expiry)) {
			return `No option expiry ${g.expiry} for ${g.ticker} (group ${group}).`;
		}
		const count = slot.membershipCount();
		if (count + 1 > limit) {
			return `Group limit exceeded: the limit is ${limit} hub-and-group memberships.`;
		}
		return undefined;
	}
}

function toMap(memberships: readonly Membership[]): Memberships {
	const map: Memberships = new Map();
	for (const m of memberships) {
		let set = map.get(m.hub);
		if (!set) map.set(m.hub, (set = new Set()));
		set.add(m.group);
	}
	return map;
}
