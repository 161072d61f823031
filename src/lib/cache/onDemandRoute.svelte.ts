/**
 * An upstream route fetched on demand, for slow routes with their own quota (research): once
 * when the view asks for it and again only on a manual refresh, never on a timer. The last
 * answer of each route is painted first from the IndexedDB last-snapshot cache (marked stale)
 * while the network answer is on its way, and a fetch in flight shows its progress.
 *
 * The status fields match LiveRoute's, so StatusLine explains refusals (locked, no key) and
 * errors the same way on every page.
 */
import { isRegularTradingHours } from '$lib/contract/newYorkTime';
import { fetchRoute, type RouteError } from './routeFetch';
import { readSnapshot, writeSnapshot } from './snapshotCache.svelte';

export class OnDemandRoute<T> {
	/** The route the data belongs to (it can lag `route` while a new one loads). */
	dataRoute: string | undefined = $state(undefined);
	data: T | undefined = $state.raw(undefined);
	stale = $state(false);
	loading = $state(false);
	/** Epoch ms the fetch in flight started (0 when idle), for the progress readout. */
	loadingSince = $state(0);
	error: RouteError | undefined = $state.raw(undefined);
	/** Wall-clock ms of the data on screen: the cache's save time, or the fetch's arrival. */
	changedAt = $state(0);
	fetchedAt = $state(0);
	/** The data is from a session in progress (its timestamp is in regular trading hours). */
	marketOpen = $state(false);
	/** Requests sent, so a test or the page can see that nothing polls. */
	requests = $state(0);

	private route: string | undefined;
	private inFlight: AbortController | undefined;

	constructor(private readonly parse: (value: unknown) => T) {}

	private accept(raw: unknown, route: string): void {
		this.data = this.parse(raw);
		this.dataRoute = route;
		const ts = (raw as { timestamp?: unknown } | null)?.timestamp;
		this.marketOpen = typeof ts === 'number' && isRegularTradingHours(ts * 1000);
	}

	/** Show `route`: the cached copy at once if there is one, then the network's answer. */
	async show(route: string): Promise<void> {
		if (route === this.route) return;
		this.route = route;
		this.error = undefined;
		const cached = await readSnapshot(route);
		if (this.route !== route) return;
		if (cached) {
			try {
				this.accept(cached.data, route);
				this.stale = true;
				this.changedAt = cached.savedAt;
			} catch {
				// A cached payload of an older shape: the network replaces it.
			}
		}
		await this.fetch();
	}

	/** Fetch the current route again (Refresh, Retry). */
	tick(): Promise<void> {
		return this.fetch();
	}

	/** Stop any fetch in flight (the page is leaving). */
	stop(): void {
		this.inFlight?.abort();
		this.route = undefined;
	}

	private async fetch(): Promise<void> {
		const route = this.route;
		if (route === undefined) return;
		this.inFlight?.abort();
		const controller = new AbortController();
		this.inFlight = controller;
		this.loading = true;
		this.loadingSince = Date.now();
		this.requests++;
		try {
			const answer = await fetchRoute(route, controller.signal);
			if (!answer) return;
			if (!answer.ok) {
				this.error = answer.error;
				// Data of another route must not stand in for this one's.
				if (this.dataRoute !== route) this.data = undefined;
				return;
			}
			try {
				this.accept(answer.body, route);
			} catch (err) {
				this.error = {
					status: 200,
					message: (err as Error).message,
					reason: 'invalid',
					requires: undefined
				};
				return;
			}
			this.stale = false;
			this.error = undefined;
			this.fetchedAt = this.changedAt = Date.now();
			void writeSnapshot(route, answer.body);
		} finally {
			if (this.inFlight === controller) {
				this.inFlight = undefined;
				this.loading = false;
				this.loadingSince = 0;
			}
		}
	}
}
