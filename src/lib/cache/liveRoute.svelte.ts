/**
 * One upstream route kept live in the browser: painted first from the IndexedDB cache (stale),
 * then fetched through /api at the 1 s cadence while the market is open, every 30 s while it is
 * closed (to notice the open), and not at all while the tab is hidden.
 */
import { isRegularTradingHours } from '$lib/contract/newYorkTime';
import { fetchRoute, networkError, type RouteError } from './routeFetch';
import { readSnapshot, writeSnapshot } from './snapshotCache.svelte';

export const LIVE_INTERVAL_MS = 1_000;
export const CLOSED_INTERVAL_MS = 30_000;
export const NO_DATA_RETRY_MS = 2_000;
/** A data timestamp that has not moved for this long means the feed is not live. */
const STALL_MS = 10_000;

export class LiveRoute<T> {
	data: T | undefined = $state.raw(undefined);
	/** True while showing cached data that no fresh fetch has replaced yet. */
	stale = $state(false);
	loading = $state(true);
	error: RouteError | undefined = $state.raw(undefined);
	/** Wall-clock ms when the data's timestamp last changed. */
	changedAt = $state(0);
	/** Wall-clock ms of the last successful fetch. */
	fetchedAt = $state(0);
	/** Market open as the data shows it: an RTH timestamp that keeps moving. */
	marketOpen = $state(false);
	/** Epoch ms when the first paint (cache or network) happened, for the benchmark. */
	firstPaintAt = $state(0);
	paintSource: 'cache' | 'network' | undefined = $state(undefined);

	private timer: ReturnType<typeof setTimeout> | undefined;
	private stopped = false;
	private inFlight: AbortController | undefined;
	private lastTimestamp: number | null = null;

	private readonly liveIntervalMs: number;
	private readonly closedIntervalMs: number;
	private readonly refused: RouteError | undefined;

	/**
	 * @param options.refused the proxy's refusal of this route, already known (the page's server
	 *   load decided it from the account's entitlements): the route is never fetched nor painted
	 *   from the cache, and `error` says why from the start.
	 */
	constructor(
		readonly route: string,
		private readonly parse: (value: unknown) => T,
		options: { liveIntervalMs?: number; closedIntervalMs?: number; refused?: RouteError } = {}
	) {
		this.liveIntervalMs = options.liveIntervalMs ?? LIVE_INTERVAL_MS;
		this.closedIntervalMs = options.closedIntervalMs ?? CLOSED_INTERVAL_MS;
		this.refused = options.refused;
		if (this.refused) {
			this.error = this.refused;
			this.loading = false;
		}
	}

	private timestampOf(value: unknown): number | null {
		const ts = (value as { timestamp?: unknown } | null)?.timestamp;
		return typeof ts === 'number' ? ts : null;
	}

	private accept(raw: unknown, source: 'cache' | 'network') {
		const parsed = this.parse(raw);
		const ts = this.timestampOf(raw);
		const now = Date.now();
		if (ts !== this.lastTimestamp) {
			this.changedAt = now;
			this.lastTimestamp = ts;
		}
		this.marketOpen =
			source === 'network' &&
			ts !== null &&
			isRegularTradingHours(ts * 1000) &&
			now - this.changedAt < STALL_MS;
		this.data = parsed;
		if (!this.firstPaintAt) {
			this.firstPaintAt = performance.now();
			this.paintSource = source;
		}
	}

	start(): () => void {
		if (this.refused) return () => {};
		this.stopped = false;
		const onVisibility = () => {
			if (document.hidden) this.clearTimer();
			else this.schedule(0);
		};
		document.addEventListener('visibilitychange', onVisibility);
		void this.paintFromCache().then(() => this.schedule(0));
		return () => {
			this.stopped = true;
			this.clearTimer();
			this.inFlight?.abort();
			document.removeEventListener('visibilitychange', onVisibility);
		};
	}

	private async paintFromCache() {
		const cached = await readSnapshot(this.route);
		if (!cached || this.data !== undefined || this.stopped) return;
		try {
			this.accept(cached.data, 'cache');
			this.stale = true;
			this.changedAt = cached.savedAt;
			// The first network answer must count as a change, or a live market looks stalled.
			this.lastTimestamp = null;
		} catch {
			// A cached payload of an older shape is ignored; the network will replace it.
		}
	}

	private clearTimer() {
		if (this.timer) clearTimeout(this.timer);
		this.timer = undefined;
	}

	private schedule(delay: number) {
		this.clearTimer();
		if (this.stopped || document.hidden) return;
		this.timer = setTimeout(() => void this.tick(), delay);
	}

	/** Fetch now (also used by a Retry button). */
	async tick(): Promise<void> {
		if (this.refused) return;
		this.clearTimer();
		this.inFlight?.abort();
		const controller = new AbortController();
		this.inFlight = controller;
		let retryAfterMs: number | undefined;
		try {
			const answer = await fetchRoute(this.route, controller.signal);
			if (!answer) return;
			if (!answer.ok) {
				this.error = answer.error;
				retryAfterMs = answer.retryAfterMs;
			} else {
				this.accept(answer.body, 'network');
				this.stale = false;
				this.error = undefined;
				this.fetchedAt = Date.now();
				void writeSnapshot(this.route, answer.body);
			}
		} catch (err) {
			// A body the view's parser refuses.
			this.error = networkError(err);
		} finally {
			if (this.inFlight === controller) this.inFlight = undefined;
			this.loading = false;
		}
		if (
			this.error?.reason === 'locked' ||
			this.error?.reason === 'no-key' ||
			this.error?.status === 400
		) {
			return; // Retrying cannot change a refusal; the page says why.
		}
		// Nothing to show yet (e.g. a 503 while the upstream computes a ticker it just started):
		// ask again soon rather than at the closed-market cadence.
		const waitingForFirstData = this.error !== undefined && this.data === undefined;
		this.schedule(
			retryAfterMs ??
				(waitingForFirstData
					? NO_DATA_RETRY_MS
					: this.marketOpen
						? this.liveIntervalMs
						: this.closedIntervalMs)
		);
	}
}
