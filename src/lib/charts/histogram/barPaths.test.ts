import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { barPaths, type BarGeometry } from './barPaths';

/** Reads the rectangles back out of a path written by barPaths. */
function rects(d: string): { x: number; y: number; w: number; h: number }[] {
	const out: { x: number; y: number; w: number; h: number }[] = [];
	const re = /M(-?[\d.e+-]+) (-?[\d.e+-]+)h(-?[\d.e+-]+)v(-?[\d.e+-]+)h(-?[\d.e+-]+)z/g;
	let consumed = 0;
	for (let m = re.exec(d); m; m = re.exec(d)) {
		expect(m.index).toBe(consumed); // nothing between subpaths
		consumed = m.index + m[0].length;
		const [x, y, w, h, back] = m.slice(1).map(Number);
		expect(back).toBe(-w); // closes on itself
		out.push({ x, y, w, h });
	}
	expect(consumed).toBe(d.length);
	return out;
}

const bar = fc.record({
	strike: fc.integer({ min: 1, max: 20_000 }),
	x: fc.double({ min: -1e4, max: 1e4, noNaN: true }),
	y: fc.double({ min: -1e4, max: 1e4, noNaN: true }),
	h: fc.double({ min: 0, max: 1e4, noNaN: true }),
	positive: fc.boolean(),
	maxChange: fc.boolean()
});

describe('barPaths', () => {
	it('draws each bar once, in the fill of its sign, and outlines exactly the max change bars', () => {
		fc.assert(
			fc.property(
				fc.array(bar, { maxLength: 60 }),
				fc.double({ min: 0.5, max: 50, noNaN: true }),
				(bars, w) => {
					const p = barPaths(bars, w);
					// + 0: a -0 coordinate is written as "0", the same pixel.
					const geom = (b: BarGeometry) => ({ x: b.x + 0, y: b.y + 0, w, h: b.h + 0 });
					expect(rects(p.pos)).toEqual(bars.filter((b) => b.positive).map(geom));
					expect(rects(p.neg)).toEqual(bars.filter((b) => !b.positive).map(geom));
					expect(rects(p.maxChange)).toEqual(bars.filter((b) => b.maxChange).map(geom));
				}
			)
		);
	});

	it('writes a small example exactly', () => {
		const bars: BarGeometry[] = [
			{ strike: 100, x: 10, y: 20, h: 5, positive: true, maxChange: false },
			{ strike: 105, x: 16, y: 25, h: 7.5, positive: false, maxChange: true }
		];
		expect(barPaths(bars, 4)).toEqual({
			pos: 'M10 20h4v5h-4z',
			neg: 'M16 25h4v7.5h-4z',
			maxChange: 'M16 25h4v7.5h-4z'
		});
		expect(barPaths([], 4)).toEqual({ pos: '', neg: '', maxChange: '' });
	});
});

it('writes a -0 coordinate as 0', () => {
	const b: BarGeometry = { strike: 1, x: 0, y: -0, h: 0, positive: false, maxChange: false };
	expect(barPaths([b], 1).neg).toBe('M0 0h1v0h-1z');
});
