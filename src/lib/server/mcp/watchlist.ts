/**
 * The watchlist resource: the current levels (gex_full) of every ticker on the always-record
 * list of the token's owner (each session's deps), which the recorder already holds (so reading it costs no upstream call),
 * and its change notifications: one process-wide watch on the levels client's updates that, at
 * most once a second, compares each subscribed session's own watchlist levels with the last ones
 * it was told of and tells it when they differ (notifications/resources/updated); a session is
 * never told of a change to another user's tickers. While anyone subscribes, the union of every
 * user's list is kept wanted.
 */
import type { LevelsDocument } from '../../levels/document';
import { refusalText, type McpDeps } from './tools';

export const WATCHLIST_URI = 'gexdeck://levels/watchlist';
/** Notifications of one session come at most this often. */
export const NOTIFY_EVERY_MS = 1_000;
/** While anyone subscribes, the watchlist's feeds are wanted again this often (idle is 5 min). */
const REWANT_MS = 60_000;

export interface WatchlistContent {
	watchlist: string[];
	source: string;
	category: 'gex_full';
	levels: Record<string, LevelsDocument | { error: string }>;
}

export async function watchlistContent(deps: McpDeps): Promise<WatchlistContent> {
	const w = await deps.watchlist();
	const levels: WatchlistContent['levels'] = {};
	for (const ticker of w.tickers) {
		const a = await deps.levels({ ticker, category: 'gex_full', format: 'json', strikes: 0 });
		levels[ticker] = a.ok ? a.doc : { error: refusalText(a) };
	}
	return { watchlist: w.tickers, source: w.source, category: 'gex_full', levels };
}

/** What "the levels changed" compares: spot, every level and max change, per ticker. */
function fingerprint(c: WatchlistContent): string {
	return JSON.stringify(
		Object.entries(c.levels).map(([t, d]) =>
			'error' in d ? [t, d.error] : [t, d.spot, d.levels.map((l) => l.price), d.max_change]
		)
	);
}

/** A subscribed session: told when its own watchlist's levels change. */
interface Listener {
	fn: () => void;
	/** The session's watchlist as it reads it (its token owner's list). */
	content: () => Promise<WatchlistContent>;
	/** What it was last told of (or read at subscribing). */
	last?: string;
}

export class WatchlistWatch {
	private readonly listeners = new Set<Listener>();
	private unsubscribe: (() => void) | undefined;
	private timer: ReturnType<typeof setTimeout> | undefined;
	private rewant: ReturnType<typeof setInterval> | undefined;
	private lastFlush = 0;

	constructor(
		/** The union of every user's list: kept wanted while anyone subscribes. */
		private readonly deps: McpDeps,
		/** The levels client's update subscription (FeedClient.subscribe). */
		private readonly subscribe: (listener: () => void) => () => void
	) {}

	/**
	 * Calls `fn` (at most once a second) whenever the levels of `content` (the session's own
	 * watchlist; the union's by default) change: a session is not told of another user's tickers.
	 */
	add(
		fn: () => void,
		content: () => Promise<WatchlistContent> = () => watchlistContent(this.deps)
	): () => void {
		const listener: Listener = { fn, content };
		this.listeners.add(listener);
		if (!this.unsubscribe) {
			this.unsubscribe = this.subscribe(() => this.changed());
			this.rewant = setInterval(() => void watchlistContent(this.deps), REWANT_MS);
			this.rewant.unref?.();
		}
		void content().then(
			(c) => (listener.last ??= fingerprint(c)),
			() => undefined
		);
		return () => {
			this.listeners.delete(listener);
			if (this.listeners.size === 0) this.stop();
		};
	}

	private changed(): void {
		if (this.timer) return;
		const wait = Math.max(0, this.lastFlush + NOTIFY_EVERY_MS - Date.now());
		this.timer = setTimeout(() => void this.flush(), wait);
		this.timer.unref?.();
	}

	private async flush(): Promise<void> {
		this.lastFlush = Date.now();
		try {
			for (const listener of [...this.listeners]) {
				// A list that cannot be read now (its database busy) is compared at the next change.
				const print = await listener.content().then(fingerprint, () => listener.last);
				if (print === listener.last) continue;
				listener.last = print;
				if (this.listeners.has(listener)) listener.fn();
			}
		} finally {
			this.timer = undefined;
		}
	}

	stop(): void {
		this.unsubscribe?.();
		this.unsubscribe = undefined;
		clearInterval(this.rewant);
		clearTimeout(this.timer);
		this.timer = undefined;
	}
}
