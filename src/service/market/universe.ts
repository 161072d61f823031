/**
 * Per-ticker model parameters of the simulated market and the map from every served ticker to
 * the option chain that is actually simulated for it. Variants are views of their index's chain
 * (SPXW, ES_SPX -> SPX; NDXP, NQ_NDX -> NDX; RUTW -> RUT; VIXW -> VIX; XSP is SPX at 1/10 size),
 * so their numbers cost nothing extra and stay consistent with the index.
 */
import {
	ALL_STREAM_TICKERS,
	CASH_INDEXES,
	QUANT_STOCKS,
	STOCKS,
	underlyingOf
} from '../../lib/contract/tickers';
import { hashUniform } from './prng';

export type ExpiryCalendar = 'daily' | 'vix' | 'weekly' | 'monthly';

export interface TickerModel {
	ticker: string;
	kind: 'index' | 'etf' | 'stock';
	/** Level around which the path mean-reverts over months. */
	anchorSpot: number;
	/** Annualised at-the-money implied vol level. */
	vol: number;
	/** Market factor the path follows (its own symbol for a factor itself). */
	factor: 'SPX' | 'NDX' | 'RUT' | 'own';
	beta: number;
	dividendYield: number;
	calendar: ExpiryCalendar;
	/** Strike step near the money. */
	strikeStep: number;
	/** Relative open-interest size (SPX = 1). */
	size: number;
	/** SSVI correlation (skew): strongly negative for indexes, mild for stocks. */
	rho: number;
	/** Earnings-like event hump: extra total variance added to expiries after the event. */
	eventVariance: number;
}

export const RISK_FREE_RATE = 0.043;

type Row = [
	kind: TickerModel['kind'],
	spot: number,
	vol: number,
	factor: TickerModel['factor'],
	beta: number,
	calendar: ExpiryCalendar,
	size: number
];

/** Hand-set levels for the names whose scale matters to a reader; the rest are derived. */
const KNOWN: Record<string, Row> = {
	SPX: ['index', 7100, 0.15, 'own', 1, 'daily', 1],
	NDX: ['index', 25800, 0.19, 'own', 1, 'daily', 0.25],
	RUT: ['index', 2480, 0.21, 'own', 1, 'daily', 0.12],
	VIX: ['index', 16.5, 0.95, 'SPX', -4, 'vix', 0.2],
	SPY: ['etf', 708, 0.15, 'SPX', 1, 'daily', 0.6],
	QQQ: ['etf', 628, 0.19, 'NDX', 1, 'daily', 0.4],
	IWM: ['etf', 246, 0.21, 'RUT', 1, 'daily', 0.2],
	DIA: ['etf', 472, 0.14, 'SPX', 0.9, 'weekly', 0.03],
	TQQQ: ['etf', 98, 0.57, 'NDX', 3, 'weekly', 0.06],
	GLD: ['etf', 385, 0.19, 'own', 0, 'weekly', 0.08],
	SLV: ['etf', 46, 0.32, 'own', 0, 'weekly', 0.06],
	TLT: ['etf', 90, 0.13, 'own', -0.2, 'weekly', 0.06],
	HYG: ['etf', 80, 0.06, 'SPX', 0.3, 'monthly', 0.03],
	USO: ['etf', 72, 0.32, 'own', 0.2, 'weekly', 0.03],
	UNG: ['etf', 14, 0.55, 'own', 0, 'weekly', 0.02],
	BOIL: ['etf', 32, 1.05, 'own', 0, 'weekly', 0.02],
	UVXY: ['etf', 11, 0.95, 'SPX', -5, 'weekly', 0.03],
	IBIT: ['etf', 52, 0.5, 'own', 0.8, 'weekly', 0.08],
	AAPL: ['stock', 268, 0.25, 'NDX', 1.0, 'weekly', 0.2],
	NVDA: ['stock', 182, 0.45, 'NDX', 1.6, 'weekly', 0.35],
	TSLA: ['stock', 410, 0.58, 'NDX', 1.8, 'weekly', 0.35],
	MSFT: ['stock', 480, 0.24, 'NDX', 1.0, 'weekly', 0.12],
	AMZN: ['stock', 222, 0.32, 'NDX', 1.2, 'weekly', 0.15],
	META: ['stock', 590, 0.36, 'NDX', 1.3, 'weekly', 0.12],
	GOOGL: ['stock', 300, 0.3, 'NDX', 1.1, 'weekly', 0.12],
	GOOG: ['stock', 301, 0.3, 'NDX', 1.1, 'weekly', 0.06],
	AMD: ['stock', 210, 0.55, 'NDX', 1.7, 'weekly', 0.15],
	AVGO: ['stock', 345, 0.45, 'NDX', 1.5, 'weekly', 0.08],
	NFLX: ['stock', 110, 0.36, 'NDX', 1.1, 'weekly', 0.06],
	MSTR: ['stock', 190, 0.75, 'own', 1.8, 'weekly', 0.08],
	COIN: ['stock', 260, 0.7, 'own', 1.8, 'weekly', 0.06],
	PLTR: ['stock', 170, 0.62, 'NDX', 1.8, 'weekly', 0.1],
	UNH: ['stock', 325, 0.35, 'SPX', 0.6, 'weekly', 0.04],
	INTC: ['stock', 36, 0.55, 'NDX', 1.3, 'weekly', 0.05]
};

/** Calendar of the simulated chain behind each served ticker. */
const OPTION_OWNERS = [...STOCKS, ...CASH_INDEXES, ...QUANT_STOCKS] as readonly string[];

function derivedRow(ticker: string): Row {
	// Names without a hand-set row get a plausible price and vol from their symbol's hash, so the
	// universe is stable across runs without a table of 100 made-up numbers.
	const u = hashUniform(`price|${ticker}`);
	const v = hashUniform(`vol|${ticker}`);
	const spot = Math.round(Math.exp(Math.log(12) + u * Math.log(450 / 12)) * 100) / 100;
	const vol = 0.22 + v * 0.5;
	const factor: TickerModel['factor'] = v > 0.5 ? 'NDX' : 'SPX';
	return ['stock', spot, vol, factor, 0.8 + v, v > 0.25 ? 'weekly' : 'monthly', 0.015 + 0.03 * u];
}

function stockStep(spot: number): number {
	if (spot < 5) return 0.5;
	if (spot < 25) return 0.5;
	if (spot < 100) return 1;
	if (spot < 250) return 2.5;
	if (spot < 1000) return 5;
	return 10;
}

function build(ticker: string): TickerModel {
	const row = KNOWN[ticker] ?? derivedRow(ticker);
	const [kind, anchorSpot, vol, factor, beta, calendar, size] = row;
	const isIndex = kind === 'index';
	const step =
		ticker === 'SPX'
			? 5
			: ticker === 'NDX'
				? 25
				: ticker === 'RUT'
					? 5
					: ticker === 'VIX'
						? 0.5
						: kind === 'etf' && calendar === 'daily'
							? 1
							: stockStep(anchorSpot);
	return {
		ticker,
		kind,
		anchorSpot,
		vol,
		factor,
		beta,
		dividendYield: isIndex ? (ticker === 'VIX' ? 0 : 0.012) : kind === 'etf' ? 0.01 : 0.004,
		calendar,
		strikeStep: step,
		size,
		rho: ticker === 'VIX' ? 0.55 : isIndex ? -0.72 : kind === 'etf' ? -0.45 : -0.25,
		eventVariance: kind === 'stock' ? vol * vol * 0.012 : 0
	};
}

const MODELS = new Map<string, TickerModel>();
for (const t of OPTION_OWNERS) MODELS.set(t, build(t));

/** Model of an option-owning (simulated) ticker. */
export function tickerModel(ticker: string): TickerModel {
	const model = MODELS.get(ticker);
	if (!model) throw new RangeError(`no simulated chain for ticker ${ticker}`);
	return model;
}

/** How a served ticker's payloads are obtained from a simulated chain. */
export interface TickerView {
	ticker: string;
	/** Simulated chain it is a view of. */
	source: string;
	/** Strike / spot scale (XSP = SPX / 10). */
	scale: number;
	/** Exposure scale for a view with its own (smaller) open interest. */
	exposureScale: number;
	/** Futures root whose basis shifts levels (ES_SPX, NQ_NDX). */
	futuresShift?: 'ES' | 'NQ';
}

export function viewOf(ticker: string): TickerView | undefined {
	if (ticker === 'XSP') return { ticker, source: 'SPX', scale: 0.1, exposureScale: 0.004 };
	if (ticker === 'ES_SPX')
		return { ticker, source: 'SPX', scale: 1, exposureScale: 1, futuresShift: 'ES' };
	if (ticker === 'NQ_NDX')
		return { ticker, source: 'NDX', scale: 1, exposureScale: 1, futuresShift: 'NQ' };
	const source = underlyingOf(ticker);
	if (!MODELS.has(source)) return undefined;
	return { ticker, source, scale: 1, exposureScale: 1 };
}

/** Every served ticker (REST universe plus Quant-only), in GET /v2/tickers order. */
export function servedTickers(): string[] {
	return ALL_STREAM_TICKERS.filter((t) => viewOf(t) !== undefined);
}
