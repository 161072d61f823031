/**
 * The seam between the simulated market (src/service/market, engine, history) and the
 * service's network faces (src/service/http for REST, src/service/hubs for WebSocket).
 *
 * The market side computes every payload once per simulated second and keeps it as ready
 * JSON bytes, so every request within one second is answered with byte-identical data and
 * no request ever recomputes analytics.
 */

import type { CanonicalCategory, Greek, PackageName } from '../lib/contract/categories';
import type { FuturesConversionBody } from '../lib/contract/schemas';

/** Packages, categories and greeks are the contract's: a rename there breaks the service too. */
export type { CanonicalCategory, Greek, PackageName } from '../lib/contract/categories';

/** One computed payload: the JSON object and its serialised bytes (served as-is). */
export interface Payload<T = unknown> {
	/** Unix seconds of the calculation (simulated clock). */
	timestamp: number;
	value: T;
	/** `JSON.stringify(value)` as UTF-8, computed once. */
	body: Buffer;
}

export type FuturesConversion = FuturesConversionBody;

/** Everything one calculation second produced, handed to tick listeners (the hubs). */
export interface TickEvent {
	/** Unix seconds of this calculation. */
	timestamp: number;
	/** Per ticker: its spot for this second and the payload of every category computed. */
	tickers: Map<
		string,
		{
			spot: number;
			/** key `${package}/${canonical category}`, e.g. `classic/gex_full`, `state/gamma_zero`, `orderflow/orderflow`. */
			payloads: Map<string, Payload>;
			/**
			 * Explicit-expiry payloads, present only on 5 s ticks: greek profiles keyed
			 * `${greek}_${YYYYMMDD}`, single-expiry GEX chains `gex_${YYYYMMDD}` and orderflow
			 * `orderflow_${YYYYMMDD}`.
			 */
			expiryPayloads?: Map<string, Payload>;
		}
	>;
}

export class HistoryUnavailableError extends Error {
	constructor(
		message: string,
		/** HTTP status the REST layer should answer with. */
		readonly status: 400 | 404 | 503 | 504
	) {
		super(message);
	}
}

/**
 * A history day that is not ready yet: queued behind other generations (answered at once, with
 * its place and an estimated wait) or still being generated past the client-facing bound.
 */
export class HistoryPendingError extends HistoryUnavailableError {
	constructor(
		message: string,
		readonly pending: {
			state: 'queued' | 'generating';
			/** 1-based place in the queue (0 while generating). */
			position: number;
			/** Fraction of the generation done. */
			progress: number;
			/** Estimated seconds until the day is ready. */
			etaSeconds: number;
		}
	) {
		super(message, 504);
	}
}

/** A complete history day on disk: one gzip file per category (see history/tickerDayFiles). */
export interface HistoryDayFile {
	file: string;
	/** Bytes and CRC-32 of the gzip file. */
	size: number;
	crc: number;
}

/** One quoted contract of a research chain (quotes at the 15-minute floor). */
export interface ResearchContract {
	/** `YYYY-MM-DD` */
	expiry: string;
	/** Calendar time to expiry in years (calendar days / 365). */
	expiry_years: number;
	strike: number;
	right: 'C' | 'P';
	bid: number;
	ask: number;
	open_interest: number;
	volume: number;
}

export interface ResearchChain {
	timestamp: number;
	ticker: string;
	spot: number;
	rate: number;
	dividend_yield: number;
	contracts: ResearchContract[];
}

/** What the market side offers the REST and hub layers. Implemented in src/service/simulatedMarket.ts. */
export interface MarketSource {
	/** Current simulated time. */
	now(): Date;
	/**
	 * Regular trading hours at `at` (default now): 09:30 to the close (16:00; 13:00 on NYSE
	 * early-close days) America/New_York, trading days only.
	 */
	isOpen(at?: Date): boolean;
	/** The public universe, as GET /v2/tickers answers it. */
	tickers(): { stocks: string[]; indexes: string[]; futures: string[] };
	/** The WebSocket-only universe, as GET /tickers/quant answers it. */
	quantTickers(): { stocks: string[]; indexes: string[] };
	/** Is the ticker known (public or quant universe)? */
	hasTicker(ticker: string): boolean;
	/** Latest chain / greek profile / orderflow / volume payload; undefined for an unknown ticker. */
	snapshot(ticker: string, pkg: PackageName, category: CanonicalCategory): Payload | undefined;
	majors(ticker: string, pkg: PackageName, category: CanonicalCategory): Payload | undefined;
	maxchange(ticker: string, pkg: PackageName, category: CanonicalCategory): Payload | undefined;
	/** Option expiries from today (ET) through today + 90 days, `YYYY-MM-DD`. */
	expiries(ticker: string): string[];
	/** Latest explicit-expiry greek profile (state greeks for one expiry). */
	expirySnapshot(ticker: string, greek: Greek, expiry: string): Payload | undefined;
	/** undefined when the pair is not served (the REST layer answers 400). */
	futuresConversion(ticker: string, future: string): FuturesConversion | undefined;
	/**
	 * A whole day of snapshots as JSON array bytes: the live day so far, a stored day, or a past
	 * day simulated on demand (waits for the generation; rejects with HistoryUnavailableError
	 * past its bound or for dates outside the 90-day window).
	 */
	history(
		ticker: string,
		pkg: PackageName,
		category: CanonicalCategory,
		date: string,
		signal?: AbortSignal
	): Promise<Buffer>;
	/**
	 * Optional: the gzip day file of a complete day (after generating it if needed, with the
	 * same waits and errors as history()), or undefined for the live day, which only history()
	 * serves. Lets the REST layer stream a day instead of holding it.
	 */
	historyFile?(
		ticker: string,
		pkg: PackageName,
		category: CanonicalCategory,
		date: string,
		signal?: AbortSignal
	): Promise<HistoryDayFile | undefined>;
	/**
	 * Optional: the gzip day files of every requested package category of a complete day from
	 * one generation (the EOD report streams them as stored zip members), keyed `pkg/category`
	 * (a State GEX chain and the classic one can differ: see the payload profiles).
	 */
	historyDayFiles?(
		ticker: string,
		items: readonly { pkg: PackageName; category: CanonicalCategory }[],
		date: string,
		signal?: AbortSignal
	): Promise<Map<string, HistoryDayFile>>;
	/** The newest completed session date (ET), `YYYY-MM-DD`, for the EOD report. */
	lastCompletedSession(): string;
	/**
	 * The chain research routes compute from: quotes at the 15-minute floor in RTH, the previous
	 * session's close outside it. undefined for an unknown ticker.
	 */
	researchChain(ticker: string): ResearchChain | undefined;
	/** Subscribe to calculation ticks; returns the unsubscribe function. */
	onTick(listener: (tick: TickEvent) => void): () => void;
}
