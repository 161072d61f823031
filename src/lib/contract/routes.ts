/**
 * The route table of the upstream REST contract. The embedded service's router and the
 * dashboard proxy's allowlist are both built from it, so a path either side accepts is a
 * documented route with validated parameters, nothing else.
 *
 * Paths are matched as the upstream serves them: under `/v2`, except `GET /{package}/categories`
 * and `GET /tickers/quant` (root only) and `GET /hist/eod/{ticker}` (both).
 *
 * Decisions where the documentation is silent or contradictory:
 * - `/majors` and `/maxchange` summarise the GEX ladder (by volume / by OI), so on the state
 *   package they accept only the gex categories; greek profiles have no such ladder.
 * - REST state does not serve `volume_zero`/`volume_one` (streaming only; see categories.ts).
 * - History accepts the packages classic, state and orderflow (the category file layout of the
 *   EOD report); aliases resolve to the canonical file name.
 * - Quota pools: the seed's table; routes it does not list (whoami, tickers, categories,
 *   expiries, EOD, negotiate) count against no pool.
 */

import type { Failure, Outcome } from './outcome';
import type { AccessRule } from './access';
import {
	isGexCategory,
	isPackage,
	resolveCategory,
	REST_CATEGORIES,
	type CanonicalCategory,
	type PackageName
} from './categories';
import { isCalendarDate } from './dates';
import { parseFuturesQuery } from './futures';
import { isResearchMetric, parseResearchQuery } from './research';
import { isOptionTicker, isResearchTicker, isTicker } from './tickers';

export const QUOTA_POOLS = [
	'api_default',
	'api_majors',
	'api_max_change',
	'api_futures_conversion',
	'api_history_cache',
	'api_research_command'
] as const;
export type QuotaPool = (typeof QUOTA_POOLS)[number];

export type HttpMethod = 'GET' | 'POST' | 'PATCH';
/** Where a route is served: under the `/v2` prefix, at the host root, or both. */
export type ServedAt = 'v2' | 'root' | 'both';

export type RouteId =
	| 'whoami'
	| 'tickers'
	| 'quantTickers'
	| 'categories'
	| 'classicChain'
	| 'classicMajors'
	| 'classicMaxchange'
	| 'stateSnapshot'
	| 'stateMajors'
	| 'stateMaxchange'
	| 'orderflow'
	| 'expiries'
	| 'futuresConversion'
	| 'history'
	| 'eod'
	| 'research'
	| 'negotiatePost'
	| 'negotiateGet'
	| 'negotiatePatch';

/** Validated, canonical path parameters. */
export interface RouteParams {
	ticker?: string;
	package?: PackageName;
	/** Canonical category (aliases resolved). */
	category?: CanonicalCategory;
	/** The category segment as requested (e.g. `full`, `onegamma`). */
	rawCategory?: string;
	metric?: string;
	/** `YYYY-MM-DD` (history). */
	date?: string;
}

type ParamName =
	'ticker' | 'optionTicker' | 'researchTicker' | 'package' | 'category' | 'metric' | 'date';

export interface RouteSpec {
	id: RouteId;
	method: HttpMethod;
	/** Path pattern without the `/v2` prefix, e.g. `/{ticker}/classic/{category}/majors`. */
	pattern: string;
	servedAt: ServedAt;
	quotaPool: QuotaPool | null;
	access: AccessRule;
	/** The package a `{category}` segment belongs to when the path fixes it. */
	fixedPackage?: PackageName;
	/** Restricts `{category}` beyond the package's REST categories. */
	categoryFilter?: (c: CanonicalCategory) => boolean;
	/** Documented query parameters (others are refused by validateQuery). */
	query: 'none' | 'futures' | 'history' | 'research';
	/** One-line description for error pages and docs. */
	summary: string;
}

function route(spec: Omit<RouteSpec, 'query'> & { query?: RouteSpec['query'] }): RouteSpec {
	return { query: 'none', ...spec };
}

const classicPkg = { kind: 'package', level: 'classic' } as const;
const statePkg = { kind: 'package', level: 'state' } as const;
const orderflowPkg = { kind: 'package', level: 'orderflow' } as const;
const quant = { kind: 'quant' } as const;

export const ROUTES: readonly RouteSpec[] = [
	route({ id: 'whoami', method: 'GET', pattern: '/whoami', servedAt: 'v2', quotaPool: null, access: { kind: 'whoami' }, summary: 'Account identity and masked key' }),
	route({ id: 'tickers', method: 'GET', pattern: '/tickers', servedAt: 'v2', quotaPool: null, access: { kind: 'public' }, summary: 'Public ticker universe' }),
	route({ id: 'quantTickers', method: 'GET', pattern: '/tickers/quant', servedAt: 'root', quotaPool: null, access: { kind: 'public' }, summary: 'WebSocket-only Quant tickers' }),
	route({ id: 'categories', method: 'GET', pattern: '/{package}/categories', servedAt: 'root', quotaPool: null, access: { kind: 'public' }, summary: 'Categories of a package' }),
	route({ id: 'classicChain', method: 'GET', pattern: '/{ticker}/classic/{category}', servedAt: 'v2', quotaPool: 'api_default', access: classicPkg, fixedPackage: 'classic', summary: 'Classic GEX chain' }),
	route({ id: 'classicMajors', method: 'GET', pattern: '/{ticker}/classic/{category}/majors', servedAt: 'v2', quotaPool: 'api_majors', access: classicPkg, fixedPackage: 'classic', summary: 'Classic major levels' }),
	route({ id: 'classicMaxchange', method: 'GET', pattern: '/{ticker}/classic/{category}/maxchange', servedAt: 'v2', quotaPool: 'api_max_change', access: classicPkg, fixedPackage: 'classic', summary: 'Classic max change' }),
	route({ id: 'stateSnapshot', method: 'GET', pattern: '/{ticker}/state/{category}', servedAt: 'v2', quotaPool: 'api_default', access: statePkg, fixedPackage: 'state', summary: 'State GEX chain or greek profile' }),
	route({ id: 'stateMajors', method: 'GET', pattern: '/{ticker}/state/{category}/majors', servedAt: 'v2', quotaPool: 'api_majors', access: statePkg, fixedPackage: 'state', categoryFilter: isGexCategory, summary: 'State major levels' }),
	route({ id: 'stateMaxchange', method: 'GET', pattern: '/{ticker}/state/{category}/maxchange', servedAt: 'v2', quotaPool: 'api_max_change', access: statePkg, fixedPackage: 'state', categoryFilter: isGexCategory, summary: 'State max change' }),
	route({ id: 'orderflow', method: 'GET', pattern: '/{ticker}/orderflow/{category}', servedAt: 'v2', quotaPool: 'api_default', access: orderflowPkg, fixedPackage: 'orderflow', summary: 'Orderflow metrics' }),
	route({ id: 'expiries', method: 'GET', pattern: '/options/{optionTicker}/expiries', servedAt: 'v2', quotaPool: null, access: quant, summary: 'Option expiries (90 days)' }),
	route({ id: 'futuresConversion', method: 'GET', pattern: '/futures/conversion', servedAt: 'v2', quotaPool: 'api_futures_conversion', access: { kind: 'paid' }, query: 'futures', summary: 'Index to futures conversion' }),
	route({ id: 'history', method: 'GET', pattern: '/hist/{ticker}/{package}/{category}/{date}', servedAt: 'v2', quotaPool: 'api_history_cache', access: quant, query: 'history', summary: 'Historical day download' }),
	route({ id: 'eod', method: 'GET', pattern: '/hist/eod/{ticker}', servedAt: 'both', quotaPool: null, access: { kind: 'paid' }, summary: 'End-of-day report (zip)' }),
	route({ id: 'research', method: 'GET', pattern: '/research/{researchTicker}/{metric}', servedAt: 'v2', quotaPool: 'api_research_command', access: { kind: 'research' }, query: 'research', summary: 'Research chart or dataset' }),
	route({ id: 'negotiatePost', method: 'POST', pattern: '/negotiate', servedAt: 'v2', quotaPool: null, access: quant, summary: 'WebSocket negotiation (V2)' }),
	route({ id: 'negotiateGet', method: 'GET', pattern: '/negotiate', servedAt: 'v2', quotaPool: null, access: quant, summary: 'Legacy WebSocket negotiation' }),
	route({ id: 'negotiatePatch', method: 'PATCH', pattern: '/negotiate', servedAt: 'v2', quotaPool: null, access: quant, summary: 'Replace WebSocket memberships' })
]; // prettier-ignore

const ROUTES_BY_ID: ReadonlyMap<RouteId, RouteSpec> = new Map(ROUTES.map((r) => [r.id, r]));

export function getRoute(id: RouteId): RouteSpec {
	const r = ROUTES_BY_ID.get(id);
	if (!r) throw new RangeError(`unknown route id ${id}`);
	return r;
}

type Segment = { literal: string } | { param: ParamName };

const SEGMENTS: ReadonlyMap<RouteSpec, Segment[]> = new Map(
	ROUTES.map((r) => [
		r,
		r.pattern
			.slice(1)
			.split('/')
			.map((s): Segment =>
				s.startsWith('{') ? { param: s.slice(1, -1) as ParamName } : { literal: s }
			)
	])
);

export type RouteResolution =
	| { kind: 'match'; route: RouteSpec; params: RouteParams }
	/** A documented path shape whose parameters are not valid (answer 400). */
	| { kind: 'invalid'; route: RouteSpec; status: 400; error: string }
	/** The path exists but not for this method (answer 405 with Allow). */
	| { kind: 'method-not-allowed'; allowed: HttpMethod[] }
	| { kind: 'not-found' };

/**
 * Splits a pathname into its place (v2 or root) and segments. Empty segments (`//`, trailing
 * `/`) and dot segments never match a route.
 */
function splitPath(pathname: string): { at: 'v2' | 'root'; parts: string[] } | undefined {
	if (!pathname.startsWith('/')) return undefined;
	const parts = pathname.slice(1).split('/');
	if (parts.some((p) => p === '' || p === '.' || p === '..')) return undefined;
	if (parts[0] === 'v2') return parts.length > 1 ? { at: 'v2', parts: parts.slice(1) } : undefined;
	return { at: 'root', parts };
}

function servedHere(r: RouteSpec, at: 'v2' | 'root'): boolean {
	return r.servedAt === 'both' || r.servedAt === at;
}

function shapeMatches(r: RouteSpec, parts: string[]): boolean {
	const segs = SEGMENTS.get(r)!;
	if (segs.length !== parts.length) return false;
	return segs.every((s, i) => !('literal' in s) || s.literal === parts[i]);
}

/** Validates the parameter segments of a shape-matched route. */
function bindParams(r: RouteSpec, parts: string[]): Outcome<{ params: RouteParams }> {
	const segs = SEGMENTS.get(r)!;
	const params: RouteParams = {};
	let rawCategory: string | undefined;
	for (let i = 0; i < segs.length; i++) {
		const s = segs[i];
		if ('literal' in s) continue;
		const v = parts[i];
		switch (s.param) {
			case 'ticker':
				if (!isTicker(v)) return { ok: false, error: `Unknown ticker '${v}'.` };
				params.ticker = v;
				break;
			case 'optionTicker':
				if (!isOptionTicker(v)) return { ok: false, error: `Unknown option ticker '${v}'.` };
				params.ticker = v;
				break;
			case 'researchTicker':
				if (!isResearchTicker(v)) return { ok: false, error: `Invalid ticker '${v}'.` };
				params.ticker = v;
				break;
			case 'package':
				if (!isPackage(v)) {
					return {
						ok: false,
						error: `Unknown package '${v}': expected classic, state or orderflow.`
					};
				}
				params.package = v;
				break;
			case 'category':
				rawCategory = v;
				break;
			case 'metric':
				if (!isResearchMetric(v)) return { ok: false, error: `Unknown research metric '${v}'.` };
				params.metric = v;
				break;
			case 'date':
				if (!isCalendarDate(v)) {
					return { ok: false, error: `Invalid date '${v}': expected a real YYYY-MM-DD date.` };
				}
				params.date = v;
				break;
		}
	}
	if (rawCategory !== undefined) {
		const pkg = r.fixedPackage ?? params.package;
		if (!pkg) return { ok: false, error: 'Missing package.' };
		const category = resolveCategory(pkg, rawCategory);
		if (category === undefined || !REST_CATEGORIES[pkg].includes(category)) {
			return { ok: false, error: `Unknown ${pkg} category '${rawCategory}'.` };
		}
		if (r.categoryFilter && !r.categoryFilter(category)) {
			// A real category the route does not summarise (a greek on /state/.../maxchange): the
			// service's own words, which client programs match on.
			return { ok: false, error: GEX_ONLY_ERROR };
		}
		params.package = pkg;
		params.category = category;
		params.rawCategory = rawCategory;
	}
	return { ok: true, params };
}

/** The refusal of a non-GEX State category on the majors and max-change routes (observed). */
export const GEX_ONLY_ERROR = 'Category must be one of gex_full, gex_one or gex_zero';

/**
 * Resolves a request to a documented route with validated parameters, or says precisely why
 * not. `pathname` is the upstream path including `/v2` where the route lives there, without
 * query string.
 */
export function resolveRoute(method: string, pathname: string): RouteResolution {
	const split = splitPath(pathname);
	if (!split) return { kind: 'not-found' };
	const candidates = ROUTES.filter((r) => servedHere(r, split.at) && shapeMatches(r, split.parts));
	if (candidates.length === 0) return { kind: 'not-found' };
	const sameMethod = candidates.filter((r) => r.method === method.toUpperCase());
	if (sameMethod.length === 0) {
		return { kind: 'method-not-allowed', allowed: [...new Set(candidates.map((r) => r.method))] };
	}
	// A path with more literal segments is more specific (/tickers/quant over a parameter).
	sameMethod.sort((a, b) => literalCount(b) - literalCount(a));
	let firstError: RouteResolution | undefined;
	for (const r of sameMethod) {
		const bound = bindParams(r, split.parts);
		if (bound.ok) return { kind: 'match', route: r, params: bound.params };
		firstError ??= { kind: 'invalid', route: r, status: 400, error: bound.error };
	}
	return firstError!;
}

function literalCount(r: RouteSpec): number {
	return SEGMENTS.get(r)!.filter((s) => 'literal' in s).length;
}

/** The route and validated params of a request, or undefined when it is not a valid documented route. */
export function matchRoute(
	method: string,
	pathname: string
): { route: RouteSpec; params: RouteParams } | undefined {
	const r = resolveRoute(method, pathname);
	return r.kind === 'match' ? { route: r.route, params: r.params } : undefined;
}

/**
 * Validates the query string against the route's documented parameters. Unknown parameters are
 * refused (the proxy must not forward anything the contract does not name).
 */
export function validateQuery(
	r: RouteSpec,
	query: URLSearchParams
): { ok: true } | (Failure & { status: 400 }) {
	switch (r.query) {
		case 'none': {
			const first = query.keys().next();
			return first.done
				? { ok: true }
				: { ok: false, status: 400, error: `Unknown query parameter ${first.value}.` };
		}
		case 'history':
			for (const name of query.keys()) {
				if (name !== 'noredirect') {
					return { ok: false, status: 400, error: `Unknown query parameter ${name}.` };
				}
			}
			return { ok: true };
		case 'futures': {
			for (const name of query.keys()) {
				if (name !== 'ticker' && name !== 'future') {
					return { ok: false, status: 400, error: `Unknown query parameter ${name}.` };
				}
			}
			const parsed = parseFuturesQuery(query);
			return parsed.ok ? { ok: true } : { ok: false, status: 400, error: parsed.error };
		}
		case 'research': {
			const parsed = parseResearchQuery(query);
			return parsed.ok ? { ok: true } : { ok: false, status: 400, error: parsed.error };
		}
	}
}

/**
 * The upstream path of a route with its params (canonical category unless `rawCategory` is
 * given), including the `/v2` prefix where the route lives there (`both` routes use `/v2`).
 */
export function routePath(r: RouteSpec, params: RouteParams = {}): string {
	const filled = SEGMENTS.get(r)!.map((s) => {
		if ('literal' in s) return s.literal;
		const value = paramValue(s.param, params);
		if (value === undefined) throw new RangeError(`route ${r.id} needs parameter ${s.param}`);
		return encodeURIComponent(value);
	});
	const path = `/${filled.join('/')}`;
	const full = r.servedAt === 'root' ? path : `/v2${path}`;
	// Building must never produce a path that matching would refuse. Matching sees decoded
	// segments (a research ticker may contain `^`, sent as %5E), so check the decoded form.
	const decoded = full.split('/').map(decodeURIComponent).join('/');
	if (!matchRoute(r.method, decoded))
		throw new RangeError(`invalid parameters for route ${r.id}: ${full}`);
	return full;
}

function paramValue(name: ParamName, p: RouteParams): string | undefined {
	switch (name) {
		case 'ticker':
		case 'optionTicker':
		case 'researchTicker':
			return p.ticker;
		case 'package':
			return p.package;
		case 'category':
			return p.rawCategory ?? p.category;
		case 'metric':
			return p.metric;
		case 'date':
			return p.date;
	}
}
