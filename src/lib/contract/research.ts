/**
 * Research routes: GET /v2/research/{ticker}/{metric} and its query parameters (OpenAPI 2.3.0).
 * Metrics are built from their documented families instead of a 123-line literal so the
 * naming rule stays visible: `<greek>_<bid|ask|mid>`, `<greek>_ex_<oi|vol|both>[_skew_adj]`,
 * `<dex|gex|tex|vex>_<oi|vol|both>[_skew_adj]`, plus chain-level metrics.
 */
import type { Outcome } from './outcome';

/** Greeks and prices quoted per side of the book. */
export const QUOTE_GREEKS = [
	'charm', 'color', 'delta', 'gamma', 'iv', 'rho', 'speed', 'theta', 'ultima', 'vanna', 'vega',
	'vomma', 'zomma'
] as const; // prettier-ignore
export const QUOTE_SIDES = ['bid', 'ask', 'mid'] as const;
/** Greeks whose exposure is named `<greek>_ex_<basis>`. */
export const EXPOSURE_GREEKS = [
	'charm', 'color', 'rho', 'speed', 'ultima', 'vanna', 'vomma', 'zomma'
] as const; // prettier-ignore
/** Exposures with their own short names (delta, gamma, theta, vega exposure). */
export const NAMED_EXPOSURES = ['dex', 'gex', 'tex', 'vex'] as const;
export const EXPOSURE_BASES = ['oi', 'vol', 'both'] as const;
export const CHAIN_METRICS = [
	'gamma_wall_abs', 'intrinsic_value', 'last_price', 'max_pain', 'open_interest', 'oi', 'gamma_flip',
	'parity', 'put_call_parity', 'time_value', 'volatility_trigger', 'volume'
] as const; // prettier-ignore

function withBases(stem: string): string[] {
	return EXPOSURE_BASES.flatMap((b) => [`${stem}_${b}`, `${stem}_${b}_skew_adj`]);
}

/** All 123 documented research metrics. */
export const RESEARCH_METRICS: readonly string[] = [
	...QUOTE_GREEKS.flatMap((g) => QUOTE_SIDES.map((s) => `${g}_${s}`)),
	...EXPOSURE_GREEKS.flatMap((g) => withBases(`${g}_ex`)),
	...NAMED_EXPOSURES.flatMap((e) => withBases(e)),
	...CHAIN_METRICS
];
const METRIC_SET: ReadonlySet<string> = new Set(RESEARCH_METRICS);

export function isResearchMetric(value: unknown): value is string {
	return typeof value === 'string' && METRIC_SET.has(value);
}

export const RESEARCH_FORMATS = ['png', 'jpeg', 'svg', 'pdf', 'json', 'csv', 'webp'] as const;
export const RESEARCH_VIEWS = ['skew', 'term', 'surface'] as const;
export const RESEARCH_CHART_TYPES = ['line', 'histogram', 'scatter', 'bar'] as const;
export const RESEARCH_THEMES = ['light', 'dark'] as const;
export const CONTRACT_FILTERS = ['calls', 'puts', 'all'] as const;
export const MONEYNESS_FILTERS = ['atm', 'itm', 'ntm', 'otm'] as const;

export type ResearchFormat = (typeof RESEARCH_FORMATS)[number];
export type ResearchView = (typeof RESEARCH_VIEWS)[number];

export interface ResearchQuery {
	format?: ResearchFormat;
	view?: ResearchView;
	type?: (typeof RESEARCH_CHART_TYPES)[number];
	theme?: (typeof RESEARCH_THEMES)[number];
	strikes?: number;
	start_dte?: number;
	end_dte?: number;
	expiration_filter?: string;
	contract_agg?: boolean;
	expiry_agg?: boolean;
	skew_adj?: boolean;
	limit_y?: boolean;
	contract_filter?: (typeof CONTRACT_FILTERS)[number];
	moneyness_filter?: (typeof MONEYNESS_FILTERS)[number];
}

const ENUM_PARAMS: Readonly<Record<string, readonly string[]>> = {
	format: RESEARCH_FORMATS,
	view: RESEARCH_VIEWS,
	type: RESEARCH_CHART_TYPES,
	theme: RESEARCH_THEMES,
	contract_filter: CONTRACT_FILTERS,
	moneyness_filter: MONEYNESS_FILTERS
};
const NUMBER_PARAMS = ['strikes', 'start_dte', 'end_dte'] as const;
const BOOLEAN_PARAMS = ['contract_agg', 'expiry_agg', 'skew_adj', 'limit_y'] as const;
const STRING_PARAMS = ['expiration_filter'] as const;

/**
 * Validates the research query. Unknown parameters are refused so that the dashboard's proxy
 * never forwards something the contract does not name.
 */
export function parseResearchQuery(query: URLSearchParams): Outcome<{ value: ResearchQuery }> {
	const value: Record<string, unknown> = {};
	for (const [name, raw] of query) {
		if (Object.hasOwn(value, name))
			return { ok: false, error: `Repeated query parameter ${name}.` };
		if (Object.hasOwn(ENUM_PARAMS, name)) {
			if (!ENUM_PARAMS[name].includes(raw)) {
				return {
					ok: false,
					error: `Invalid ${name} '${raw}': expected one of ${ENUM_PARAMS[name].join(', ')}.`
				};
			}
			value[name] = raw;
		} else if ((NUMBER_PARAMS as readonly string[]).includes(name)) {
			const n = Number(raw);
			if (raw.trim() === '' || !Number.isFinite(n)) {
				return { ok: false, error: `Invalid ${name} '${raw}': expected a number.` };
			}
			value[name] = n;
		} else if ((BOOLEAN_PARAMS as readonly string[]).includes(name)) {
			if (raw !== 'true' && raw !== 'false') {
				return { ok: false, error: `Invalid ${name} '${raw}': expected true or false.` };
			}
			value[name] = raw === 'true';
		} else if ((STRING_PARAMS as readonly string[]).includes(name)) {
			if (raw.length > 200) return { ok: false, error: `Query parameter ${name} is too long.` };
			value[name] = raw;
		} else {
			return { ok: false, error: `Unknown query parameter ${name}.` };
		}
	}
	return { ok: true, value: value as ResearchQuery };
}

// The JSON of GET /research/{ticker}/{metric}?format=json. The upstream documents only the
// query; this is the shape the embedded service answers and the dashboard's views read.

/** Which side a research row aggregates: calls, puts, or both. */
export type ContractType = 'call' | 'put' | 'all';

export interface TableRow {
	expiry: string;
	dte: number;
	strike: number;
	type: ContractType;
	value: number;
}

export interface LevelRow {
	expiry: string;
	dte: number;
	value: number | null;
}

/** One research answer: a table, skew series, term rows, a surface grid or chain levels. */
export interface ResearchResult {
	ticker: string;
	metric: string;
	timestamp: number;
	spot: number;
	view: 'table' | 'skew' | 'term' | 'surface' | 'level';
	rows?: TableRow[];
	series?: { expiry: string; dte: number; type: ContractType; points: [number, number][] }[];
	term?: { expiry: string; dte: number; type: ContractType; value: number }[];
	surface?: { strikes: number[]; expiries: string[]; dte: number[]; values: (number | null)[][] };
	level?: { value: number | null; expiries: LevelRow[] };
}
