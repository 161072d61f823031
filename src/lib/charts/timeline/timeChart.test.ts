import { line, scaleLinear } from 'd3';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
	clampDomain,
	decimate,
	fittedDomain,
	isFullDomain,
	linePath,
	MIN_SPAN_S,
	nearestIndex,
	panDomain,
	timeTicks,
	zoomDomain
} from './timeChart';
import { etDay, etInstant, formatTimeOfDay, sessionBounds } from '../../contract/newYorkTime';

const day = sessionBounds('2026-11-23');
const FULL = { lo: day.open, hi: day.close };

describe('session time', () => {
	it('places the session at 09:30-16:00 New York time on both sides of a DST switch', () => {
		// EST (UTC-5) in November, EDT (UTC-4) in July.
		expect(new Date(day.open * 1000).toISOString()).toBe('2026-11-23T14:30:00.000Z');
		expect(new Date(sessionBounds('2026-07-01').close * 1000).toISOString()).toBe(
			'2026-07-01T20:00:00.000Z'
		);
		// The day after Thanksgiving closes at 13:00 ET.
		expect(new Date(sessionBounds('2026-11-27').close * 1000).toISOString()).toBe(
			'2026-11-27T18:00:00.000Z'
		);
		// The spring-forward day is 23 hours long.
		expect(etInstant('2026-03-08', 24 * 3600) - etInstant('2026-03-08', 0)).toBe(23 * 3600);
		expect(etDay(day.open)).toBe('2026-11-23');
		expect(etDay(etInstant('2026-11-23', 24 * 3600) - 1)).toBe('2026-11-23');
		expect(() => etInstant('23/11/2026', 0)).toThrow(RangeError);
	});

	it('formats a second of the day as a clock', () => {
		expect(formatTimeOfDay(9.5 * 3600)).toBe('09:30');
		expect(formatTimeOfDay(15 * 3600 + 59 * 60 + 58, true)).toBe('15:59:58');
	});
});

describe('zoom domain', () => {
	const domain = fc
		.tuple(fc.double({ min: -1e10, max: 1e10, noNaN: true }), fc.double({ min: 0, max: 1e6 }))
		.map(([lo, span]) => ({ lo, hi: lo + span }));

	it('always lies inside the session with a span between one minute and the session', () => {
		fc.assert(
			fc.property(domain, (d) => {
				const c = clampDomain(d, FULL);
				expect(c.lo).toBeGreaterThanOrEqual(FULL.lo - 1e-6);
				expect(c.hi).toBeLessThanOrEqual(FULL.hi + 1e-6);
				expect(c.hi - c.lo).toBeGreaterThanOrEqual(MIN_SPAN_S - 1e-6);
			})
		);
		expect(clampDomain({ lo: NaN, hi: 5 }, FULL)).toEqual(FULL);
	});

	it('keeps a window that already fits and slides one that overhangs', () => {
		const inside = { lo: FULL.lo + 600, hi: FULL.lo + 1200 };
		expect(clampDomain(inside, FULL)).toEqual(inside);
		expect(clampDomain({ lo: FULL.hi - 100, hi: FULL.hi + 500 }, FULL)).toEqual({
			lo: FULL.hi - 600,
			hi: FULL.hi
		});
		expect(clampDomain({ lo: FULL.lo + 10, hi: FULL.lo + 20 }, FULL).hi - FULL.lo).toBe(60);
	});

	it('zooms around the anchor, which stays at the same screen fraction', () => {
		const anchor = FULL.lo + 3600;
		const z = zoomDomain(FULL, anchor, 0.5, FULL);
		expect(z.hi - z.lo).toBe((FULL.hi - FULL.lo) / 2);
		const before = (anchor - FULL.lo) / (FULL.hi - FULL.lo);
		expect((anchor - z.lo) / (z.hi - z.lo)).toBeCloseTo(before, 9);
		// Zooming out past the session gives the session.
		expect(isFullDomain(zoomDomain(z, anchor, 10, FULL), FULL)).toBe(true);
		// Never narrower than a minute.
		expect(zoomDomain(z, anchor, 1e-9, FULL).hi - zoomDomain(z, anchor, 1e-9, FULL).lo).toBe(60);
	});

	it('pans within the session', () => {
		const w = { lo: FULL.lo + 100, hi: FULL.lo + 700 };
		expect(panDomain(w, -1000, FULL)).toEqual({ lo: FULL.lo, hi: FULL.lo + 600 });
		expect(panDomain(w, 50, FULL)).toEqual({ lo: FULL.lo + 150, hi: FULL.lo + 750 });
	});
});

describe('crosshair lookup', () => {
	it('finds the nearest point (the earlier on a tie) and nothing in an empty series', () => {
		const times = Uint32Array.from([100, 110, 130, 0, 0]);
		expect(nearestIndex(times, 3, 0)).toBe(0);
		expect(nearestIndex(times, 3, 104)).toBe(0);
		expect(nearestIndex(times, 3, 105)).toBe(0);
		expect(nearestIndex(times, 3, 106)).toBe(1);
		expect(nearestIndex(times, 3, 125)).toBe(2);
		expect(nearestIndex(times, 3, 1e9)).toBe(2);
		expect(nearestIndex(times, 0, 100)).toBe(-1);
		expect(nearestIndex(times, 3, NaN)).toBe(-1);
	});

	it('agrees with a linear scan', () => {
		fc.assert(
			fc.property(
				fc.uniqueArray(fc.integer({ min: 0, max: 100_000 }), { minLength: 1, maxLength: 300 }),
				fc.double({ min: -10, max: 100_010, noNaN: true }),
				(ts, t) => {
					const times = Uint32Array.from(ts.sort((a, b) => a - b));
					const i = nearestIndex(times, times.length, t);
					const best = Math.min(...ts.map((x) => Math.abs(x - t)));
					expect(Math.abs(times[i] - t)).toBe(best);
				}
			)
		);
	});
});

describe('time ticks', () => {
	it('puts ticks on whole ET hours over the session and on minutes when zoomed', () => {
		const ticks = timeTicks(FULL, day.midnight, 8);
		expect(ticks.map((t) => formatTimeOfDay(t - day.midnight))).toEqual([
			'10:00',
			'11:00',
			'12:00',
			'13:00',
			'14:00',
			'15:00',
			'16:00'
		]);
		const zoomed = timeTicks({ lo: FULL.lo + 61, hi: FULL.lo + 400 }, day.midnight, 4);
		expect(zoomed.map((t) => formatTimeOfDay(t - day.midnight))).toEqual([
			'09:32',
			'09:34',
			'09:36'
		]);
	});
});

describe('decimate', () => {
	it('keeps every pixel column envelope exact and reaches both edges', () => {
		fc.assert(
			fc.property(
				fc.array(fc.double({ min: -1e6, max: 1e6, noNaN: true }), {
					minLength: 1,
					maxLength: 3000
				}),
				fc.integer({ min: 1, max: 400 }),
				(vals, cols) => {
					const times = Uint32Array.from(vals, (_, i) => 1000 + i);
					const values = Float64Array.from(vals);
					const d = { lo: 1000, hi: 1000 + vals.length - 1 };
					const line = decimate(times, values, vals.length, d, cols);
					expect(line.t.length).toBeLessThanOrEqual(4 * (cols + 1) + 2);
					expect(line.min).toBe(Math.min(...vals));
					expect(line.max).toBe(Math.max(...vals));
					expect(line.t[0]).toBe(1000);
					expect(line.t[line.t.length - 1]).toBe(d.hi);
					for (let i = 1; i < line.t.length; i++) expect(line.t[i]).toBeGreaterThan(line.t[i - 1]);
				}
			)
		);
	});

	it('breaks the line over a silence longer than the gap', () => {
		const times = Uint32Array.from([0, 1, 2, 100, 101]);
		const values = Float64Array.from([1, 2, 3, 4, 5]);
		const line = decimate(times, values, 5, { lo: 0, hi: 101 }, 1000, 30);
		expect([...line.v].map((v) => (Number.isNaN(v) ? null : v))).toEqual([1, 2, 3, null, 4, 5]);
	});
});

describe('fittedDomain', () => {
	it('fits a short series instead of the 09:30-16:00 session', () => {
		const first = day.open + 2 * 3600;
		// Ten minutes of data: the window is those ten minutes and a minute past them.
		expect(fittedDomain(first, first + 600, FULL)).toEqual({ lo: first, hi: first + 660 });
		// Two points a second apart: still five minutes wide, to zoom into.
		expect(fittedDomain(first, first + 1, FULL)).toEqual({ lo: first, hi: first + 300 });
	});

	it('ends at the close once the data reaches it, and is the session without data', () => {
		expect(fittedDomain(day.open, day.close, FULL)).toEqual(FULL);
		expect(fittedDomain(day.close - 60, day.close - 1, FULL)).toEqual({
			lo: day.close - 60,
			hi: day.close
		});
		expect(fittedDomain(NaN, NaN, FULL)).toEqual(FULL);
	});
});

describe('linePath', () => {
	/** A path's commands as [command, x, y]. */
	const commands = (path: string) =>
		[...path.matchAll(/([ML])(-?[\d.e+-]+),(-?[\d.e+-]+)/g)].map(
			(m) => [m[1], +m[2], +m[3]] as const
		);

	it("draws what d3's line with `defined` draws, within 0.05 px (property)", () => {
		const point = fc.oneof(
			fc.tuple(
				fc.double({ min: 0, max: 86_400, noNaN: true }),
				fc.double({ min: -1e9, max: 1e9, noNaN: true })
			),
			fc.constant([Number.NaN, Number.NaN] as [number, number]),
			fc.tuple(fc.double({ min: 0, max: 86_400, noNaN: true }), fc.constant(Number.NaN))
		);
		fc.assert(
			fc.property(
				fc.array(point, { maxLength: 60 }),
				fc.tuple(fc.integer({ min: 0, max: 40_000 }), fc.integer({ min: 1, max: 40_000 })),
				fc.tuple(
					fc.double({ min: -1e9, max: 1e9, noNaN: true }),
					fc.double({ min: 1, max: 1e9, noNaN: true })
				),
				fc.integer({ min: 200, max: 2000 }),
				(points, [lo, span], [vlo, vspan], width) => {
					const drawn = {
						t: Float64Array.from(points, (p) => p[0]),
						v: Float64Array.from(points, (p) => p[1]),
						min: Number.NaN,
						max: Number.NaN
					};
					const x = scaleLinear()
						.domain([lo, lo + span])
						.range([64, width - 10]);
					const y = scaleLinear()
						.domain([vlo, vlo + vspan])
						.range([140, 8]);
					const ours = commands(
						linePath(
							drawn,
							{ domain: [lo, lo + span], range: [64, width - 10] },
							{ domain: [vlo, vlo + vspan], range: [140, 8] }
						)
					);
					const theirs = commands(
						line<number>()
							.defined((i) => Number.isFinite(drawn.v[i]) && Number.isFinite(drawn.t[i]))
							.x((i) => x(drawn.t[i]))
							.y((i) => y(drawn.v[i]))(Array.from(drawn.t, (_, i) => i)) ?? ''
					);
					expect(ours.map((c) => c[0])).toEqual(theirs.map((c) => c[0]));
					ours.forEach(([, px, py], i) => {
						const scale = Math.max(1, Math.abs(theirs[i][1]), Math.abs(theirs[i][2])) * 1e-9;
						expect(Math.abs(px - theirs[i][1])).toBeLessThanOrEqual(0.05 + scale);
						expect(Math.abs(py - theirs[i][2])).toBeLessThanOrEqual(0.05 + scale);
					});
				}
			)
		);
	});

	it('starts a new run after a gap and draws nothing of an empty line', () => {
		const map = { domain: [0, 10] as const, range: [0, 100] as const };
		const d = (t: number[], v: number[]) => ({
			t: Float64Array.from(t),
			v: Float64Array.from(v),
			min: 0,
			max: 0
		});
		expect(linePath(d([0, 1, Number.NaN, 3, 4], [0, 1, Number.NaN, 3, 4]), map, map)).toBe(
			'M0,0L10,10M30,30L40,40'
		);
		expect(linePath(d([], []), map, map)).toBe('');
	});
});
