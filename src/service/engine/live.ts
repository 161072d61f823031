/**
 * The live engine loop: follows the session clock, advances every simulated chain one second at
 * a time, builds every served ticker's snapshot once per computed second and hands it to tick
 * listeners (the hubs). On a start or a jump (mid-session start, session-clock replay wrap, high
 * speed) it catches up: trades only until 30 minutes before the target second, then full steps,
 * which leaves exactly the state an uninterrupted run would have.
 */
import type { ResearchChain, TickEvent } from '../source';
import {
	OPEN_MINUTE,
	etParts,
	isTradingDay,
	marketPosition,
	type SessionClock
} from '../market/clock';
import { buildChain } from '../market/chainDay';
import { futuresConversionAt } from '../market/futuresBasis';
import { dropBuildCaches } from '../market/path';
import { viewOf } from '../market/universe';
import { buildSnapshot, type TickerSnapshot } from './tickerSnapshot';
import { TickerDay } from './tickerDay';
import { ResearchCapture } from './researchCapture';
import { DEFAULT_PAYLOAD_PROFILE, type PayloadProfile } from './profiles';
import type { ViewFormat } from './views';
import { errorText, log } from '../../lib/server/log';

/** Full steps needed before a payload: its longest lookback. */
export const LOOKBACK_SECONDS = 1800;
const RESEARCH_MARK = 900;
/** Research open interest is refreshed at 08:00 ET (the other feeds at 08:30). */
const RESEARCH_OI_MINUTE = 8 * 60;
const EXPIRY_FEED_EVERY = 5;

/** The view format of a served ticker at a tick of a session (ES_SPX moves with the basis). */
export function viewFormatAt(seed: number, ticker: string, date: string, tick: number): ViewFormat {
	const view = viewOf(ticker);
	if (!view) throw new RangeError(`unknown ticker ${ticker}`);
	let levelShift = 0;
	let strikeShift = 0;
	if (view.futuresShift) {
		const conv = futuresConversionAt(seed, view.source, view.futuresShift, date, tick);
		levelShift = conv ? conv.additive : 0;
		const step = view.source === 'NDX' ? 25 : 5;
		strikeShift = Math.round(levelShift / step) * step;
	}
	return { ticker, scale: view.scale, levelShift, strikeShift, exposureScale: view.exposureScale };
}

/**
 * Advance `day` to `target` with the catch-up rule; `onFull` sees every fully computed tick.
 * Stops early (returning false) once `deadline` (performance.now() ms) has passed.
 */
export function advanceDay(
	day: TickerDay,
	target: number,
	onFull?: (day: TickerDay) => void,
	deadline = Infinity
): boolean {
	const firstFull = Math.max(0, target - LOOKBACK_SECONDS);
	let n = 0;
	while (day.tick < target) {
		const mode = day.tick + 1 < firstFull ? 'trades' : 'rings';
		if (!day.step(mode)) break; // past the day's close
		if (mode === 'rings') onFull?.(day);
		if ((++n & 15) === 0 && performance.now() > deadline) return day.tick >= target;
	}
	return true;
}

/** Chains caught up first after a start, so the headline tickers serve within seconds. */
const PRIORITY = ['SPX', 'NDX', 'RUT', 'VIX', 'SPY', 'QQQ', 'IWM'];
/** Wall time per loop iteration spent catching up chains that are not live yet. */
const CATCH_UP_BUDGET_MS = 400;

function yieldToLoop(): Promise<void> {
	return new Promise((resolve) => setImmediate(resolve));
}

export class LiveEngine {
	/** Simulated chain -> the served tickers that are views of it. */
	private readonly sources = new Map<string, string[]>();
	private readonly days = new Map<string, TickerDay>();
	private readonly snapshots = new Map<string, TickerSnapshot>();
	private readonly expiryFeeds = new Map<string, TickerSnapshot['expiryPayloads']>();
	private readonly research = new Map<string, ResearchCapture>();
	private readonly listeners = new Set<(tick: TickEvent) => void>();
	private timer?: NodeJS.Timeout;
	private running = false;
	private stopped = true;
	/** Session date and tick the snapshots are at. */
	date?: string;
	tick = -1;

	/** Next session's open interest per chain, published before the open. */
	private readonly nextOpenInterest = new Map<string, Map<string, number>>();
	/** The second each chain's snapshots were last built for (each second is published once). */
	private readonly published = new Map<string, { day: TickerDay; tick: number }>();
	/** Chains whose day has reached the live second (others are still catching up). */
	private readonly ready = new Set<string>();
	/** The session whose days are all built and live, the build caches dropped (market/path.ts). */
	private settled?: string;

	constructor(
		private readonly seed: number,
		universe: string[],
		private readonly clock: SessionClock,
		/** Shape of the State payloads (./profiles.ts). */
		private readonly profile: PayloadProfile = DEFAULT_PAYLOAD_PROFILE
	) {
		const sources = new Map<string, string[]>();
		for (const ticker of universe) {
			const source = (viewOf(ticker) as { source: string }).source;
			const list = sources.get(source) ?? [];
			list.push(ticker);
			sources.set(source, list);
		}
		const rank = (s: string) => (PRIORITY.includes(s) ? PRIORITY.indexOf(s) : PRIORITY.length);
		for (const s of [...sources.keys()].sort((a, b) => rank(a) - rank(b)))
			this.sources.set(s, sources.get(s) as string[]);
	}

	/**
	 * Catches up to the clock and starts the loop. Resolves once every chain is live, or, for a
	 * large universe, once the headline chains are (the rest keep catching up within a time budget
	 * per second; their snapshots are undefined until then). Bounded by `maxWaitMs`.
	 */
	async start(maxWaitMs = 120_000): Promise<void> {
		this.stopped = false;
		const until = performance.now() + maxWaitMs;
		const wanted =
			this.sources.size <= 12
				? [...this.sources.keys()]
				: PRIORITY.filter((s) => this.sources.has(s));
		do {
			await this.advance(1000);
			await yieldToLoop();
		} while (!wanted.every((s) => this.ready.has(s)) && performance.now() < until);
		this.schedule();
	}

	/** Is every simulated chain live? */
	allReady(): boolean {
		return this.ready.size === this.sources.size;
	}

	stop(): void {
		this.stopped = true;
		if (this.timer) clearTimeout(this.timer);
		this.timer = undefined;
	}

	latest(ticker: string): TickerSnapshot | undefined {
		return this.snapshots.get(ticker);
	}

	latestExpiry(ticker: string): TickerSnapshot['expiryPayloads'] {
		return this.expiryFeeds.get(ticker);
	}

	/** The tick the live loop has reached on `date`, if that session is the live one. */
	liveTick(date: string): number | undefined {
		return date === this.date ? this.tick : undefined;
	}

	/**
	 * The research chain: quotes of the latest 15-minute mark (the previous close outside RTH).
	 * Before the open, from 08:00 ET on a session day (the research feed's open-interest refresh),
	 * the quotes carry the new day's open interest, and contracts that expired drop out.
	 */
	researchChain(source: string, ticker: string): ResearchChain | undefined {
		const capture = this.research.get(source);
		if (!capture) return undefined;
		const chain = capture.toChain();
		const nowMs = this.clock.nowMs();
		const p = etParts(nowMs);
		const minute = p.hour * 60 + p.minute;
		const preOpen =
			isTradingDay(p.date) &&
			minute >= RESEARCH_OI_MINUTE &&
			minute < OPEN_MINUTE &&
			this.date !== p.date;
		if (!preOpen) return { ...chain, ticker };
		const key = `${source}|${p.date}`;
		let oi = this.nextOpenInterest.get(key);
		if (!oi) {
			const next = buildChain(this.seed, source, p.date);
			oi = new Map<string, number>();
			for (let c = 0; c < next.n; c++)
				oi.set(
					`${next.expiries[next.expiry[c]]}|${next.strike[c]}|${next.isCall[c]}`,
					next.openInterest[c]
				);
			if (this.nextOpenInterest.size > 200) this.nextOpenInterest.clear();
			this.nextOpenInterest.set(key, oi);
		}
		const published = oi;
		const contracts = chain.contracts
			.filter((c) => c.expiry >= p.date)
			.map((c) => ({
				...c,
				open_interest: published.get(`${c.expiry}|${c.strike}|${c.right === 'C' ? 1 : 0}`) ?? 0,
				volume: 0
			}));
		return { ...chain, ticker, contracts };
	}

	onTick(listener: (tick: TickEvent) => void): () => void {
		this.listeners.add(listener);
		return () => this.listeners.delete(listener);
	}

	private schedule(): void {
		if (this.stopped) return;
		const now = this.clock.nowMs();
		const next = Math.floor(now / 1000) * 1000 + 1000;
		const delay = Math.min(Math.max(this.clock.wallDelayUntil(next) + 1, 5), 1000);
		this.timer = setTimeout(() => {
			this.advance()
				.catch((err: unknown) => log.error('market engine tick failed', { error: errorText(err) }))
				.finally(() => this.schedule());
		}, delay);
	}

	/** Bring every chain to the clock's current second and publish it. */
	async advance(budgetMs = CATCH_UP_BUDGET_MS): Promise<void> {
		if (this.running) return;
		this.running = true;
		try {
			const pos = marketPosition(this.clock.nowMs());
			if (pos.date === this.date && pos.tick === this.tick && this.allReady()) return;
			const event: TickEvent = { timestamp: 0, tickers: new Map() };
			const withExpiries = pos.tick % EXPIRY_FEED_EVERY === 0;
			const catchUpUntil = performance.now() + budgetMs;
			let slice = performance.now();
			for (const [source, views] of this.sources) {
				let day = this.days.get(source);
				if (!day || day.date !== pos.date || day.tick > pos.tick) {
					// New session, or the session clock looped back: a fresh day catches up again.
					day = new TickerDay(this.seed, source, pos.date);
					this.days.set(source, day);
					this.ready.delete(source);
				}
				const done = this.published.get(source);
				if (done && done.day === day && done.tick === pos.tick && day.tick === pos.tick) continue;
				const live = this.ready.has(source);
				const reached = advanceDay(
					day,
					pos.tick,
					(d) => {
						if (d.tick % RESEARCH_MARK === 0) this.captureResearch(d);
					},
					live ? Infinity : catchUpUntil
				);
				if (!reached) {
					for (const ticker of views) this.snapshots.delete(ticker);
					continue;
				}
				this.ready.add(source);
				this.published.set(source, { day, tick: pos.tick });
				for (const ticker of views) {
					const snap = buildSnapshot(
						day,
						viewFormatAt(this.seed, ticker, pos.date, pos.tick),
						withExpiries,
						this.profile
					);
					this.snapshots.set(ticker, snap);
					if (snap.expiryPayloads) this.expiryFeeds.set(ticker, snap.expiryPayloads);
					event.timestamp = snap.timestamp;
					event.tickers.set(ticker, {
						spot: snap.spot,
						payloads: snap.payloads,
						expiryPayloads: snap.expiryPayloads
					});
				}
				// A long catch-up must not starve the HTTP server sharing this thread.
				if (performance.now() - slice > 30) {
					await yieldToLoop();
					slice = performance.now();
				}
			}
			this.date = pos.date;
			this.tick = pos.tick;
			if (this.settled !== pos.date && this.allReady()) {
				this.settled = pos.date;
				dropBuildCaches();
				log.info(`market: all ${this.sources.size} chains live for ${pos.date}`);
			}
			if (pos.open && event.tickers.size > 0) {
				for (const listener of this.listeners) {
					try {
						listener(event);
					} catch (err) {
						log.error('tick listener failed', { error: errorText(err) });
					}
				}
			}
		} finally {
			this.running = false;
		}
	}

	/** Research quotes: the chain's quotes at a 15-minute mark (kept compact: ./researchCapture). */
	private captureResearch(day: TickerDay): void {
		this.research.set(
			day.ticker,
			new ResearchCapture(
				day.chain,
				day.timestampOf(day.tick),
				day.openMs + day.tick * 1000,
				day.ticker,
				day.spot,
				day.greeks.price,
				day.volume
			)
		);
	}
}
