import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buildCandles, candleAt, levelSteps, nearestCandle, stepAt } from './candles';

const OPEN = 1764081000; // Tue Nov 25 2025 09:30 ET, a minute boundary

describe('buildCandles', () => {
	it('makes one-minute OHLC from 5 s spot samples', () => {
		const times = [0, 5, 10, 55, 60, 65, 125].map((s) => OPEN + s);
		const spot = [7520, 7523.5, 7518, 7521, 7522, 7519.25, 7530];
		expect(buildCandles(times, spot)).toEqual([
			{ t: OPEN, open: 7520, high: 7523.5, low: 7518, close: 7521, n: 4 },
			{ t: OPEN + 60, open: 7522, high: 7522, low: 7519.25, close: 7519.25, n: 2 },
			// 09:32 had no sample: no candle, a gap.
			{ t: OPEN + 120, open: 7530, high: 7530, low: 7530, close: 7530, n: 1 }
		]);
	});

	it('skips samples without a price (0 or NaN) and honours length', () => {
		const times = [OPEN, OPEN + 1, OPEN + 2, OPEN + 3];
		expect(buildCandles(times, [0, Number.NaN, 7500, 9999], 3)).toEqual([
			{ t: OPEN, open: 7500, high: 7500, low: 7500, close: 7500, n: 1 }
		]);
	});

	it('property: equals a by-minute grouping of the samples', () => {
		fc.assert(
			fc.property(
				fc.array(
					fc.tuple(
						fc.integer({ min: 0, max: 3 * 3600 }),
						fc.double({ min: 1, max: 9000, noNaN: true })
					),
					{ maxLength: 300 }
				),
				(raw) => {
					const samples = [...raw].sort((a, b) => a[0] - b[0]);
					const candles = buildCandles(
						samples.map((s) => OPEN + s[0]),
						samples.map((s) => s[1])
					);
					const byMinute = new Map<number, number[]>();
					for (const [s, p] of samples) {
						const m = OPEN + Math.floor(s / 60) * 60;
						byMinute.set(m, [...(byMinute.get(m) ?? []), p]);
					}
					expect(candles.map((c) => c.t)).toEqual([...byMinute.keys()]);
					for (const c of candles) {
						const ps = byMinute.get(c.t)!;
						expect(c).toEqual({
							t: c.t,
							open: ps[0],
							high: Math.max(...ps),
							low: Math.min(...ps),
							close: ps[ps.length - 1],
							n: ps.length
						});
						expect(candleAt(candles, c.t + 59)).toBe(candles.indexOf(c));
					}
				}
			)
		);
	});
});

describe('nearestCandle', () => {
	it('reads the candle nearest a pointer between or past the candles', () => {
		const candles = buildCandles([OPEN, OPEN + 60, OPEN + 300], [1, 2, 3]);
		expect(nearestCandle([], OPEN)).toBe(-1);
		expect(nearestCandle(candles, OPEN - 500)).toBe(0);
		expect(nearestCandle(candles, OPEN + 100)).toBe(1);
		expect(nearestCandle(candles, OPEN + 200)).toBe(1);
		expect(nearestCandle(candles, OPEN + 250)).toBe(2);
		expect(nearestCandle(candles, OPEN + 9999)).toBe(2);
	});
});

describe('levelSteps', () => {
	it('takes each minute’s last value, merges equal minutes and names missing levels null', () => {
		const times = [0, 30, 60, 90, 120, 180].map((s) => OPEN + s);
		const zero = [7500, 7505, 7505, 7505, 0, 7490];
		expect(levelSteps(times, zero)).toEqual([
			{ t: OPEN, value: 7505 },
			{ t: OPEN + 120, value: null },
			{ t: OPEN + 180, value: 7490 }
		]);
	});

	it('breaks a level where the samples stop for more than three minutes, not for a missed one', () => {
		// 10 s samples to 09:31:50, none until 09:40:00 (an outage), a missed minute after 09:41.
		const times = [0, 60, 110, 600, 660, 780].map((s) => OPEN + s);
		const zero = [7500, 7500, 7500, 7500, 7500, 7510];
		const steps = levelSteps(times, zero);
		expect(steps).toEqual([
			{ t: OPEN, value: 7500 },
			{ t: OPEN + 120, value: null },
			{ t: OPEN + 600, value: 7500 },
			{ t: OPEN + 780, value: 7510 }
		]);
		expect(stepAt(steps, OPEN + 300)).toBeNull();
		expect(stepAt(steps, OPEN + 700)).toBe(7500);
	});

	it('reads the step in force at a moment', () => {
		const steps = levelSteps([OPEN, OPEN + 60], [7500, 7510]);
		expect(stepAt(steps, OPEN - 1)).toBeNull();
		expect(stepAt(steps, OPEN + 59)).toBe(7500);
		expect(stepAt(steps, OPEN + 600)).toBe(7510);
	});

	it('property: the step at each sample’s minute end is that minute’s last value', () => {
		fc.assert(
			fc.property(
				fc.array(
					fc.tuple(fc.integer({ min: 0, max: 7200 }), fc.constantFrom(0, 7490, 7500, 7510)),
					{
						maxLength: 200
					}
				),
				(raw) => {
					const samples = [...raw].sort((a, b) => a[0] - b[0]);
					const steps = levelSteps(
						samples.map((s) => OPEN + s[0]),
						samples.map((s) => s[1])
					);
					for (let k = 1; k < steps.length; k++) {
						expect(steps[k].t).toBeGreaterThan(steps[k - 1].t);
						expect(steps[k].value).not.toBe(steps[k - 1].value);
					}
					const last = new Map<number, number>();
					for (const [s, v] of samples) last.set(Math.floor(s / 60) * 60, v);
					for (const [m, v] of last) expect(stepAt(steps, OPEN + m + 59)).toBe(v === 0 ? null : v);
				}
			)
		);
	});
});
