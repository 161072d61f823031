/**
 * SnapshotPacer: streamed values reach the snapshot cache at most once per STREAM_SNAPSHOT_MS,
 * never in the call that offered them, always the newest, and a pending one is written at once
 * by flush (page hidden, view gone) or when another route's value arrives.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { FIRST_SNAPSHOT_DELAY_MS, STREAM_SNAPSHOT_MS, SnapshotPacer } from './snapshotPacer';

let writes: { route: string; body: unknown }[];
let made: number;
const pacer = () => new SnapshotPacer((route, body) => writes.push({ route, body }));
const offerTick = (p: SnapshotPacer, route: string, n: number) =>
	p.offer(route, () => (made++, { n }));

beforeEach(() => {
	vi.useFakeTimers();
	writes = [];
	made = 0;
});
afterEach(() => vi.useRealTimers());

describe('SnapshotPacer', () => {
	it('writes one chain a second streamed for a minute 6-7 times, each the newest, none in the offer', () => {
		const p = pacer();
		let offered = 0;
		for (let s = 0; s < 60; s++) {
			offerTick(p, 'SPX/classic/gex_full', ++offered);
			// Never written inside the update that offered it.
			expect(writes.at(-1)?.body).not.toEqual({ n: offered });
			vi.advanceTimersByTime(1_000);
		}
		expect(writes.length).toBeGreaterThanOrEqual(6);
		expect(writes.length).toBeLessThanOrEqual(7);
		// Only written values were made (restBody runs once per write, not per chain).
		expect(made).toBe(writes.length);
		// The first after the short delay, with the first chain; later ones STREAM_SNAPSHOT_MS apart.
		expect(writes[0].body).toEqual({ n: 1 });
		vi.advanceTimersByTime(STREAM_SNAPSHOT_MS);
		expect(writes.at(-1)?.body).toEqual({ n: 60 });
	});

	it('writes the first value after FIRST_SNAPSHOT_DELAY_MS', () => {
		const p = pacer();
		offerTick(p, 'a', 1);
		vi.advanceTimersByTime(FIRST_SNAPSHOT_DELAY_MS - 1);
		expect(writes).toEqual([]);
		vi.advanceTimersByTime(1);
		expect(writes).toEqual([{ route: 'a', body: { n: 1 } }]);
	});

	it('flush writes the pending value at once, and nothing when none is pending', () => {
		const p = pacer();
		offerTick(p, 'a', 1);
		vi.advanceTimersByTime(FIRST_SNAPSHOT_DELAY_MS);
		offerTick(p, 'a', 2);
		p.flush();
		expect(writes.map((w) => w.body)).toEqual([{ n: 1 }, { n: 2 }]);
		p.flush();
		vi.advanceTimersByTime(STREAM_SNAPSHOT_MS * 2);
		expect(writes).toHaveLength(2);
	});

	it("writes another route's pending value before taking the new route's", () => {
		const p = pacer();
		offerTick(p, 'a', 1);
		offerTick(p, 'b', 2);
		expect(writes).toEqual([{ route: 'a', body: { n: 1 } }]);
		vi.advanceTimersByTime(STREAM_SNAPSHOT_MS);
		expect(writes.at(-1)).toEqual({ route: 'b', body: { n: 2 } });
	});
});
