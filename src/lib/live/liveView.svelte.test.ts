/**
 * LiveView over a LiveStream on a fake worker and a mocked /api: streamed values are the view's
 * value and go to the snapshot cache under the route (no poll meanwhile); when the group goes
 * silent the poller of the route takes over and its parsed answers are the value; a past day
 * neither streams nor polls, nor is a route the server knows is refused (locked) ever fetched;
 * and the shared clock ticks only while an effect reads it.
 */
import { flushSync } from 'svelte';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { parseGexColumns, type ColumnarGex } from '$lib/charts/histogram/classicChain';
import { clock, CLOCK_TICK_MS } from './clock.svelte';
import { chain, GROUP, liveStreamOnFakeWorker } from './fakeStream.test-support';
import { LiveView, type LiveViewSource } from './liveView.svelte';
import { STREAM_STALL_MS } from './streamFeed.svelte';
import { FIRST_SNAPSHOT_DELAY_MS } from './snapshotPacer';

const cache = vi.hoisted(() => ({ writes: [] as { route: string; data: unknown }[] }));
const api = vi.hoisted(() => ({ routes: [] as string[], body: undefined as unknown }));

vi.mock('$lib/cache/snapshotCache.svelte', () => ({
	readSnapshot: () => Promise.resolve(undefined),
	writeSnapshot: (route: string, data: unknown) => {
		cache.writes.push({ route, data });
		return Promise.resolve();
	}
}));
vi.mock('$lib/cache/routeFetch', () => ({
	fetchRoute: (route: string) => {
		api.routes.push(route);
		return Promise.resolve({ ok: true, body: api.body });
	},
	networkError: (err: unknown) => ({ status: 0, message: String(err), reason: 'offline' })
}));

const ROUTE = 'SPX/classic/gex_full';

beforeEach(() => {
	vi.useFakeTimers();
	cache.writes = [];
	api.routes = [];
	api.body = { ...chain, ticker: 'SPX' };
	// LiveRoute pauses in hidden tabs: a visible document.
	vi.stubGlobal('document', {
		hidden: false,
		addEventListener: () => undefined,
		removeEventListener: () => undefined
	});
});
afterEach(() => {
	vi.useRealTimers();
	vi.unstubAllGlobals();
});

/** Lets the poller's cache read and fetch settle. */
async function settle() {
	for (let i = 0; i < 5; i++) await Promise.resolve();
	flushSync();
}

/** A LiveView of ROUTE / GROUP for an account that may stream, in its own effect root. */
function classicView(
	extra: Partial<Pick<LiveViewSource<ColumnarGex>, 'open' | 'live' | 'refusals' | 'access'>>
) {
	let view!: LiveView<ColumnarGex>;
	const stop = $effect.root(() => {
		view = new LiveView<ColumnarGex>({
			access: () => ({ ok: true, reason: '' }),
			group: () => GROUP,
			route: () => ROUTE,
			parse: () => parseGexColumns,
			...extra
		});
	});
	flushSync();
	return { view, stop };
}

describe('LiveView', () => {
	it('writes streamed chains to the cache paced, and the newest when the view goes away', async () => {
		const { live: stream, push } = liveStreamOnFakeWorker();
		const { stop } = classicView({ open: () => stream });
		for (let t = 1; t <= 5; t++) {
			push(t);
			flushSync();
			vi.advanceTimersByTime(1_000);
		}
		// Five chains in five seconds: the first one written, the newest still pending.
		expect(cache.writes.map((w) => (w.data as { timestamp: number }).timestamp)).toEqual([1]);
		stop();
		expect(cache.writes.at(-1)).toMatchObject({ route: ROUTE, data: { timestamp: 5 } });
		await settle();
	});

	it('shows and caches streamed values, then polls the route when the stream goes silent', async () => {
		const { live: stream, push } = liveStreamOnFakeWorker();
		const { view, stop } = classicView({ open: () => stream });
		push(1);
		flushSync();
		expect(view.streaming).toBe(true);
		expect(view.value?.timestamp).toBe(1);
		expect(view.polled).toBeUndefined();
		// Paced (snapshotPacer.ts): written in a timer task after the update, not in it.
		expect(cache.writes).toEqual([]);
		vi.advanceTimersByTime(FIRST_SNAPSHOT_DELAY_MS);
		expect(cache.writes.at(-1)).toMatchObject({ route: ROUTE, data: { timestamp: 1 } });
		await settle();
		expect(api.routes).toEqual([]);

		vi.advanceTimersByTime(STREAM_STALL_MS + 1_000);
		flushSync();
		expect(view.streaming).toBe(false);
		await settle(); // the poller's cache read
		vi.advanceTimersByTime(1);
		await settle(); // its first fetch
		expect(api.routes).toEqual([ROUTE]);
		expect(view.polled?.route).toBe(ROUTE);
		expect(view.value?.timestamp).toBe(chain.timestamp);
		expect(view.stale).toBe(false);
		expect(view.locked).toBe(false);
		stop();
		stream.close();
	});

	it('neither streams nor polls while the view is not live', async () => {
		const open = vi.fn();
		const { view, stop } = classicView({ live: () => false, open });
		vi.advanceTimersByTime(2_000);
		await settle();
		expect(open).not.toHaveBeenCalled();
		expect(api.routes).toEqual([]);
		expect(view.value).toBeUndefined();
		expect(view.feed.badge.text).toMatch(/past day/);
		stop();
	});
});

describe('LiveView of a route the server knows is refused', () => {
	const LOCKED = {
		status: 403,
		message: 'Your subscription does not include the State package.',
		reason: 'locked' as const,
		requires: 'State package'
	};

	it('says why at once and never fetches or polls it', async () => {
		const { view, stop } = classicView({
			access: () => ({ ok: false, reason: 'streaming needs the Quant tier' }),
			refusals: () => ({ [ROUTE]: LOCKED })
		});
		expect(view.locked).toBe(true);
		vi.advanceTimersByTime(5_000);
		await settle();
		expect(api.routes).toEqual([]);
		expect(view.polled?.error).toEqual(LOCKED);
		expect(view.polled?.loading).toBe(false);
		await view.polled?.tick(); // a Retry asks nothing either
		expect(api.routes).toEqual([]);
		expect(view.value).toBeUndefined();
		stop();
	});

	it("polls as before when the refusal is another route's", async () => {
		const { view, stop } = classicView({
			access: () => ({ ok: false, reason: 'streaming needs the Quant tier' }),
			refusals: () => ({ 'SPX/state/gex_full': LOCKED })
		});
		expect(view.locked).toBe(false);
		await settle();
		vi.advanceTimersByTime(1);
		await settle();
		expect(api.routes).toEqual([ROUTE]);
		expect(view.value?.timestamp).toBe(chain.timestamp);
		stop();
	});
});

describe('LiveView across navigations', () => {
	it('keeps its poller and subscription while a rebuilt view keeps the route and the group', async () => {
		// A page's `data` is a new object after every navigation (marking a moment writes the
		// link): the source reads through it, as `route: () => \`${view.ticker}/...\`` does.
		let data = $state({ view: { ticker: 'SPX' }, access: { ok: false, reason: 'polling' } });
		const { live: stream, worker } = liveStreamOnFakeWorker();
		let view!: LiveView<ColumnarGex>;
		const stop = $effect.root(() => {
			view = new LiveView<ColumnarGex>({
				access: () => data.access,
				group: () => `${data.view.ticker}_classic_gex_full`,
				route: () => `${data.view.ticker}/classic/gex_full`,
				parse: () => parseGexColumns,
				open: () => stream
			});
		});
		flushSync();
		await settle();
		vi.advanceTimersByTime(1);
		await settle();
		const poller = view.poller;
		expect(view.value?.timestamp).toBe(chain.timestamp);

		data = { view: { ticker: 'SPX' }, access: { ok: false, reason: 'polling' } };
		flushSync();
		expect(view.poller).toBe(poller);
		expect(view.value?.timestamp).toBe(chain.timestamp);

		// Streaming: a rebuilt access object of the same verdict does not resubscribe.
		data = { view: { ticker: 'SPX' }, access: { ok: true, reason: '' } };
		flushSync();
		const subscribes = () => worker.posted.filter((m) => m.type === 'subscribe').length;
		expect(subscribes()).toBe(1);
		data = { view: { ticker: 'SPX' }, access: { ok: true, reason: '' } };
		flushSync();
		expect(subscribes()).toBe(1);
		expect(worker.posted.filter((m) => m.type === 'unsubscribe')).toEqual([]);

		// Another ticker is another route and group.
		data = { view: { ticker: 'NDX' }, access: { ok: true, reason: '' } };
		flushSync();
		expect(subscribes()).toBe(2);
		expect(view.poller?.route).toBe('NDX/classic/gex_full');
		stop();
		stream.close();
	});
});

describe('clock', () => {
	it('ticks once a second for the effects that read it, and stops with them', async () => {
		const seen: number[] = [];
		const stop = $effect.root(() => {
			$effect(() => {
				seen.push(clock.now);
			});
		});
		flushSync();
		for (let i = 0; i < 3; i++) {
			vi.advanceTimersByTime(CLOCK_TICK_MS);
			flushSync();
		}
		expect(seen.length).toBe(4);
		expect(seen[3] - seen[0]).toBe(CLOCK_TICK_MS * 3);
		stop();
		await Promise.resolve(); // the subscriber's teardown runs in a microtask
		expect(vi.getTimerCount()).toBe(0);
		// Read outside any effect it is the current time, not a frozen tick.
		vi.advanceTimersByTime(500);
		expect(clock.now).toBe(Date.now());
	});
});
