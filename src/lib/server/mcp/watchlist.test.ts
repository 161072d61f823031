/**
 * The watchlist watch: however fast the levels client's updates come, a subscriber hears of a
 * change at most once a second, and not at all when the levels did not change.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { LevelsDocument } from '../../levels/document';
import type { McpDeps } from './tools';
import { NOTIFY_EVERY_MS, WatchlistWatch } from './watchlist';

let spot = 100;
let fire: () => void = () => undefined;

const deps: McpDeps = {
	levels: async (r) => ({
		ok: true,
		doc: { ticker: r.ticker, spot, levels: [], max_change: [] } as unknown as LevelsDocument
	}),
	recorder: () => {
		throw new Error('not used');
	},
	firings: () => [],
	watchlist: () => ({ tickers: ['SPX'], source: 'default' }),
	held: () => []
};

beforeEach(() => {
	vi.useFakeTimers();
	spot = 100;
});
afterEach(() => vi.useRealTimers());

function watch(): WatchlistWatch {
	return new WatchlistWatch(deps, (listener) => {
		fire = listener;
		return () => (fire = () => undefined);
	});
}

describe('WatchlistWatch', () => {
	it('announces a change at most once a second, however many updates arrive', async () => {
		const w = watch();
		const heard: number[] = [];
		w.add(() => heard.push(Date.now()));
		await vi.advanceTimersByTimeAsync(0);
		// 50 updates a second for 3 seconds, each moving spot.
		for (let i = 0; i < 150; i++) {
			spot += 1;
			fire();
			await vi.advanceTimersByTimeAsync(20);
		}
		await vi.advanceTimersByTimeAsync(NOTIFY_EVERY_MS);
		expect(heard.length).toBeGreaterThanOrEqual(3);
		expect(heard.length).toBeLessThanOrEqual(4);
		for (let i = 1; i < heard.length; i++) {
			expect(heard[i] - heard[i - 1]).toBeGreaterThanOrEqual(NOTIFY_EVERY_MS);
		}
		w.stop();
	});

	it('stays quiet when updates leave the levels as they were; stops when the last one leaves', async () => {
		const w = watch();
		const heard: number[] = [];
		const off = w.add(() => heard.push(Date.now()));
		await vi.advanceTimersByTimeAsync(0);
		for (let i = 0; i < 10; i++) {
			fire();
			await vi.advanceTimersByTimeAsync(500);
		}
		expect(heard).toEqual([]);
		spot = 101;
		fire();
		await vi.advanceTimersByTimeAsync(NOTIFY_EVERY_MS);
		expect(heard).toHaveLength(1);
		off();
		spot = 102;
		fire();
		await vi.advanceTimersByTimeAsync(NOTIFY_EVERY_MS * 2);
		expect(heard).toHaveLength(1);
	});
});

describe('WatchlistWatch with sessions of different lists', () => {
	/** A session's own watchlist content, of `tickers`, with each ticker's spot from `spots`. */
	const own = (tickers: string[], spots: Record<string, number>) => () =>
		Promise.resolve({
			watchlist: tickers,
			source: 'user',
			category: 'gex_full' as const,
			levels: Object.fromEntries(
				tickers.map((t) => [
					t,
					{ ticker: t, spot: spots[t], levels: [], max_change: [] } as unknown as LevelsDocument
				])
			)
		});

	it("tells a session of its own tickers' changes only, not of another user's", async () => {
		const spots: Record<string, number> = { SPX: 100, NDX: 200 };
		const w = watch();
		const a: number[] = [];
		const b: number[] = [];
		w.add(() => a.push(Date.now()), own(['SPX'], spots));
		w.add(() => b.push(Date.now()), own(['NDX'], spots));
		await vi.advanceTimersByTimeAsync(0);
		spots.NDX = 201;
		fire();
		await vi.advanceTimersByTimeAsync(NOTIFY_EVERY_MS);
		expect([a.length, b.length]).toEqual([0, 1]);
		spots.SPX = 101;
		fire();
		await vi.advanceTimersByTimeAsync(NOTIFY_EVERY_MS);
		expect([a.length, b.length]).toEqual([1, 1]);
		w.stop();
	});

	it('goes on telling the others when one session cannot read its list', async () => {
		const spots: Record<string, number> = { SPX: 100 };
		const w = watch();
		const heard: number[] = [];
		w.add(
			() => undefined,
			() => Promise.reject(new Error('database busy'))
		);
		w.add(() => heard.push(Date.now()), own(['SPX'], spots));
		await vi.advanceTimersByTimeAsync(0);
		spots.SPX = 101;
		fire();
		await vi.advanceTimersByTimeAsync(NOTIFY_EVERY_MS);
		expect(heard).toHaveLength(1);
		w.stop();
	});
});
