import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
	labelWidth,
	placeInRows,
	spreadOnAxis,
	type Align,
	type LabelRequest
} from './labelPlacement';

const labels = fc
	.array(
		fc.record({
			anchor: fc.double({ min: 0, max: 400, noNaN: true }),
			size: fc.integer({ min: 4, max: 90 })
		}),
		{ maxLength: 14 }
	)
	.map((xs) => xs.map((x, i): LabelRequest => ({ id: `l${i}`, ...x })));

describe('placeInRows', () => {
	it('puts the issue’s Classic labels (now/5m/10m/15m, 30m, 1m beside spot) on separate rows', () => {
		const texts = ['▼ now/5m/10m/15m', '▼ 30m', '▼ 1m'];
		const placed = placeInRows(
			texts.map((t, i) => ({ id: t, anchor: 100 + i * 8, size: labelWidth(t, 10) })),
			{ min: 0, max: 390 }
		);
		expect(placed.map((p) => p.row)).toEqual([0, 1, 2]);
		expect(placed.map((p) => p.start)).toEqual([100, 108, 116]);
	});

	it('keeps far apart labels on the first row at their anchors, clamped inside the plot', () => {
		const placed = placeInRows(
			[
				{ id: 'a', anchor: 10, size: 30 },
				{ id: 'b', anchor: 200, size: 30 },
				{ id: 'c', anchor: 390, size: 30 }
			],
			{ min: 0, max: 400 }
		);
		expect(placed.map((p) => [p.id, p.start, p.row])).toEqual([
			['a', 10, 0],
			['b', 200, 0],
			['c', 370, 0]
		]);
	});

	it('leaves a label that fits in none of maxRows unplaced (row -1)', () => {
		const placed = placeInRows(
			[0, 1, 2].map((i) => ({ id: `${i}`, anchor: 50, size: 40 })),
			{ min: 0, max: 400, maxRows: 2 }
		);
		expect(placed.map((p) => p.row)).toEqual([0, 1, -1]);
	});

	it('property: placed labels never overlap, stay at their anchors unless clamped, in order', () => {
		fc.assert(
			fc.property(labels, fc.integer({ min: 1, max: 6 }), (items, maxRows) => {
				const placed = placeInRows(items, { min: 0, max: 400, gap: 3, maxRows });
				expect(placed.map((p) => p.id)).toEqual(items.map((i) => i.id));
				for (const p of placed) {
					expect(p.row).toBeLessThan(maxRows);
					const fits = p.anchor + p.size <= 400;
					if (fits) expect(p.start).toBe(p.anchor);
					else expect(p.start).toBe(Math.max(0, 400 - p.size));
				}
				for (let r = 0; r < maxRows; r++) {
					const row = placed.filter((p) => p.row === r).sort((a, b) => a.start - b.start);
					for (let k = 1; k < row.length; k++) {
						expect(row[k].start).toBeGreaterThanOrEqual(row[k - 1].start + row[k - 1].size + 3);
					}
				}
				// Deterministic: the same input gives the same places.
				expect(placeInRows(items, { min: 0, max: 400, gap: 3, maxRows })).toEqual(placed);
			})
		);
	});

	it('property: labels clamped at either edge (anchors past it, any align) still never overlap', () => {
		const edgy = fc
			.array(
				fc.record({
					anchor: fc.oneof(
						fc.double({ min: -120, max: 20, noNaN: true }),
						fc.double({ min: 300, max: 520, noNaN: true })
					),
					size: fc.integer({ min: 4, max: 120 })
				}),
				{ maxLength: 10 }
			)
			.map((xs) => xs.map((x, i): LabelRequest => ({ id: `e${i}`, ...x })));
		fc.assert(
			fc.property(
				edgy,
				fc.constantFrom('start', 'middle', 'end') as fc.Arbitrary<Align>,
				(items, align) => {
					const placed = placeInRows(items, { min: 0, max: 390, gap: 3, align });
					for (const p of placed) {
						expect(p.start).toBeGreaterThanOrEqual(0);
						expect(p.start + p.size).toBeLessThanOrEqual(390 + 1e-9);
					}
					for (let i = 0; i < placed.length; i++) {
						for (let j = i + 1; j < placed.length; j++) {
							const [a, b] = [placed[i], placed[j]];
							if (a.row !== b.row) continue;
							const overlap =
								Math.min(a.start + a.size, b.start + b.size) - Math.max(a.start, b.start);
							expect(overlap).toBeLessThanOrEqual(-3 + 1e-9);
						}
					}
				}
			)
		);
	});

	it('puts the phone’s zero γ 7,547.22 and major + 7,590 (both clamped at the right edge) on two rows', () => {
		const texts = ['zero γ 7,547.22', 'major + 7,590'];
		const placed = placeInRows(
			[
				{ id: 'zero', anchor: 330, size: labelWidth(texts[0]) },
				{ id: 'mpos', anchor: 372, size: labelWidth(texts[1]) }
			],
			{ min: 40, max: 380 }
		);
		expect(placed.map((p) => p.row)).toEqual([0, 1]);
		expect(placed.map((p) => p.start + p.size)).toEqual([380, 380]);
	});
});

describe('spreadOnAxis', () => {
	it('separates NDX zero γ and major + a few pixels apart, around their anchors', () => {
		const placed = spreadOnAxis(
			[
				{ id: 'zero', anchor: 200, size: 12 },
				{ id: 'mpos', anchor: 204, size: 12 }
			],
			{ min: 0, max: 400 }
		);
		const [z, m] = placed;
		expect(m.centre - z.centre).toBeGreaterThanOrEqual(14);
		expect(z.centre).toBeLessThan(200);
		expect(m.centre).toBeGreaterThan(204);
	});

	it('keeps the gap between labels that only nearly touch', () => {
		const [a, b] = spreadOnAxis(
			[
				{ id: 'a', anchor: 100, size: 10 },
				{ id: 'b', anchor: 111, size: 10 }
			],
			{ min: 0, max: 400, gap: 2 }
		);
		expect(b.centre - a.centre).toBe(12);
		expect((a.centre + b.centre) / 2).toBe(105.5);
	});

	it('leaves labels that do not touch where they are', () => {
		const items = [
			{ id: 'a', anchor: 20, size: 12 },
			{ id: 'b', anchor: 120, size: 12 }
		];
		expect(spreadOnAxis(items, { min: 0, max: 400 }).map((p) => p.centre)).toEqual([20, 120]);
	});

	it('property: no overlap, anchors’ order kept, inside the bounds and near the anchor when they fit', () => {
		fc.assert(
			fc.property(labels, (items) => {
				const gap = 2;
				const placed = spreadOnAxis(items, { min: 0, max: 400, gap });
				expect(placed.map((p) => p.id)).toEqual(items.map((i) => i.id));
				const sorted = placed
					.map((p, i) => ({ ...p, i }))
					.sort((a, b) => a.anchor - b.anchor || a.i - b.i);
				for (let k = 1; k < sorted.length; k++) {
					const [a, b] = [sorted[k - 1], sorted[k]];
					expect(b.centre - b.size / 2).toBeGreaterThanOrEqual(a.centre + a.size / 2 + gap - 1e-9);
				}
				const total = items.reduce((s, l) => s + l.size + gap, 0);
				for (const p of placed) {
					// Never further from its anchor than the whole stack of labels is long.
					expect(Math.abs(p.centre - p.anchor)).toBeLessThanOrEqual(total + 1e-9);
					if (total <= 400) {
						expect(p.centre - p.size / 2).toBeGreaterThanOrEqual(-1e-9);
						expect(p.centre + p.size / 2).toBeLessThanOrEqual(400 + 1e-9);
					}
				}
			})
		);
	});
});
