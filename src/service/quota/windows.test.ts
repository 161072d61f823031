import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { etDate, etParts, nextEtMidnight, quotaWindowIds } from './windows';

describe('ET quota windows', () => {
	it('switches the daily window at 00:00 New York time in winter (UTC-5)', () => {
		expect(etDate(new Date('2026-01-15T04:59:59Z'))).toBe('2026-01-14');
		expect(etDate(new Date('2026-01-15T05:00:00Z'))).toBe('2026-01-15');
	});

	it('switches the daily window at 00:00 New York time in summer (UTC-4)', () => {
		expect(etDate(new Date('2026-07-15T03:59:59Z'))).toBe('2026-07-14');
		expect(etDate(new Date('2026-07-15T04:00:00Z'))).toBe('2026-07-15');
	});

	it('starts the monthly window on the 1st at 00:00 ET', () => {
		expect(quotaWindowIds(new Date('2026-12-01T04:59:59Z')).monthly).toBe('2026-11');
		expect(quotaWindowIds(new Date('2026-12-01T05:00:00Z')).monthly).toBe('2026-12');
	});

	it('finds the next midnight across both DST changes', () => {
		// 2026-03-08 is the spring-forward day, 2026-11-01 the fall-back day.
		expect(nextEtMidnight(new Date('2026-03-08T12:00:00Z')).toISOString()).toBe(
			'2026-03-09T04:00:00.000Z'
		);
		expect(nextEtMidnight(new Date('2026-11-01T12:00:00Z')).toISOString()).toBe(
			'2026-11-02T05:00:00.000Z'
		);
	});

	it('next midnight is always later, at 00:00 ET, and at most 25 hours away', () => {
		fc.assert(
			fc.property(fc.integer({ min: Date.UTC(2024, 0, 1), max: Date.UTC(2030, 0, 1) }), (ms) => {
				const at = new Date(ms);
				const next = nextEtMidnight(at);
				const p = etParts(next);
				expect(next.getTime()).toBeGreaterThan(ms);
				expect(next.getTime() - ms).toBeLessThanOrEqual(25 * 3_600_000);
				expect([p.hour, p.minute, p.second]).toEqual([0, 0, 0]);
				expect(etDate(new Date(next.getTime() - 1))).toBe(etDate(at));
			})
		);
	});
});
