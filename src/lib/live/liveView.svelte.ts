/**
 * One live view of one upstream route, as the Classic, State, Orderflow, heatmap and levels
 * pages show it: the group streamed through the tab's relay connection when the account may
 * (StreamFeed), else the route polled through /api (LiveRoute, painted first from IndexedDB);
 * the streamed values written (paced) to the same IndexedDB snapshot the poller writes, so a reload
 * paints what was last seen; and the state the badge, the status line and the age readout need.
 * Construct during component init: it registers its own effects.
 */
import { untrack } from 'svelte';
import { LiveRoute } from '$lib/cache/liveRoute.svelte';
import type { RouteError } from '$lib/cache/routeFetch';
import { writeSnapshot } from '$lib/cache/snapshotCache.svelte';
import type { LiveStream, StreamUpdate } from '$lib/stream';
import { sharedLiveStream } from './sharedStream';
import { SnapshotPacer } from './snapshotPacer';
import { StreamFeed, gexColumns, type StreamAccess } from './streamFeed.svelte';

export interface LiveViewSource<T> {
	/** Whether the account may stream (the layout's server load). */
	access: () => StreamAccess;
	/** The stream group, e.g. `SPX_classic_gex_full`. */
	group: () => string;
	/** The REST route under /api, e.g. `SPX/classic/gex_full`. */
	route: () => string;
	/** Parses a REST body (or a cached one) into the view's value. */
	parse: () => (body: unknown) => T;
	/** A streamed update as the view's value (default: a GEX chain). */
	shape?: (u: StreamUpdate) => T | undefined;
	/** A streamed value as the REST body the snapshot cache keeps (default: the value itself). */
	restBody?: (value: T) => unknown;
	/**
	 * Routes the proxy is known to refuse for this account (locked, no key), by route, as the
	 * page's server load decided them (routes/streamAccess.server.ts `knownRefusals`): such a
	 * route is not fetched, and the status line shows the refusal at once.
	 */
	refusals?: () => Readonly<Record<string, RouteError>>;
	/** False while the view shows no live data (a past day): neither streams nor polls. */
	live?: () => boolean;
	/** The tab's stream (default the shared one; tests pass one on a fake worker). */
	open?: () => LiveStream;
}

const NOT_LIVE: StreamAccess = { ok: false, reason: 'showing a past day' };

export class LiveView<T> {
	readonly feed: StreamFeed<T>;
	/** The REST poller of the current route while the stream does not deliver, else the last. */
	poller: LiveRoute<T> | undefined = $state.raw(undefined);
	/** True while the stream delivers the group (the poller is stopped). */
	readonly streaming: boolean = $derived.by(() => this.feed.streaming);
	/** The newest value, streamed or polled; a poller of the previous route is not shown. */
	readonly value: T | undefined = $derived.by(() =>
		this.streaming
			? this.feed.value
			: this.poller?.route === this.routeNow
				? this.poller.data
				: undefined
	);
	/** Showing cached data no fresh fetch has replaced yet. */
	readonly stale: boolean = $derived.by(() => !this.streaming && (this.poller?.stale ?? false));
	/** The poller's status while polling (for StatusLine), else undefined. */
	readonly polled: LiveRoute<T> | undefined = $derived.by(() =>
		this.streaming ? undefined : this.poller
	);
	/** The current route's refusal the server already knew (see `refusals`), while live. */
	readonly refusal: RouteError | undefined = $derived.by(() =>
		this.liveNow ? this.source.refusals?.()[this.routeNow] : undefined
	);
	/** The route is locked for this account or has no key: retrying cannot help. */
	readonly locked: boolean = $derived.by(() => {
		const reason = (this.refusal ?? this.polled?.error)?.reason;
		return reason === 'locked' || reason === 'no-key';
	});

	/**
	 * The route and liveness as values: a navigation that rebuilds the page's view object but
	 * keeps the route (marking a moment, a toggle) must not restart the poller, which would blank
	 * the value and redraw everything under the user's focus.
	 */
	private readonly routeNow: string = $derived.by(() => this.source.route());
	private readonly liveNow: boolean = $derived.by(() => (this.source.live ?? (() => true))());

	constructor(private readonly source: LiveViewSource<T>) {
		const live = () => this.liveNow;
		this.feed = new StreamFeed<T>(
			() => (live() ? source.access() : NOT_LIVE),
			source.group,
			source.shape ?? (gexColumns as (u: StreamUpdate) => T | undefined),
			source.open ?? sharedLiveStream
		);
		// Streamed values reach the cache paced (snapshotPacer.ts): not one write per chain.
		const pacer = new SnapshotPacer((route, body) => void writeSnapshot(route, body));
		$effect(() => {
			const value = this.feed.streaming ? this.feed.value : undefined;
			if (value !== undefined) {
				pacer.offer(this.routeNow, () => (source.restBody ? source.restBody(value) : value));
			}
		});
		$effect(() => {
			const hidden = () => pacer.flush();
			// (No window in the unit tests' runtime.)
			globalThis.addEventListener?.('pagehide', hidden);
			return () => {
				globalThis.removeEventListener?.('pagehide', hidden);
				pacer.flush();
			};
		});
		$effect(() => {
			if (!live() || this.feed.streaming) return;
			const r = new LiveRoute(this.routeNow, untrack(source.parse), { refused: this.refusal });
			this.poller = r;
			return r.start();
		});
	}
}
