import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fromCompactDate, isCalendarDate, isCompactDate, toCompactDate } from './dates';

describe('calendar dates', () => {
	it('accepts real dates only', () => {
		expect(isCalendarDate('2024-02-29')).toBe(true);
		expect(isCalendarDate('2026-02-29')).toBe(false);
		expect(isCalendarDate('2026-04-31')).toBe(false);
		expect(isCalendarDate('2026-13-01')).toBe(false);
		expect(isCalendarDate('2026-1-01')).toBe(false);
		expect(isCompactDate('20260717')).toBe(true);
		expect(isCompactDate('20260732')).toBe(false);
	});

	it('round-trips every real date', () => {
		fc.assert(
			fc.property(
				fc.date({ min: new Date('1990-01-01'), max: new Date('2100-12-31'), noInvalidDate: true }),
				(d) => {
					const iso = d.toISOString().slice(0, 10);
					expect(isCalendarDate(iso)).toBe(true);
					expect(fromCompactDate(toCompactDate(iso))).toBe(iso);
				}
			)
		);
	});
});
