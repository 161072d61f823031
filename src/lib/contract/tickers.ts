/**
 * The ticker universe of the upstream service (GEXBot API v2).
 *
 * GET /v2/tickers answers `{stocks, indexes, futures}`. The documentation lists four cash
 * indexes, six "variants" and 53 stocks but does not say which list each variant goes in.
 * Decision: the two futures-adjusted composites (ES_SPX, NQ_NDX, "pre-adjusted to front-month
 * futures prices") are `futures`; the weekly / micro index roots (NDXP, RUTW, SPXW, VIXW) are
 * index series and go in `indexes` after the four cash indexes.
 *
 * GET /tickers/quant lists the WebSocket-only universe; its stock list is the OpenAPI file's
 * `quant_stock_ticker` enum (2.3.0) and its only index is XSP.
 */

export const CASH_INDEXES = ['NDX', 'RUT', 'SPX', 'VIX'] as const;
/** Weekly and micro index series: listed among the indexes. */
export const INDEX_VARIANTS = ['NDXP', 'RUTW', 'SPXW', 'VIXW'] as const;
/** Composite index feeds pre-adjusted to the front-month future by a live basis. */
export const FUTURES_ADJUSTED = ['ES_SPX', 'NQ_NDX'] as const;

export const STOCKS = [
	'AAPL', 'AMD', 'AMZN', 'APP', 'AVGO', 'BABA', 'BOIL', 'COIN', 'CRWD', 'CRWV', 'DDOG', 'DIA',
	'GLD', 'GME', 'GOOG', 'GOOGL', 'HOOD', 'HYG', 'IBIT', 'INTC', 'IONQ', 'IWM', 'META', 'MSFT',
	'MSTR', 'MU', 'NFLX', 'NVDA', 'NVO', 'ORCL', 'PL', 'PLTR', 'QQQ', 'RDDT', 'ROKU', 'SHOP', 'SLV',
	'SMCI', 'SNDK', 'SNOW', 'SOFI', 'SPY', 'TLT', 'TQQQ', 'TSLA', 'TSM', 'UBER', 'UNG', 'UNH', 'USO',
	'UVXY', 'VALE', 'ZS'
] as const; // prettier-ignore

/** WebSocket-only stocks (OpenAPI 2.3.0 `quant_stock_ticker`). */
export const QUANT_STOCKS = [
	'SOXL', 'LLY', 'FUTU', 'MARA', 'PYPL', 'F', 'ETHA', 'EXK', 'HIMS', 'PINS', 'NKE', 'IREN', 'RIVN',
	'IEF', 'MTCH', 'SBSW', 'RIOT', 'ONDS', 'CRM', 'PFE', 'TSLL', 'TGT', 'NXE', 'WMT', 'BMNR', 'CIFR',
	'TTD', 'SMR', 'XLF', 'WULF', 'DRAM', 'BE', 'NBIS', 'OXY', 'XLE', 'GDX', 'SMH', 'JPM', 'BAC', 'WFC',
	'C', 'GS', 'MS', 'SCHW', 'AXP', 'V', 'MA', 'CME', 'CBOE', 'NDAQ'
] as const; // prettier-ignore

/** WebSocket-only indexes. */
export const QUANT_INDEXES = ['XSP'] as const;

export type Stock = (typeof STOCKS)[number];
export type CashIndex = (typeof CASH_INDEXES)[number];
export type IndexVariant = (typeof INDEX_VARIANTS)[number];
export type FuturesAdjusted = (typeof FUTURES_ADJUSTED)[number];
/** A ticker served by the REST snapshot, history and EOD routes. */
export type Ticker = Stock | CashIndex | IndexVariant | FuturesAdjusted;
export type QuantTicker = (typeof QUANT_STOCKS)[number] | (typeof QUANT_INDEXES)[number];
/** A ticker that may appear in a WebSocket group name. */
export type StreamTicker = Ticker | QuantTicker;

export interface TickersResponse {
	stocks: string[];
	indexes: string[];
	futures: string[];
}

export interface QuantTickersResponse {
	stocks: string[];
	indexes: string[];
}

/** The body of GET /v2/tickers (fresh arrays, safe to mutate). */
export function tickersResponse(): TickersResponse {
	return {
		stocks: [...STOCKS],
		indexes: [...CASH_INDEXES, ...INDEX_VARIANTS],
		futures: [...FUTURES_ADJUSTED]
	};
}

/** The body of GET /tickers/quant (fresh arrays). */
export function quantTickersResponse(): QuantTickersResponse {
	return { stocks: [...QUANT_STOCKS], indexes: [...QUANT_INDEXES] };
}

const REST_SET: ReadonlySet<string> = new Set<string>([
	...STOCKS,
	...CASH_INDEXES,
	...INDEX_VARIANTS,
	...FUTURES_ADJUSTED
]);
const QUANT_SET: ReadonlySet<string> = new Set<string>([...QUANT_STOCKS, ...QUANT_INDEXES]);
const INDEX_SET: ReadonlySet<string> = new Set<string>([
	...CASH_INDEXES,
	...INDEX_VARIANTS,
	...FUTURES_ADJUSTED,
	...QUANT_INDEXES
]);
/**
 * Canonical option-owning tickers (OpenAPI `option_ticker`): the ones an option chain and an
 * expiry calendar belong to. Variants are derived series of an index and are not listed.
 */
const OPTION_SET: ReadonlySet<string> = new Set<string>([
	...STOCKS,
	...CASH_INDEXES,
	...QUANT_STOCKS,
	...QUANT_INDEXES
]);

/** Every ticker of the REST universe (public list), in the order of GET /v2/tickers. */
export const ALL_TICKERS: readonly Ticker[] = [
	...STOCKS,
	...CASH_INDEXES,
	...INDEX_VARIANTS,
	...FUTURES_ADJUSTED
];
/** REST universe plus the WebSocket-only tickers. */
export const ALL_STREAM_TICKERS: readonly StreamTicker[] = [
	...ALL_TICKERS,
	...QUANT_STOCKS,
	...QUANT_INDEXES
];

/** A ticker of the public REST universe (case-sensitive: upstream symbols are upper case). */
export function isTicker(value: unknown): value is Ticker {
	return typeof value === 'string' && REST_SET.has(value);
}

/** A WebSocket-only (Quant) ticker. */
export function isQuantTicker(value: unknown): value is QuantTicker {
	return typeof value === 'string' && QUANT_SET.has(value);
}

/** Any ticker that may appear in a WebSocket group (REST universe or Quant-only). */
export function isStreamTicker(value: unknown): value is StreamTicker {
	return isTicker(value) || isQuantTicker(value);
}

/** A canonical option-owning ticker, as GET /v2/options/{ticker}/expiries accepts. */
export function isOptionTicker(value: unknown): value is StreamTicker {
	return typeof value === 'string' && OPTION_SET.has(value);
}

/** Index-like tickers (cash indexes, variants, futures composites, XSP); the rest are stocks/ETFs. */
export function isIndexTicker(value: string): boolean {
	return INDEX_SET.has(value);
}

/**
 * The option-owning ticker behind a variant: SPXW, ES_SPX -> SPX; NDXP, NQ_NDX -> NDX;
 * RUTW -> RUT; VIXW -> VIX. Any other ticker is its own underlying.
 */
export function underlyingOf(ticker: string): string {
	switch (ticker) {
		case 'SPXW':
		case 'ES_SPX':
			return 'SPX';
		case 'NDXP':
		case 'NQ_NDX':
			return 'NDX';
		case 'RUTW':
			return 'RUT';
		case 'VIXW':
			return 'VIX';
		default:
			return ticker;
	}
}

/**
 * Research routes accept any symbol of 1-10 characters of [A-Za-z0-9_^.] (OpenAPI
 * `research_ticker`); whether data exists is the service's business.
 */
export function isResearchTicker(value: unknown): value is string {
	return typeof value === 'string' && /^[a-zA-Z0-9_^.]{1,10}$/.test(value);
}
