/**
 * WebSocket hubs and group names of the Quant feed, and the membership rules of negotiation.
 *
 * Group names are unprefixed (an analytics group is built from its feed: ./feeds `feedGroup`):
 * `{ticker}_{package}_{category}` (e.g. `SPX_classic_gex_full`,
 * `ES_SPX_orderflow_orderflow`), `{ticker}_spot`, and explicit-expiry groups whose category
 * ends in `_YYYYMMDD` (`SPX_classic_gex_20260717`, `SPX_state_gamma_20260717`,
 * `SPX_orderflow_20260717`). Tickers may contain `_` (ES_SPX), so a name is split at its
 * package token, never at the first underscore.
 *
 * Hub of a group:
 *   classic gex_* and classic gex_YYYYMMDD          -> v2_classic
 *   state gex_* and state gex_YYYYMMDD              -> v2_state_gex
 *   state <greek>_zero, volume_zero                 -> v2_state_greeks_zero
 *   state <greek>_one, volume_one                   -> v2_state_greeks_one
 *   state <greek>_YYYYMMDD                          -> v2_state_greeks
 *   orderflow orderflow and orderflow_YYYYMMDD      -> v2_orderflow
 * Spot has no hub: a POST lists `{ticker}_spot` once and it is expanded onto every hub that
 * carries analytics of that ticker; a PATCH lists it once per such hub.
 */

import type { Failure, Outcome } from './outcome';
import {
	GREEKS,
	isGexCategory,
	isGreekCategory,
	isPackage,
	isVolumeCategory,
	PACKAGE_CATEGORIES,
	type CanonicalCategory,
	type Greek,
	type PackageName
} from './categories';
import { isCompactDate } from './dates';
import { isStreamTicker } from './tickers';

export const V2_HUBS = [
	'v2_classic',
	'v2_state_gex',
	'v2_state_greeks_zero',
	'v2_state_greeks',
	'v2_state_greeks_one',
	'v2_orderflow'
] as const;
export type V2Hub = (typeof V2_HUBS)[number];

/** Current-generation hub names, used by the deprecated GET /negotiate flow. */
export const LEGACY_HUBS = [
	'classic',
	'state_gex',
	'state_greeks_zero',
	'state_greeks',
	'state_greeks_one',
	'orderflow'
] as const;
export type LegacyHub = (typeof LEGACY_HUBS)[number];
export type Hub = V2Hub | LegacyHub;

/** Default limit of hub-and-group memberships per account slot. */
export const DEFAULT_GROUP_LIMIT = 150;
/** Reason given to connections closed because a new negotiation took their slot. */
export const SESSION_LIMIT_REASON = 'Websocket Session Limit Reached';
/** Authorized URLs not connected within this time are refused. */
export const URL_TTL_MS = 15 * 60 * 1000;

export function isV2Hub(value: unknown): value is V2Hub {
	return typeof value === 'string' && (V2_HUBS as readonly string[]).includes(value);
}

export function isLegacyHub(value: unknown): value is LegacyHub {
	return typeof value === 'string' && (LEGACY_HUBS as readonly string[]).includes(value);
}

export function legacyHubOf(hub: V2Hub): LegacyHub {
	return hub.slice(3) as LegacyHub;
}

export function v2HubOf(hub: LegacyHub): V2Hub {
	return `v2_${hub}`;
}

/** What a group's frames carry (and so how the wire layer decodes them). */
export type FrameKind = 'gex' | 'greek' | 'orderflow' | 'volume' | 'spot';

export interface SpotGroup {
	kind: 'spot';
	name: string;
	ticker: string;
}

export interface AnalyticsGroup {
	kind: 'analytics';
	name: string;
	ticker: string;
	package: PackageName;
	category: CanonicalCategory;
	hub: V2Hub;
	frame: FrameKind;
}

/** The stem of an explicit-expiry category: `gex`, a greek, or the orderflow set. */
export type ExpiryStem = 'gex' | Greek | 'orderflow';

export interface ExpiryGroup {
	kind: 'expiry';
	name: string;
	ticker: string;
	package: PackageName;
	stem: ExpiryStem;
	/** `YYYYMMDD` */
	expiry: string;
	hub: V2Hub;
	frame: FrameKind;
}

export type ParsedGroup = SpotGroup | AnalyticsGroup | ExpiryGroup;
export type GroupParse = Outcome<{ group: ParsedGroup }>;

export function spotGroupName(ticker: string): string {
	return `${ticker}_spot`;
}

/** `expiry` is `YYYYMMDD`. Orderflow groups have no stem: `SPX_orderflow_20260717`. */
export function expiryGroupName(
	ticker: string,
	pkg: PackageName,
	stem: ExpiryStem,
	expiry: string
): string {
	return pkg === 'orderflow'
		? `${ticker}_orderflow_${expiry}`
		: `${ticker}_${pkg}_${stem}_${expiry}`;
}

function hubOfCategory(pkg: PackageName, category: CanonicalCategory): V2Hub | undefined {
	if (pkg === 'classic') return isGexCategory(category) ? 'v2_classic' : undefined;
	if (pkg === 'orderflow') return category === 'orderflow' ? 'v2_orderflow' : undefined;
	if (isGexCategory(category)) return 'v2_state_gex';
	if (isGreekCategory(category) || isVolumeCategory(category)) {
		return category.endsWith('_zero') ? 'v2_state_greeks_zero' : 'v2_state_greeks_one';
	}
	return undefined;
}

function frameOfCategory(pkg: PackageName, category: CanonicalCategory): FrameKind {
	if (pkg === 'orderflow') return 'orderflow';
	if (isGexCategory(category)) return 'gex';
	if (isVolumeCategory(category)) return 'volume';
	return 'greek';
}

/** Parses and validates one unprefixed group name against the universe and the hub table. */
export function parseGroup(name: unknown): GroupParse {
	if (typeof name !== 'string' || name.length === 0 || name.length > 64) {
		return {
			ok: false,
			error: `Invalid group name: expected a non-empty string of at most 64 characters.`
		};
	}
	const spot = /^(.+)_spot$/.exec(name);
	if (spot) {
		if (!isStreamTicker(spot[1])) return { ok: false, error: `Unknown ticker in group ${name}.` };
		return { ok: true, group: { kind: 'spot', name, ticker: spot[1] } };
	}
	const m = /^([A-Z0-9_]+?)_(classic|state|orderflow)(?:_([a-z0-9_]+))?$/.exec(name);
	if (!m || !isPackage(m[2])) return { ok: false, error: `Invalid group name ${name}.` };
	const [, ticker, pkg, rest] = m as unknown as [string, string, PackageName, string | undefined];
	if (!isStreamTicker(ticker)) return { ok: false, error: `Unknown ticker in group ${name}.` };
	if (rest === undefined) return { ok: false, error: `Group ${name} has no category.` };

	const expiry = /^(?:([a-z]+)_)?(\d{8})$/.exec(rest);
	if (expiry) {
		const [, stemRaw, date] = expiry;
		if (!isCompactDate(date)) return { ok: false, error: `Invalid expiry date in group ${name}.` };
		let stem: ExpiryStem;
		let hub: V2Hub;
		if (pkg === 'orderflow') {
			if (stemRaw !== undefined)
				return { ok: false, error: `Invalid orderflow expiry group ${name}.` };
			stem = 'orderflow';
			hub = 'v2_orderflow';
		} else if (stemRaw === 'gex') {
			stem = 'gex';
			hub = pkg === 'classic' ? 'v2_classic' : 'v2_state_gex';
		} else if (pkg === 'state' && (GREEKS as readonly string[]).includes(stemRaw ?? '')) {
			stem = stemRaw as Greek;
			hub = 'v2_state_greeks';
		} else {
			return { ok: false, error: `Unknown ${pkg} expiry category in group ${name}.` };
		}
		const frame: FrameKind = stem === 'gex' ? 'gex' : stem === 'orderflow' ? 'orderflow' : 'greek';
		return {
			ok: true,
			group: { kind: 'expiry', name, ticker, package: pkg, stem, expiry: date, hub, frame }
		};
	}

	const category = rest as CanonicalCategory;
	const hub = PACKAGE_CATEGORIES[pkg].includes(category) ? hubOfCategory(pkg, category) : undefined;
	if (!hub) return { ok: false, error: `Unknown ${pkg} category in group ${name}.` };
	return {
		ok: true,
		group: {
			kind: 'analytics',
			name,
			ticker,
			package: pkg,
			category,
			hub,
			frame: frameOfCategory(pkg, category)
		}
	};
}

/** Removes a legacy prefix (`blue_SPX_spot` with prefix `blue` -> `SPX_spot`). */
export function stripGroupPrefix(name: string, prefix: string): string | undefined {
	return name.startsWith(`${prefix}_`) ? name.slice(prefix.length + 1) : undefined;
}

/** One hub-and-group membership. */
export interface Membership {
	hub: V2Hub;
	group: string;
}

export type MembershipPlan =
	| {
			ok: true;
			/** Unique memberships (duplicates collapsed, spot expanded). */
			memberships: Membership[];
			/** Membership count per hub, every V2 hub present (0 when unused). */
			hubs: Record<V2Hub, number>;
			/** Hubs that carry at least one membership. */
			usedHubs: V2Hub[];
			groups: ParsedGroup[];
	  }
	| (Failure & { status: 400 | 403 });

/** Optional check of explicit expiries against the published calendar (service side). */
export type ExpiryCheck = (ticker: string, expiry: string) => boolean;

export interface PlanOptions {
	/** Membership limit of the account (default 150). */
	limit?: number;
	isValidExpiry?: ExpiryCheck;
}

function key(m: Membership): string {
	return `${m.hub}\u0000${m.group}`;
}

function summarise(
	memberships: Membership[],
	groups: ParsedGroup[],
	limit: number
): MembershipPlan {
	if (memberships.length > limit) {
		return {
			ok: false,
			status: 403,
			error: `Group limit exceeded: ${memberships.length} hub-and-group memberships requested, the limit is ${limit}.`
		};
	}
	const hubs = Object.fromEntries(V2_HUBS.map((h) => [h, 0])) as Record<V2Hub, number>;
	for (const m of memberships) hubs[m.hub]++;
	return { ok: true, memberships, hubs, usedHubs: V2_HUBS.filter((h) => hubs[h] > 0), groups };
}

function parseAll(
	names: readonly unknown[],
	isValidExpiry?: ExpiryCheck
): Outcome<{ groups: ParsedGroup[] }> {
	const groups: ParsedGroup[] = [];
	for (const n of names) {
		const p = parseGroup(n);
		if (!p.ok) return p;
		if (
			p.group.kind === 'expiry' &&
			isValidExpiry &&
			!isValidExpiry(p.group.ticker, p.group.expiry)
		) {
			return {
				ok: false,
				error: `No option expiry ${p.group.expiry} for ${p.group.ticker} (group ${p.group.name}).`
			};
		}
		groups.push(p.group);
	}
	return { ok: true, groups };
}

/**
 * Memberships of a POST /negotiate body `{"groups": [...]}`: each analytics group on its hub,
 * each `{ticker}_spot` expanded onto every hub carrying that ticker's analytics. Spot coverage:
 * every analytics ticker needs its spot group and every spot group needs analytics (400).
 * Over the limit -> 403. Duplicates count once; each expanded spot membership counts.
 */
export function planNegotiation(
	names: readonly unknown[],
	options: PlanOptions = {}
): MembershipPlan {
	if (names.length === 0) return { ok: false, status: 400, error: 'groups must not be empty.' };
	const parsed = parseAll(names, options.isValidExpiry);
	if (!parsed.ok) return { ok: false, status: 400, error: parsed.error };
	const hubsByTicker = new Map<string, Set<V2Hub>>();
	const spotTickers = new Set<string>();
	for (const g of parsed.groups) {
		if (g.kind === 'spot') spotTickers.add(g.ticker);
		else {
			const set = hubsByTicker.get(g.ticker) ?? new Set<V2Hub>();
			set.add(g.hub);
			hubsByTicker.set(g.ticker, set);
		}
	}
	const missing = [...hubsByTicker.keys()].filter((t) => !spotTickers.has(t));
	if (missing.length > 0) {
		return {
			ok: false,
			status: 400,
			error: `Spot coverage: missing spot group for ${missing.map(spotGroupName).join(', ')}.`
		};
	}
	const orphans = [...spotTickers].filter((t) => !hubsByTicker.has(t));
	if (orphans.length > 0) {
		return {
			ok: false,
			status: 400,
			error: `Spot coverage: spot group without analytics: ${orphans.map(spotGroupName).join(', ')}.`
		};
	}
	const seen = new Map<string, Membership>();
	for (const g of parsed.groups) {
		const hubs = g.kind === 'spot' ? [...hubsByTicker.get(g.ticker)!] : [g.hub];
		for (const hub of hubs) {
			const m = { hub, group: g.name };
			seen.set(key(m), m);
		}
	}
	return summarise([...seen.values()], parsed.groups, options.limit ?? DEFAULT_GROUP_LIMIT);
}

/**
 * Memberships of a PATCH /negotiate body `{"groups": [{hub, group}, ...]}` (the complete set).
 * Each analytics group must name its own V2 hub; on every hub, each analytics ticker needs its
 * spot membership and each spot membership needs analytics of its ticker (spot coverage, 400).
 * An empty set is allowed (drops every membership). Whether each used hub has a live
 * connection is the caller's check.
 */
export function planPatch(
	items: readonly { hub: unknown; group: unknown }[],
	options: PlanOptions = {}
): MembershipPlan {
	const seen = new Map<string, Membership>();
	const groups: ParsedGroup[] = [];
	const analyticsOnHub = new Map<V2Hub, Set<string>>();
	const spotOnHub = new Map<V2Hub, Set<string>>();
	for (const item of items) {
		if (!isV2Hub(item.hub)) {
			return {
				ok: false,
				status: 400,
				error: `Unknown hub ${typeof item.hub === 'string' ? `'${item.hub}'` : typeof item.hub}: expected one of ${V2_HUBS.join(', ')}.`
			};
		}
		const parsed = parseAll([item.group], options.isValidExpiry);
		if (!parsed.ok) return { ok: false, status: 400, error: parsed.error };
		const g = parsed.groups[0];
		const hub = item.hub;
		if (g.kind !== 'spot' && g.hub !== hub) {
			return {
				ok: false,
				status: 400,
				error: `Group ${g.name} belongs on hub ${g.hub}, not ${hub}.`
			};
		}
		const bucket = g.kind === 'spot' ? spotOnHub : analyticsOnHub;
		const set = bucket.get(hub) ?? new Set<string>();
		set.add(g.ticker);
		bucket.set(hub, set);
		const m = { hub, group: g.name };
		if (!seen.has(key(m))) groups.push(g);
		seen.set(key(m), m);
	}
	for (const hub of V2_HUBS) {
		const analytics = analyticsOnHub.get(hub) ?? new Set<string>();
		const spots = spotOnHub.get(hub) ?? new Set<string>();
		for (const t of analytics) {
			if (!spots.has(t)) {
				return {
					ok: false,
					status: 400,
					error: `Spot coverage: hub ${hub} has ${t} analytics but no ${spotGroupName(t)} membership.`
				};
			}
		}
		for (const t of spots) {
			if (!analytics.has(t)) {
				return {
					ok: false,
					status: 400,
					error: `Spot coverage: ${spotGroupName(t)} on hub ${hub} has no ${t} analytics there.`
				};
			}
		}
	}
	return summarise([...seen.values()], groups, options.limit ?? DEFAULT_GROUP_LIMIT);
}

/** Number of distinct hub-and-group memberships (duplicates once). */
export function countMemberships(memberships: readonly Membership[]): number {
	return new Set(memberships.map(key)).size;
}
