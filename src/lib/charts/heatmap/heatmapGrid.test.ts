/**
 * The heatmap grid: columns by time, rows by descending strike, a strike appearing mid-session
 * re-seats earlier cells, the same timestamp replaces its column, and the decimation picks the
 * state at each pixel's moment.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { HeatmapGrid, type HeatBlock, type HeatColumn } from './heatmapGrid';
import {
	cadenceAt,
	decimateColumns,
	dirtyPixels,
	lutIndex,
	nextVertex,
	rowOfPrice
} from './heatmapScene';

function col(t: number, strikes: number[], values: number[], spot = 100): HeatColumn {
	return { timestamp: t, spot, zeroGamma: 99, majorPos: 101, majorNeg: 98, strikes, values };
}

describe('HeatmapGrid', () => {
	it('stores cells by column and descending strike', () => {
		const g = HeatmapGrid.from([col(20, [100, 105], [3, -4]), col(10, [95, 100], [1, 2])]);
		expect([...g.strikes]).toEqual([105, 100, 95]);
		expect([...g.times.subarray(0, g.length)]).toEqual([10, 20]);
		expect(g.value(0, 2)).toBe(1);
		expect(g.value(0, 1)).toBe(2);
		expect(g.value(0, 0)).toBeNaN();
		expect(g.value(1, 0)).toBe(-4);
		expect(g.maxAbs).toBe(4);
	});

	it('re-seats earlier cells when a new strike appears, replaces a repeated timestamp', () => {
		const g = new HeatmapGrid();
		g.append(col(1, [100], [5]));
		expect(g.append(col(2, [110, 100], [7, 6]))).toBe('appended');
		expect([...g.strikes]).toEqual([110, 100]);
		expect(g.value(0, 1)).toBe(5);
		expect(g.value(0, 0)).toBeNaN();
		expect(g.append(col(2, [110, 100], [8, 9]))).toBe('replaced');
		expect(g.value(1, 0)).toBe(8);
		expect(g.append(col(1, [100], [0]))).toBe('older');
		expect(g.length).toBe(2);
	});

	it('keeps every appended value retrievable (property)', () => {
		fc.assert(
			fc.property(
				fc.array(
					fc.array(fc.tuple(fc.integer({ min: 1, max: 40 }), fc.float({ noNaN: true })), {
						minLength: 1,
						maxLength: 8
					}),
					{ minLength: 1, maxLength: 30 }
				),
				(columns) => {
					const g = new HeatmapGrid();
					const expected: Map<number, number>[] = [];
					columns.forEach((cells, i) => {
						const m = new Map(cells.map(([s, v]) => [s * 5, Math.fround(v)]));
						g.append(col(i + 1, [...m.keys()], [...m.values()]));
						expected.push(m);
					});
					expected.forEach((m, c) => {
						for (const [strike, v] of m) expect(g.value(c, g.rowNear(strike))).toBe(v);
					});
				}
			)
		);
	});

	it('fills a block of columns in one pass to the grid appending them one by one gives (property)', () => {
		const cell = fc.oneof(fc.float(), fc.constant(Number.NaN));
		const block = fc
			.record({
				strikes: fc.array(fc.oneof(fc.integer({ min: 1, max: 60 }), fc.constant(Number.NaN)), {
					minLength: 1,
					maxLength: 12
				}),
				// Mostly ascending times (an overview's), sometimes not (the fallback).
				times: fc.oneof(
					fc
						.uniqueArray(fc.integer({ min: 0, max: 1000 }), { maxLength: 20 })
						.map((t) => t.sort((a, b) => a - b)),
					fc.array(fc.integer({ min: 0, max: 30 }), { maxLength: 20 })
				),
				live: fc.array(
					fc.tuple(fc.integer({ min: 0, max: 2000 }), fc.integer({ min: 1, max: 80 }), cell),
					{ minLength: 1, maxLength: 4 }
				),
				// The strikes as an overview lists them (distinct, descending), and its cells
				// handed over: the grid keeps them as its store.
				overview: fc.boolean()
			})
			.map((r) =>
				r.overview
					? { ...r, strikes: [...new Set(r.strikes.filter(Number.isFinite))].sort((a, b) => b - a) }
					: r
			)
			.chain(({ strikes, times, live, overview }) =>
				fc
					.array(cell, {
						minLength: strikes.length * times.length,
						maxLength: strikes.length * times.length
					})
					.map((values) => ({ strikes: strikes.map((s) => s * 5), times, values, live, overview }))
			);
		fc.assert(
			fc.property(block, ({ strikes, times, values, live, overview }) => {
				const cells = Float32Array.from(values);
				const b: HeatBlock = {
					times,
					spot: times.map((t) => t + 0.5),
					zeroGamma: times.map((t) => t - 1),
					majorPos: times.map((t) => t * 2),
					majorNeg: times.map((t) => -t),
					strikes,
					values: cells
				};
				const one = HeatmapGrid.fromBlock(
					overview ? { ...b, values: cells.slice(), handOver: true } : b
				);
				const columns = times.map((t, c) => ({
					...col(t, strikes, [...cells.subarray(c * strikes.length, (c + 1) * strikes.length)]),
					spot: b.spot[c],
					zeroGamma: b.zeroGamma[c],
					majorPos: b.majorPos[c],
					majorNeg: b.majorNeg[c]
				}));
				const each = HeatmapGrid.from(columns);
				// Live columns after it land the same way too (a handed-over store grows first).
				for (const [t, pick, v] of live) {
					// Mostly a strike the block has (its store must grow), sometimes a new one.
					const strike =
						pick <= 60 && strikes.length > 0 ? strikes[pick % strikes.length] : pick * 5;
					const next = col(t, [strike], [v]);
					expect(one.append(next)).toBe(each.append(next));
				}
				const seen = (g: HeatmapGrid) => ({
					length: g.length,
					strikes: [...g.strikes],
					ladder: [...g.ladder],
					maxAbs: g.maxAbs,
					lines: (['times', 'spot', 'zeroGamma', 'majorPos', 'majorNeg'] as const).map((k) => [
						...g[k].subarray(0, g.length)
					]),
					values: [...g.values.subarray(0, g.length * g.rows)]
				});
				expect(seen(one)).toEqual(seen(each));
			})
		);
	});

	it('decimates to the state at each pixel, blank before the first column and after a gap', () => {
		const g = new HeatmapGrid();
		for (let t = 100; t < 200; t++) g.append(col(t, [1], [t]));
		for (let t = 400; t < 410; t++) g.append(col(t, [1], [t]));
		const cols = decimateColumns(g, 0, 1000, 10, 200);
		// Pixel centres at 50, 150, ..., 950 s: a 200 s gap in a feed a second apart is an
		// outage, not held (t=199 is held 30 s at most); t=409, the last, only to its own pixel.
		expect([...cols]).toEqual([-1, 50, -1, -1, 109, -1, -1, -1, -1, -1]);
	});

	it('holds a column over a missed step or two of its cadence, never over an outage', () => {
		// A day recorded every 10 s: one step missed at 200 s, then three minutes missed after 300 s.
		const g = new HeatmapGrid();
		for (let t = 100; t <= 190; t += 10) g.append(col(t, [1], [t]));
		for (let t = 210; t <= 300; t += 10) g.append(col(t, [1], [t]));
		for (let t = 480; t <= 600; t += 10) g.append(col(t, [1], [t]));
		const at = (t: number) => decimateColumns(g, t - 0.5, t + 0.5, 1)[0];
		expect(g.times[at(205)]).toBe(190); // the missed step: held
		expect(g.times[at(320)]).toBe(300); // 20 s on: held
		expect(at(340)).toBe(-1); // past three steps: the outage is blank
		expect(at(470)).toBe(-1);
		expect(g.times[at(480)]).toBe(480);
		// The service's day a minute apart: a missed minute is held, five are not (the cap).
		const m = new HeatmapGrid();
		for (let t = 0; t <= 600; t += 60) m.append(col(t, [1], [t]));
		for (let t = 1200; t <= 1500; t += 60) m.append(col(t, [1], [t]));
		const atM = (t: number) => decimateColumns(m, t - 0.5, t + 0.5, 1)[0];
		expect(m.times[atM(770)]).toBe(600);
		expect(atM(1000)).toBe(-1);
	});

	it('reads the cadence near a column as the median of the intervals up to it', () => {
		const g = new HeatmapGrid();
		for (const t of [0, 10, 20, 200, 210, 220, 230]) g.append(col(t, [1], [t]));
		expect(cadenceAt(g, 0)).toBe(10);
		expect(cadenceAt(g, 3)).toBe(10); // 10, 10, 180: the outage does not count
		expect(cadenceAt(g, 6)).toBe(10);
		// Appending never changes a column's cadence but the first's.
		const before = [1, 2, 3, 4, 5, 6].map((c) => cadenceAt(g, c));
		g.append(col(900, [1], [1]));
		expect([1, 2, 3, 4, 5, 6].map((c) => cadenceAt(g, c))).toEqual(before);
	});

	it('holds the last column one interval at most: the live edge does not run into the future', () => {
		const g = new HeatmapGrid();
		// A live view 10 s into a 30-minute window, one column a second, 600 pixels (3 s each).
		for (let t = 1000; t < 1010; t++) g.append(col(t, [1], [t]));
		const cols = decimateColumns(g, 1000, 2800, 600);
		const shown = [...cols].filter((c) => c >= 0).length;
		expect(shown).toBeGreaterThanOrEqual(3);
		expect(shown).toBeLessThanOrEqual(4);
		expect(cols[10]).toBe(-1);
	});

	it('maps prices to fractional rows and values to the diverging scale', () => {
		const g = HeatmapGrid.from([col(1, [110, 105, 100], [0, 0, 0])]);
		expect(rowOfPrice(g, 105)).toBe(1);
		expect(rowOfPrice(g, 102.5)).toBe(1.5);
		expect(lutIndex(0, 10)).toBe(128);
		expect(lutIndex(-10, 10)).toBe(0);
		expect(lutIndex(99, 10)).toBe(255);
	});

	it('an append dirties exactly the pixels whose decimated column changed or shows the new tail', () => {
		fc.assert(
			fc.property(
				fc.integer({ min: 1, max: 60 }),
				fc.integer({ min: 1, max: 40 }),
				fc.integer({ min: 1, max: 120 }),
				fc.integer({ min: 20, max: 200 }),
				(before, added, step, width) => {
					const g = new HeatmapGrid();
					for (let i = 0; i < before; i++) g.append(col(1000 + i * step, [1], [i]));
					const t1 = 1000 + (before + added) * step + 400;
					const old = decimateColumns(g, 1000, t1, width, 300);
					const from = g.length - 1;
					for (let i = before; i < before + added; i++) g.append(col(1000 + i * step, [1], [i]));
					const now = decimateColumns(g, 1000, t1, width, 300);
					const range = dirtyPixels(old, now, from);
					for (let x = 0; x < width; x++) {
						const must = now[x] !== old[x] || (now[x] >= from && now[x] >= 0);
						if (must) {
							expect(range).not.toBeNull();
							expect(x).toBeGreaterThanOrEqual(range![0]);
							expect(x).toBeLessThanOrEqual(range![1]);
						}
					}
					// Pixels left of the range still show what they showed: nothing there to repaint.
					if (range) for (let x = 0; x < range[0]; x++) expect(now[x]).toBe(old[x]);
				}
			)
		);
	});

	it('reports no dirty pixels when an append is outside the view', () => {
		const g = new HeatmapGrid();
		for (let t = 100; t < 110; t++) g.append(col(t, [1], [t]));
		const old = decimateColumns(g, 0, 50, 10);
		g.append(col(500, [1], [1]));
		expect(dirtyPixels(old, decimateColumns(g, 0, 50, 10), g.length - 2)).toBeNull();
	});

	it('puts a line vertex on every other pixel and on the last one', () => {
		const xs = (w: number) => {
			const out: number[] = [];
			for (let x = 0; x < w; x = nextVertex(x, w)) out.push(x);
			return out;
		};
		expect(xs(7)).toEqual([0, 2, 4, 6]);
		expect(xs(8)).toEqual([0, 2, 4, 6, 7]);
	});
});
