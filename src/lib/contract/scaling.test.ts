import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
	fromWire,
	INT32_MAX,
	INT32_MIN,
	S1000,
	S100,
	toWire,
	U100,
	U1000,
	UINT32_MAX,
	wireRange
} from './scaling';

describe('wire scaling', () => {
	it('truncates the decimal value, not its binary approximation', () => {
		expect(toWire(7138.55, U100)).toBe(713855);
		expect(toWire(0.118, S1000)).toBe(118);
		expect(toWire(-228.019, S100)).toBe(-22801);
		expect(toWire(1.23456, U1000)).toBe(1234);
	});

	it('clamps deliberately instead of wrapping', () => {
		expect(toWire(-5, U100)).toBe(0);
		expect(toWire(1e12, U100)).toBe(UINT32_MAX);
		expect(toWire(3_000_000, S1000)).toBe(INT32_MAX);
		expect(toWire(-3_000_000, S1000)).toBe(INT32_MIN);
		expect(toWire(Number.NaN, S100)).toBe(0);
		expect(toWire(undefined, S100)).toBe(0);
		expect(Object.is(toWire(-0.001, S100), 0)).toBe(true);
	});

	it('round-trips within one scale unit inside the range', () => {
		for (const spec of [U100, U1000, S100, S1000]) {
			const { min, max } = wireRange(spec);
			fc.assert(
				fc.property(fc.double({ min, max, noNaN: true }), (v) => {
					const back = fromWire(toWire(v, spec), spec);
					expect(Math.abs(back - v)).toBeLessThanOrEqual(1 / spec.scale + 1e-9 * Math.abs(v));
					// Truncation goes toward zero.
					expect(Math.abs(back)).toBeLessThanOrEqual(Math.abs(v) + 1e-9 * Math.abs(v));
				})
			);
		}
	});

	it('always lands in the wire range', () => {
		fc.assert(
			fc.property(fc.double(), (v) => {
				const u = toWire(v, U100);
				const s = toWire(v, S1000);
				expect(Number.isInteger(u) && u >= 0 && u <= UINT32_MAX).toBe(true);
				expect(Number.isInteger(s) && s >= INT32_MIN && s <= INT32_MAX).toBe(true);
			})
		);
	});
});
