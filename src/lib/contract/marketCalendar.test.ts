import { describe, expect, it } from 'vitest';
import {
	earlyCloseName,
	isEarlyClose,
	isSessionDay,
	sessionCloseMinute,
	sessionLengthSeconds
} from './marketCalendar';

function earlyClosesOf(year: number): string[] {
	const out: string[] = [];
	for (let d = new Date(Date.UTC(year, 0, 1)); d.getUTCFullYear() === year;) {
		const date = d.toISOString().slice(0, 10);
		if (isEarlyClose(date)) out.push(date);
		d = new Date(d.getTime() + 86_400_000);
	}
	return out;
}

describe('NYSE early closes (13:00 ET)', () => {
	it("match NYSE's published early closes for 2024-2028", () => {
		// From NYSE Group's holiday and early-closings announcements (2021-12, 2024-11, 2025-12).
		expect(earlyClosesOf(2024)).toEqual(['2024-07-03', '2024-11-29', '2024-12-24']);
		expect(earlyClosesOf(2025)).toEqual(['2025-07-03', '2025-11-28', '2025-12-24']);
		// July 4th 2026 is a Saturday: Friday 07-03 is the holiday and Thursday 07-02 a full day.
		expect(earlyClosesOf(2026)).toEqual(['2026-11-27', '2026-12-24']);
		// July 3rd 2027 is a Saturday; Christmas is a Saturday, so 12-24 is the observed holiday.
		expect(earlyClosesOf(2027)).toEqual(['2027-11-26']);
		// Christmas Eve 2028 is a Sunday.
		expect(earlyClosesOf(2028)).toEqual(['2028-07-03', '2028-11-24']);
	});

	it('names the reason and gives the shorter session', () => {
		expect(earlyCloseName('2026-11-27')).toBe('the day after Thanksgiving');
		expect(earlyCloseName('2026-12-24')).toBe('Christmas Eve');
		expect(earlyCloseName('2025-07-03')).toBe('the day before Independence Day');
		expect(earlyCloseName('2026-07-02')).toBeUndefined();
		expect(earlyCloseName('2026-07-03')).toBeUndefined(); // the observed holiday itself
		expect(sessionCloseMinute('2026-11-27')).toBe(13 * 60);
		expect(sessionCloseMinute('2026-11-25')).toBe(16 * 60);
		expect(sessionLengthSeconds('2026-12-24')).toBe(3.5 * 3600);
		expect(sessionLengthSeconds('2026-12-23')).toBe(6.5 * 3600);
	});

	it('knows session days: weekdays that are not holidays', () => {
		expect(isSessionDay('2026-11-27')).toBe(true);
		expect(isSessionDay('2026-11-26')).toBe(false);
		expect(isSessionDay('2026-11-28')).toBe(false);
		expect(isSessionDay('2027-12-24')).toBe(false);
	});
});
