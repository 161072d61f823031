/**
 * The simulated market behind the embedded service: `createMarket()` returns a MarketSource
 * (src/service/source.ts) that the REST and hub layers read, plus `start()` / `stop()` for the
 * per-second engine loop.
 */
import { availableParallelism } from 'node:os';
import type { PayloadProfile } from './engine/profiles';
import {
	isOptionTicker,
	quantTickersResponse,
	tickersResponse,
	underlyingOf
} from '../lib/contract/tickers';
import { isCalendarDate, isCompactDate } from '../lib/contract/dates';
import { isRegularTradingHours } from '../lib/contract/newYorkTime';
import type {
	CanonicalCategory,
	FuturesConversion,
	Greek,
	HistoryDayFile,
	MarketSource,
	PackageName,
	Payload,
	ResearchChain,
	TickEvent
} from './source';
import {
	SessionClock,
	etParts,
	lastCompletedSession,
	marketPosition,
	type ClockMode
} from './market/clock';
import { listExpiries } from './market/calendar';
import { futuresConversionAt } from './market/futuresBasis';
import { HistoryStore } from './history/historyStore';
import { LiveEngine } from './engine/live';
import { servedTickers, tickerModel, viewOf } from './market/universe';

export interface MarketOptions {
	seed: number;
	clock: ClockMode;
	/** Simulated start instant (the clock then runs linearly at `speed`). */
	start?: Date;
	speed?: number;
	/** Where generated history days are cached (gzip files). */
	dataDir: string;
	/** Restrict the simulated universe (tests, benchmarks); default: every served ticker. */
	tickers?: string[];
	/** Wall-clock source (unix ms), for tests. */
	wall?: () => number;
	/** Longest a history request waits for an on-demand generation (default 60 s). */
	historyWaitMs?: number;
	/** Shape of the State payloads: `observed` (default, as the live service) or `documented`. */
	payloads?: PayloadProfile;
	/**
	 * History generations running at once (default: GEXDECK_HISTORY_JOBS, else 1); the rest
	 * wait in one queue.
	 */
	historyConcurrency?: number;
	/**
	 * Processes that write one history day together, each serialising a share of the categories
	 * (default 2 on a machine with two or more cores, else 1 = inside the service's process).
	 */
	historyProcesses?: number;
	/**
	 * Tickers whose day is generated in the background after each close, so the EOD report and
	 * history after the close are file reads (default SPX, SPY, QQQ where served; [] for none).
	 */
	eodTickers?: string[];
}

/** Tickers prepared after each close unless the options say otherwise. */
export const DEFAULT_EOD_TICKERS = ['SPX', 'SPY', 'QQQ'];
/** How often the market looks for a close to prepare after (wall ms). */
const CLOSE_CHECK_MS = 5_000;

function historyConcurrency(option: number | undefined): number {
	if (option !== undefined) return option;
	const env = process.env.GEXDECK_HISTORY_JOBS;
	if (env === undefined || env === '') return 1;
	const n = Number(env);
	if (!Number.isInteger(n) || n < 1 || n > 8)
		throw new RangeError(`GEXDECK_HISTORY_JOBS must be an integer from 1 to 8, got ${env}`);
	return n;
}

export interface Market extends MarketSource {
	/** Compute the current second (and catch up to it) and start the per-second loop. */
	start(): Promise<void>;
	stop(): void;
	readonly seed: number;
	/** Always offered here (see MarketSource). */
	historyFile: NonNullable<MarketSource['historyFile']>;
	historyDayFiles: NonNullable<MarketSource['historyDayFiles']>;
	/** The history generations' queue (tests, benchmarks). */
	readonly historyQueue: HistoryStore['queue'];
	/**
	 * Generate the given session's days for the EOD tickers in the background (what the market
	 * does by itself after each close); resolves when they are on disk.
	 */
	prepareEod(date?: string): Promise<void>;
}

export async function createMarket(options: MarketOptions): Promise<Market> {
	if (!Number.isInteger(options.seed))
		throw new RangeError(`seed must be an integer, got ${options.seed}`);
	const clock = new SessionClock({
		mode: options.clock,
		start: options.start,
		speed: options.speed,
		wall: options.wall
	});
	const universe = options.tickers ?? servedTickers();
	for (const t of universe) if (!viewOf(t)) throw new RangeError(`unknown ticker ${t}`);
	const live = new LiveEngine(options.seed, universe, clock, options.payloads);
	const history = new HistoryStore({
		seed: options.seed,
		dataDir: options.dataDir,
		waitMs: options.historyWaitMs ?? 60_000,
		now: () => clock.nowMs(),
		live,
		profile: options.payloads,
		concurrency: historyConcurrency(options.historyConcurrency),
		processes: options.historyProcesses ?? (availableParallelism() >= 2 ? 2 : 1)
	});
	await history.init();
	const eodTickers = (options.eodTickers ?? DEFAULT_EOD_TICKERS).filter((t) =>
		universe.includes(t)
	);
	return new SimulatedMarket(options.seed, clock, live, history, universe, eodTickers);
}

class SimulatedMarket implements Market {
	private readonly served: Set<string>;

	constructor(
		readonly seed: number,
		private readonly clock: SessionClock,
		private readonly live: LiveEngine,
		private readonly historyStore: HistoryStore,
		universe: string[],
		private readonly eodTickers: string[]
	) {
		this.served = new Set(universe);
	}

	get historyQueue(): HistoryStore['queue'] {
		return this.historyStore.queue;
	}

	private closeWatch?: NodeJS.Timeout;
	private wasOpen = false;

	async start(): Promise<void> {
		await this.live.start();
		this.wasOpen = this.isOpen();
		if (this.eodTickers.length === 0) return;
		// After each close (not at start: a restart must not cost minutes of engine work), the
		// day is prepared in the background, behind any request.
		this.closeWatch = setInterval(() => {
			const open = this.isOpen();
			if (this.wasOpen && !open) void this.prepareEod();
			this.wasOpen = open;
		}, CLOSE_CHECK_MS);
		this.closeWatch.unref();
	}

	stop(): void {
		this.live.stop();
		if (this.closeWatch) clearInterval(this.closeWatch);
		this.closeWatch = undefined;
	}

	async prepareEod(date = this.lastCompletedSession()): Promise<void> {
		await Promise.all(this.eodTickers.map((t) => this.historyStore.prepare(t, date)));
	}

	now(): Date {
		return this.clock.now();
	}

	isOpen(at?: Date): boolean {
		return isRegularTradingHours((at ?? this.clock.now()).getTime());
	}

	tickers(): { stocks: string[]; indexes: string[]; futures: string[] } {
		return tickersResponse();
	}

	quantTickers(): { stocks: string[]; indexes: string[] } {
		return quantTickersResponse();
	}

	hasTicker(ticker: string): boolean {
		return this.served.has(ticker);
	}

	snapshot(ticker: string, pkg: PackageName, category: CanonicalCategory): Payload | undefined {
		return this.live.latest(ticker)?.payloads.get(`${pkg}/${category}`);
	}

	majors(ticker: string, pkg: PackageName, category: CanonicalCategory): Payload | undefined {
		return this.live.latest(ticker)?.majors.get(`${pkg}/${category}`);
	}

	maxchange(ticker: string, pkg: PackageName, category: CanonicalCategory): Payload | undefined {
		return this.live.latest(ticker)?.maxchange.get(`${pkg}/${category}`);
	}

	expiries(ticker: string): string[] {
		const source = sourceOf(ticker);
		if (!source) return [];
		const today = etParts(this.clock.nowMs()).date;
		return listExpiries(tickerModel(source).calendar, today);
	}

	expirySnapshot(ticker: string, greek: Greek, expiry: string): Payload | undefined {
		const compact = isCalendarDate(expiry) ? expiry.replaceAll('-', '') : expiry;
		if (!isCompactDate(compact)) return undefined;
		return this.live.latestExpiry(ticker)?.get(`${greek}_${compact}`);
	}

	futuresConversion(ticker: string, future: string): FuturesConversion | undefined {
		const pos = marketPosition(this.clock.nowMs());
		return futuresConversionAt(this.seed, ticker, future, pos.date, pos.tick);
	}

	history(
		ticker: string,
		pkg: PackageName,
		category: CanonicalCategory,
		date: string,
		signal?: AbortSignal
	): Promise<Buffer> {
		return this.historyStore.get(ticker, pkg, category, date, signal);
	}

	historyFile(
		ticker: string,
		pkg: PackageName,
		category: CanonicalCategory,
		date: string,
		signal?: AbortSignal
	): Promise<HistoryDayFile | undefined> {
		return this.historyStore.file(ticker, pkg, category, date, signal);
	}

	historyDayFiles(
		ticker: string,
		items: readonly { pkg: PackageName; category: CanonicalCategory }[],
		date: string,
		signal?: AbortSignal
	): Promise<Map<string, HistoryDayFile>> {
		return this.historyStore.files(ticker, items, date, signal);
	}

	lastCompletedSession(): string {
		return lastCompletedSession(this.clock.nowMs());
	}

	researchChain(ticker: string): ResearchChain | undefined {
		const source = sourceOf(ticker);
		if (!source) return undefined;
		return this.live.researchChain(source, ticker);
	}

	onTick(listener: (tick: TickEvent) => void): () => void {
		return this.live.onTick(listener);
	}
}

/** Simulated chain behind a served or option ticker. */
function sourceOf(ticker: string): string | undefined {
	const view = viewOf(ticker);
	if (view) return view.source;
	return isOptionTicker(ticker) ? underlyingOf(ticker) : undefined;
}

export { HistoryUnavailableError } from './source';
