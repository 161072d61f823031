import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
	CHUNK_SECONDS,
	DaySeries,
	FLOW_SERIES,
	flowValues,
	mergeChunks,
	SERIES_COUNT,
	SeriesError,
	type SeriesChunk
} from './orderflowSeries';
import { etInstant } from '../../contract/newYorkTime';

const OPEN = etInstant('2026-11-23', 9.5 * 3600);
const row = (x: number) => FLOW_SERIES.map((_, s) => x * 10 + s);

function points(series: DaySeries): [number, number][] {
	return Array.from({ length: series.length }, (_, i) => [series.times[i], series.values[0][i]]);
}

describe('DaySeries', () => {
	it('appends in order and keeps one point per timestamp, newest value winning', () => {
		const s = new DaySeries();
		expect(s.append(OPEN, row(1))).toBe('appended');
		expect(s.append(OPEN + 1, row(2))).toBe('appended');
		expect(s.append(OPEN + 1, row(3))).toBe('replaced');
		expect(s.day).toBe('2026-11-23');
		expect(points(s)).toEqual([
			[OPEN, 10],
			[OPEN + 1, 30]
		]);
		expect(s.values[6][1]).toBe(36);
	});

	it('inserts a late point in time order', () => {
		const s = new DaySeries();
		s.append(OPEN + 10, row(1));
		s.append(OPEN + 30, row(3));
		expect(s.append(OPEN + 20, row(2))).toBe('inserted');
		expect(points(s).map(([t]) => t - OPEN)).toEqual([10, 20, 30]);
	});

	it('matches a sorted, deduplicated model for any arrival order (grows past its capacity)', () => {
		fc.assert(
			fc.property(
				fc.array(fc.tuple(fc.integer({ min: 0, max: 23_400 }), fc.integer()), { maxLength: 3000 }),
				(arrivals) => {
					const s = new DaySeries();
					const model = new Map<number, number>();
					for (const [dt, x] of arrivals) {
						s.append(OPEN + dt, row(x));
						model.set(OPEN + dt, x * 10);
					}
					const expected = [...model.entries()].sort((a, b) => a[0] - b[0]);
					expect(points(s)).toEqual(expected);
				}
			),
			{ numRuns: 60 }
		);
	});

	it('starts a new series on a later ET day and ignores points of an earlier day', () => {
		const s = new DaySeries();
		s.append(OPEN, row(1));
		s.append(OPEN + 60, row(2));
		const nextOpen = etInstant('2026-11-24', 9.5 * 3600);
		expect(s.append(nextOpen, row(5))).toBe('rolled-over');
		expect(s.day).toBe('2026-11-24');
		expect(points(s)).toEqual([[nextOpen, 50]]);
		expect(s.append(OPEN + 120, row(9))).toBe('older-day');
		expect(s.length).toBe(1);
	});

	it('uses the ET calendar day, not UTC: 19:30 ET is still the same session day', () => {
		const s = new DaySeries();
		s.append(OPEN, row(1));
		// 19:30 ET on Nov 23 is 00:30 UTC on Nov 24.
		expect(s.append(OPEN + 10 * 3600, row(2))).toBe('appended');
		expect(s.day).toBe('2026-11-23');
	});

	it('marks the chunks a point changed and copies a chunk out', () => {
		const s = new DaySeries();
		s.append(OPEN, row(1));
		s.append(OPEN + CHUNK_SECONDS, row(2));
		s.append(OPEN + 1, row(3));
		const dirty = s.takeDirty();
		expect(dirty).toHaveLength(2);
		expect(s.takeDirty()).toEqual([]);
		const c = s.chunk(dirty[0]);
		expect([...c.times]).toEqual([OPEN, OPEN + 1]);
		expect(c.values).toHaveLength(SERIES_COUNT);
		expect([...c.values[0]]).toEqual([10, 30]);
	});

	it('merges stored points without overriding the ones it holds', () => {
		const s = new DaySeries();
		s.append(OPEN + 5, row(7));
		const stored: SeriesChunk = {
			times: Uint32Array.from([OPEN, OPEN + 5, OPEN + 9]),
			values: FLOW_SERIES.map(() => Float64Array.from([1, 2, 3]))
		};
		s.merge(stored);
		expect(points(s)).toEqual([
			[OPEN, 1],
			[OPEN + 5, 70],
			[OPEN + 9, 3]
		]);
	});

	it('refuses a timestamp that is not a unix second and a row of the wrong width', () => {
		const s = new DaySeries();
		expect(() => s.append(1.5, row(1))).toThrow(SeriesError);
		expect(() => s.append(-1, row(1))).toThrow(SeriesError);
		expect(() => s.append(OPEN, [1, 2])).toThrow(SeriesError);
		expect(s.length).toBe(0);
	});

	it('reads the series fields of an orderflow payload in order', () => {
		const body = Object.fromEntries(FLOW_SERIES.map((k, i) => [k, i + 0.5]));
		expect(flowValues({ timestamp: 1, ticker: 'SPX', ...body } as never)).toEqual(
			FLOW_SERIES.map((_, i) => i + 0.5)
		);
	});
});

describe('mergeChunks', () => {
	const chunkOf = (entries: [number, number][]): SeriesChunk => ({
		times: Uint32Array.from(entries.map(([t]) => t)),
		values: FLOW_SERIES.map(() => Float64Array.from(entries.map(([, v]) => v)))
	});

	it('is the sorted union by timestamp with the second chunk winning ties', () => {
		fc.assert(
			fc.property(
				fc.uniqueArray(fc.integer({ min: 1, max: 5000 }), { maxLength: 200 }),
				fc.uniqueArray(fc.integer({ min: 1, max: 5000 }), { maxLength: 200 }),
				(a, b) => {
					const stored = chunkOf(a.sort((x, y) => x - y).map((t) => [t, -t]));
					const mine = chunkOf(b.sort((x, y) => x - y).map((t) => [t, t]));
					const merged = mergeChunks(stored, mine);
					const model = new Map<number, number>();
					for (const t of a) model.set(t, -t);
					for (const t of b) model.set(t, t);
					const expected = [...model.entries()].sort((x, y) => x[0] - y[0]);
					expect([...merged.times]).toEqual(expected.map(([t]) => t));
					expect([...merged.values[3]]).toEqual(expected.map(([, v]) => v));
				}
			)
		);
	});
});
