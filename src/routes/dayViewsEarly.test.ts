/**
 * Each whole-day view's load names what its view fetches first (`early`: the head preloads it)
 * and asks for it at once in the browser (earlyFetch.ts), the view's own fetch then taking the
 * answer: the heatmap's overview, the levels path's lines, Orderflow's flow overview, Classic's
 * lines by both metrics and, for a past day opened at its end, that step's chain. Classic's
 * load rendering a past day opened at its end reads that day itself instead (daySeed.ts).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { markAppStarted, resetAppStart } from '$lib/state/appStart';
import { SEED_DAY, seedAnswers, seedFetch } from '$lib/stream/backfill/daySeed.test-support';
import { resetEarly, takeEarly } from '$lib/stream/backfill/earlyFetch';
import { earlyBrowser } from '$lib/stream/backfill/earlyFetch.test-support';
import { load as classicLoad } from './[ticker]/classic/[category]/+page';
import { load as heatmapLoad } from './[ticker]/heatmap/[category]/+page';
import { load as orderflowLoad } from './[ticker]/orderflow/+page';
import { load as levelsLoad } from './levels/[ticker]/+page';

const asked = earlyBrowser();

// The loads take a SvelteKit event; these are the parts they read. Nothing recorded by default.
const event = (
	path: string,
	params: Record<string, string>,
	data: object = {},
	fetch = seedFetch(new Map()).fetch
) => ({ url: new URL(`http://localhost${path}`), params, data, fetch }) as never;

afterEach(() => resetAppStart());

/** Classic's load of `path` (under /SPX/classic/<category>), reading /history through `fetch`. */
const classicAt = (path: string, fetch?: typeof globalThis.fetch, category = 'gex_full') =>
	classicLoad(event(path, { ticker: 'SPX', category }, {}, fetch));

describe("a whole-day view's load", () => {
	it('Classic rendering a past day opened at its end: the day is read, and nothing asked early', async () => {
		const server = seedFetch(seedAnswers());
		const r = await classicAt(`/SPX/classic/gex_full?day=${SEED_DAY}`, server.fetch);
		expect(server.asked).toHaveLength(3);
		expect(r.seed?.day).toBe(SEED_DAY);
		expect(r.seed?.moment.at).toBe(r.seed?.vol.times.at(-1));
		expect(r.early).toEqual([]);
		expect(asked).toEqual([]);
		// Once the app has started, a load of the same day reads nothing (the view fetches).
		markAppStarted();
		const again = await classicAt(`/SPX/classic/gex_full?day=${SEED_DAY}`, server.fetch);
		expect(server.asked).toHaveLength(3);
		expect(again.seed).toBeUndefined();
	});

	it("Classic: both metrics' lines, and the last step of a past day opened at its end", async () => {
		markAppStarted();
		const r = await classicLoad(
			event('/SPX/classic/gex_full?day=2026-11-23', { ticker: 'SPX', category: 'gex_full' })
		);
		expect(r.early).toEqual([
			'/history/SPX/classic_gex_full/overview?metric=vol&day=2026-11-23&cells=none',
			'/history/SPX/classic_gex_full/overview?metric=oi&day=2026-11-23&cells=none',
			'/history/SPX/classic_gex_full/moment?day=2026-11-23'
		]);
		expect(asked).toEqual(r.early);
		for (const url of r.early) expect(takeEarly(url)).toBeDefined();
		// The slider settles on a moment: the load runs again and asks nothing more.
		await classicLoad(
			event('/SPX/classic/gex_full?day=2026-11-23&at=1795446000', {
				ticker: 'SPX',
				category: 'gex_full'
			})
		);
		expect(asked).toHaveLength(3);
	});

	it('Classic: a past day not recorded here is asked early as before, its seed being none', async () => {
		const r = await classicLoad(
			event('/SPX/classic/gex_full?day=2026-11-20', { ticker: 'SPX', category: 'gex_full' })
		);
		expect(r.seed).toBeUndefined();
		expect(r.early).toHaveLength(3);
		expect(asked).toEqual(r.early);
	});

	it('Classic rendering a shared moment of a past day: that step is read with the day', async () => {
		const server = seedFetch(seedAnswers({ step: 1795444200 + 40 }));
		const r = await classicLoad(
			event(
				`/SPX/classic/gex_full?day=${SEED_DAY}&at=1795444243`,
				{ ticker: 'SPX', category: 'gex_full' },
				{},
				server.fetch
			)
		);
		expect(server.asked.at(-1)).toMatch(/moment\?day=2026-11-23&at=1795444240$/);
		expect(r.seed?.at).toBe(1795444243);
		expect(r.seed?.moment.at).toBe(1795444240);
		expect(r.early).toEqual([]);
	});

	it('Classic: a linked moment is read by the worker, no last step asked', async () => {
		markAppStarted();
		const server = seedFetch(seedAnswers());
		const r = await classicLoad(
			event(
				'/SPX/classic/gex_zero?day=2026-11-23&at=1795446000',
				{ ticker: 'SPX', category: 'gex_zero' },
				{},
				server.fetch
			)
		);
		expect(server.asked).toEqual([]);
		expect(r.early.some((u) => u.includes('/moment'))).toBe(false);
		expect(asked).toEqual(r.early);
	});

	it("the heatmap: the day's overview by the view's metric", () => {
		const r = heatmapLoad(
			event('/SPX/heatmap/gex_full?metric=oi&day=2026-11-23', {
				ticker: 'SPX',
				category: 'gex_full'
			})
		) as { early: string[] };
		expect(r.early).toEqual(['/history/SPX/classic_gex_full/overview?metric=oi&day=2026-11-23']);
		expect(asked).toEqual(r.early);
	});

	it("the levels path: the day's lines", () => {
		const r = levelsLoad(event('/levels/SPX?day=2026-11-23', { ticker: 'SPX' })) as {
			early: string[];
		};
		expect(r.early).toEqual([
			'/history/SPX/classic_gex_full/overview?metric=vol&day=2026-11-23&cells=none'
		]);
		expect(asked).toEqual(r.early);
	});

	it("Orderflow: the day's flow overview, nothing for a locked view", () => {
		const open = orderflowLoad(
			event('/SPX/orderflow?day=2026-11-23', { ticker: 'SPX' }, { refusals: {} })
		) as { early: string[] };
		expect(open.early).toEqual([
			'/history/SPX/orderflow_orderflow/overview?metric=vol&day=2026-11-23'
		]);
		expect(asked).toEqual(open.early);
		resetEarly();
		const locked = orderflowLoad(
			event('/QQQ/orderflow', { ticker: 'QQQ' }, { refusals: { orderflow: 'needs a key' } })
		) as { early: string[] };
		expect(locked.early).toEqual([]);
		expect(asked).toHaveLength(1);
	});
});
