import { describe, expect, it } from 'vitest';
import { etWindowIds, isRegularTradingHours } from './newYorkTime';

describe('market hours (America/New_York, DST-correct)', () => {
	it('is open 09:30-16:00 ET on weekdays in both EST and EDT', () => {
		// Winter (EST, UTC-5)
		expect(isRegularTradingHours(new Date('2026-01-14T14:29:59Z'))).toBe(false);
		expect(isRegularTradingHours(new Date('2026-01-14T14:30:00Z'))).toBe(true);
		expect(isRegularTradingHours(new Date('2026-01-14T20:59:59Z'))).toBe(true);
		expect(isRegularTradingHours(new Date('2026-01-14T21:00:00Z'))).toBe(false);
		// Summer (EDT, UTC-4)
		expect(isRegularTradingHours(new Date('2026-07-14T13:30:00Z'))).toBe(true);
		expect(isRegularTradingHours(new Date('2026-07-14T20:00:00Z'))).toBe(false);
	});

	it('is closed on weekends', () => {
		expect(isRegularTradingHours(new Date('2026-11-21T15:00:00Z'))).toBe(false); // Saturday
		expect(isRegularTradingHours(new Date('2026-11-22T15:00:00Z'))).toBe(false); // Sunday
	});

	it('is closed on NYSE holidays and closes at 13:00 ET on early-close days', () => {
		expect(isRegularTradingHours(new Date('2026-11-26T16:00:00Z'))).toBe(false); // Thanksgiving
		expect(isRegularTradingHours(new Date('2026-07-03T15:00:00Z'))).toBe(false); // July 4th observed
		// Day after Thanksgiving (EST): open until 12:59, closed from 13:00.
		expect(isRegularTradingHours(new Date('2026-11-27T17:59:59Z'))).toBe(true);
		expect(isRegularTradingHours(new Date('2026-11-27T18:00:00Z'))).toBe(false);
		expect(isRegularTradingHours(new Date('2026-12-24T18:30:00Z'))).toBe(false); // Christmas Eve
		// July 2nd 2026 is a full day (the holiday is Friday July 3rd); July 3rd 2025 closed early.
		expect(isRegularTradingHours(new Date('2026-07-02T19:00:00Z'))).toBe(true);
		expect(isRegularTradingHours(new Date('2025-07-03T17:00:00Z'))).toBe(false);
		expect(isRegularTradingHours(new Date('2025-07-03T16:59:00Z'))).toBe(true);
	});

	it('names quota windows by the ET calendar', () => {
		expect(etWindowIds(new Date('2026-03-01T04:59:59Z'))).toEqual({
			daily: '2026-02-28',
			monthly: '2026-02'
		});
		expect(etWindowIds(new Date('2026-03-01T05:00:00Z'))).toEqual({
			daily: '2026-03-01',
			monthly: '2026-03'
		});
	});
});
