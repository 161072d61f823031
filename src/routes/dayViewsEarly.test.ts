/**
 * Each whole-day view's load names what its view fetches first (`early`: the head preloads it)
 * and asks for it at once in the browser (earlyFetch.ts), the view's own fetch then taking the
 * answer: the heatmap's overview, the levels path's lines, Orderflow's flow overview, Classic's
 * lines by both metrics and, for a past day opened at its end, that step's chain.
 */
import { describe, expect, it } from 'vitest';
import { resetEarly, takeEarly } from '$lib/stream/backfill/earlyFetch';
import { earlyBrowser } from '$lib/stream/backfill/earlyFetch.test-support';
import { load as classicLoad } from './[ticker]/classic/[category]/+page';
import { load as heatmapLoad } from './[ticker]/heatmap/[category]/+page';
import { load as orderflowLoad } from './[ticker]/orderflow/+page';
import { load as levelsLoad } from './levels/[ticker]/+page';

const asked = earlyBrowser();

// The loads take a SvelteKit event; these are the parts they read.
const event = (path: string, params: Record<string, string>, data: object = {}) =>
	({ url: new URL(`http://localhost${path}`), params, data }) as never;

describe("a whole-day view's load", () => {
	it("Classic: both metrics' lines, and the last step of a past day opened at its end", () => {
		const r = classicLoad(
			event('/SPX/classic/gex_full?day=2026-11-23', { ticker: 'SPX', category: 'gex_full' })
		) as { early: string[] };
		expect(r.early).toEqual([
			'/history/SPX/classic_gex_full/overview?metric=vol&day=2026-11-23&cells=none',
			'/history/SPX/classic_gex_full/overview?metric=oi&day=2026-11-23&cells=none',
			'/history/SPX/classic_gex_full/moment?day=2026-11-23'
		]);
		expect(asked).toEqual(r.early);
		for (const url of r.early) expect(takeEarly(url)).toBeDefined();
		// The slider settles on a moment: the load runs again and asks nothing more.
		classicLoad(
			event('/SPX/classic/gex_full?day=2026-11-23&at=1795446000', {
				ticker: 'SPX',
				category: 'gex_full'
			})
		);
		expect(asked).toHaveLength(3);
	});

	it('Classic: a linked moment is read by the worker, no last step asked', () => {
		const r = classicLoad(
			event('/SPX/classic/gex_zero?day=2026-11-23&at=1795446000', {
				ticker: 'SPX',
				category: 'gex_zero'
			})
		) as { early: string[] };
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
