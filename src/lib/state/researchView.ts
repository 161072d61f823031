/**
 * Research view state <-> URL. Every control of the Research view lives in its URL, so a share
 * link reproduces the view (never the data):
 *
 *   /SPX/research/iv_mid                              3D IV surface (the default for iv_*)
 *   /SPX/research/iv_mid?view=skew&exp=2026-11-23,2026-11-30
 *   /SPX/research/gex_oi?strikes=40&start_dte=0&end_dte=7&contract_filter=puts
 *
 * The documented upstream filters keep their upstream names (strikes, start_dte, end_dte,
 * expiration_filter, contract_filter, moneyness_filter, contract_agg, expiry_agg, skew_adj,
 * limit_y); `view`, `axis` and `exp` are the dashboard's own. Values are validated here so a bad
 * link gets a sentence saying what is wrong instead of an upstream 400. Parameters at their
 * default are left out, so each state has one canonical URL.
 */
import {
	CHAIN_METRICS,
	CONTRACT_FILTERS,
	isResearchMetric,
	MONEYNESS_FILTERS
} from '../contract/research';
import { isResearchTicker } from '../contract/tickers';
import { ViewStateError, type Theme } from './viewState';

/** How the dataset is drawn: 3D surface, smile per expiry, term structure, or bars per strike. */
export const RESEARCH_DISPLAYS = ['surface', 'skew', 'term', 'strikes'] as const;
export type ResearchDisplay = (typeof RESEARCH_DISPLAYS)[number];
export type SurfaceAxis = 'strike' | 'moneyness';

export interface ResearchFilters {
	/** N strikes nearest spot per expiry. */
	strikes?: number;
	start_dte?: number;
	end_dte?: number;
	/** Comma-separated YYYY-MM-DD dates and/or weekly, monthly, 0dte, all. */
	expiration_filter?: string;
	contract_filter?: (typeof CONTRACT_FILTERS)[number];
	moneyness_filter?: (typeof MONEYNESS_FILTERS)[number];
	contract_agg?: boolean;
	expiry_agg?: boolean;
	skew_adj?: boolean;
	limit_y?: boolean;
}

export interface ResearchViewState {
	ticker: string;
	metric: string;
	view: ResearchDisplay;
	filters: ResearchFilters;
	/** Surface x axis. */
	axis: SurfaceAxis;
	/** Skew: the expiries drawn; null = the nearest few of the dataset. */
	expiries: string[] | null;
	theme: Theme | null;
}

export const BOOLEAN_FILTERS = ['contract_agg', 'expiry_agg', 'skew_adj', 'limit_y'] as const;
const NUMBER_FILTERS = ['strikes', 'start_dte', 'end_dte'] as const;
/** Filters in the order they appear in a URL and an upstream query. */
export const FILTER_NAMES = [
	'strikes',
	'start_dte',
	'end_dte',
	'expiration_filter',
	'contract_filter',
	'moneyness_filter',
	...BOOLEAN_FILTERS
] as const;
const VIEW_PARAMS = ['view', 'axis', 'exp', 'theme'] as const;
const KNOWN = new Set<string>([...FILTER_NAMES, ...VIEW_PARAMS]);

const MAX_STRIKES = 1000;
const MAX_DTE = 3650;
const MAX_EXPIRIES = 24;
const EXPIRY_TOKENS = ['weekly', 'monthly', '0dte', 'all'];
const LEVEL_METRICS: ReadonlySet<string> = new Set([
	'max_pain',
	'gamma_flip',
	'volatility_trigger',
	'gamma_wall_abs'
]);

/** Chain-level metrics (one strike per expiry, not a value per strike). */
export function isLevelMetric(metric: string): boolean {
	return LEVEL_METRICS.has(metric);
}

/** Implied-vol metrics open as a surface; chain levels as a term line; the rest as strike bars. */
export function defaultDisplay(metric: string): ResearchDisplay {
	if (/^iv_(bid|ask|mid)$/.test(metric)) return 'surface';
	return isLevelMetric(metric) ? 'term' : 'strikes';
}

/** The displays a metric can be drawn as. */
export function displaysFor(metric: string): readonly ResearchDisplay[] {
	return isLevelMetric(metric) ? ['term'] : RESEARCH_DISPLAYS;
}

function isIsoDate(s: string): boolean {
	if (!/^\d{4}-\d{2}-\d{2}$/.test(s)) return false;
	const d = new Date(`${s}T00:00:00Z`);
	return !Number.isNaN(d.getTime()) && d.toISOString().startsWith(s);
}

function parseInteger(name: string, raw: string, min: number, max: number): number {
	if (!/^\d+$/.test(raw)) {
		throw new ViewStateError(`${name} must be a whole number, got '${raw}'`);
	}
	const n = Number(raw);
	if (n < min || n > max) throw new ViewStateError(`${name} must be between ${min} and ${max}`);
	return n;
}

function parseExpirationFilter(raw: string): string {
	const tokens = raw
		.split(',')
		.map((t) => t.trim().toLowerCase())
		.filter(Boolean);
	if (tokens.length === 0) throw new ViewStateError('expiration_filter is empty');
	for (const t of tokens) {
		if (!isIsoDate(t) && !EXPIRY_TOKENS.includes(t)) {
			throw new ViewStateError(
				`expiration_filter '${t}' is not a YYYY-MM-DD date or one of ${EXPIRY_TOKENS.join(', ')}`
			);
		}
	}
	return [...new Set(tokens)].join(',');
}

function parseExpiries(raw: string): string[] {
	const list = [...new Set(raw.split(',').filter(Boolean))];
	if (list.length === 0) throw new ViewStateError('exp lists no expiry');
	if (list.length > MAX_EXPIRIES) {
		throw new ViewStateError(`exp lists ${list.length} expiries; at most ${MAX_EXPIRIES}`);
	}
	for (const e of list) {
		if (!isIsoDate(e)) throw new ViewStateError(`exp '${e}' is not a YYYY-MM-DD date`);
	}
	return list.sort();
}

function oneOf<T extends string>(name: string, raw: string, allowed: readonly T[]): T {
	if (!(allowed as readonly string[]).includes(raw)) {
		throw new ViewStateError(`${name} must be one of ${allowed.join(', ')}, got '${raw}'`);
	}
	return raw as T;
}

/** The research view of `/<ticker>/research/<metric>?<search>`; throws ViewStateError. */
export function parseResearchView(
	ticker: string,
	metric: string,
	search: URLSearchParams
): ResearchViewState {
	if (!isResearchTicker(ticker)) {
		throw new ViewStateError(`'${ticker}' is not a ticker (1-10 letters, digits, _ ^ .)`);
	}
	if (!isResearchMetric(metric)) {
		throw new ViewStateError(
			`unknown research metric '${metric}' (e.g. iv_mid, gex_oi, vex_both, charm_ex_vol, ${CHAIN_METRICS[3]})`
		);
	}
	const seen = new Set<string>();
	for (const name of search.keys()) {
		if (!KNOWN.has(name)) {
			throw new ViewStateError(
				`unknown parameter '${name}' (known: ${[...FILTER_NAMES, ...VIEW_PARAMS].join(', ')})`
			);
		}
		if (seen.has(name)) throw new ViewStateError(`parameter '${name}' is given twice`);
		seen.add(name);
	}
	const get = (name: string) => search.get(name);

	const filters: ResearchFilters = {};
	for (const name of NUMBER_FILTERS) {
		const raw = get(name);
		if (raw === null) continue;
		filters[name] =
			name === 'strikes'
				? parseInteger(name, raw, 1, MAX_STRIKES)
				: parseInteger(name, raw, 0, MAX_DTE);
	}
	if (
		filters.start_dte !== undefined &&
		filters.end_dte !== undefined &&
		filters.start_dte > filters.end_dte
	) {
		throw new ViewStateError(
			`start_dte ${filters.start_dte} must not be after end_dte ${filters.end_dte}`
		);
	}
	const exp = get('expiration_filter');
	if (exp !== null) filters.expiration_filter = parseExpirationFilter(exp);
	const cf = get('contract_filter');
	if (cf !== null) filters.contract_filter = oneOf('contract_filter', cf, CONTRACT_FILTERS);
	const mf = get('moneyness_filter');
	if (mf !== null) filters.moneyness_filter = oneOf('moneyness_filter', mf, MONEYNESS_FILTERS);
	for (const name of BOOLEAN_FILTERS) {
		const raw = get(name);
		if (raw === null) continue;
		filters[name] = oneOf(name, raw, ['true', 'false'] as const) === 'true';
	}

	const viewRaw = get('view');
	const view =
		viewRaw === null ? defaultDisplay(metric) : oneOf('view', viewRaw, RESEARCH_DISPLAYS);
	if (!displaysFor(metric).includes(view)) {
		throw new ViewStateError(
			`${metric} is one level per expiry: it has no ${view} view (use view=term)`
		);
	}
	const axisRaw = get('axis');
	const axis =
		axisRaw === null ? 'strike' : oneOf('axis', axisRaw, ['strike', 'moneyness'] as const);
	const expRaw = get('exp');
	const themeRaw = get('theme');
	return {
		ticker: ticker.toUpperCase(),
		metric,
		view,
		filters,
		axis,
		expiries: expRaw === null ? null : parseExpiries(expRaw),
		theme: themeRaw === null ? null : oneOf('theme', themeRaw, ['dark', 'light'] as const)
	};
}

function filterEntries(filters: ResearchFilters): [string, string][] {
	const out: [string, string][] = [];
	for (const name of FILTER_NAMES) {
		const v = filters[name];
		if (v === undefined) continue;
		// Booleans at their default (false) stay out, so the URL is canonical.
		if (typeof v === 'boolean') {
			if (v) out.push([name, 'true']);
		} else out.push([name, String(v)]);
	}
	return out;
}

/** The canonical path and query of a research view state. */
export function researchViewUrl(s: ResearchViewState): string {
	const q = new URLSearchParams();
	if (s.view !== defaultDisplay(s.metric)) q.set('view', s.view);
	if (s.axis !== 'strike') q.set('axis', s.axis);
	if (s.expiries) q.set('exp', [...s.expiries].sort().join(','));
	for (const [k, v] of filterEntries(s.filters)) q.set(k, v);
	if (s.theme) q.set('theme', s.theme);
	const query = q.toString().replaceAll('%2C', ',');
	return `/${s.ticker}/research/${s.metric}${query ? `?${query}` : ''}`;
}

/**
 * The /api path (relative to /api) of the dataset a view draws: JSON, the upstream view the
 * display needs, and the filters. Skew expiries and the surface axis are drawn client-side from
 * the same dataset, so changing them costs no research quota.
 */
export function researchApiPath(s: ResearchViewState): string {
	const q = new URLSearchParams({ format: 'json' });
	if (s.view !== 'strikes') q.set('view', s.view);
	for (const [k, v] of filterEntries(s.filters)) q.set(k, v);
	q.sort();
	return `research/${s.ticker}/${s.metric}?${q.toString()}`;
}
