/**
 * The NYSE session calendar by rule (no table to go stale), shared by the embedded service's
 * market clock and the dashboard's open / closed label so the two never disagree.
 *
 * Full-day holidays: New Year's Day, Martin Luther King Jr. Day, Washington's Birthday, Good
 * Friday, Memorial Day, Juneteenth (from 2022), Independence Day, Labor Day, Thanksgiving and
 * Christmas. A fixed-date holiday on a Saturday is observed on the Friday before, on a Sunday on
 * the Monday after, except New Year's Day on a Saturday, which NYSE does not observe (the Friday
 * before closes a year, rule 7.2).
 *
 * Early closes (13:00 ET instead of 16:00): the day after Thanksgiving; Christmas Eve when it is
 * a weekday that is not itself the observed Christmas holiday; July 3 when it is a weekday that
 * is not the observed Independence Day (July 4 on a Saturday makes Friday July 3 the holiday, and
 * NYSE then keeps Thursday July 2 a full day, as in 2015, 2020 and 2026). This matches NYSE's
 * published early closes: 2024-07-03, 2024-11-29, 2024-12-24; 2025-07-03, 2025-11-28,
 * 2025-12-24; 2026-11-27, 2026-12-24; 2027-11-26; 2028-07-03, 2028-11-24.
 */

/** Regular session open and normal close, minutes after midnight ET. */
export const SESSION_OPEN_MINUTE = 9 * 60 + 30;
export const SESSION_CLOSE_MINUTE = 16 * 60;
/** Close of an early-close session, minutes after midnight ET. */
export const EARLY_CLOSE_MINUTE = 13 * 60;

function iso(y: number, m: number, d: number): string {
	return new Date(Date.UTC(y, m - 1, d)).toISOString().slice(0, 10);
}

function weekday(y: number, m: number, d: number): number {
	return new Date(Date.UTC(y, m - 1, d)).getUTCDay();
}

/** The n-th (1-based) `wd` weekday of a month; n = -1 for the last. */
function nthWeekday(y: number, m: number, wd: number, n: number): string {
	if (n > 0) {
		const first = (wd - weekday(y, m, 1) + 7) % 7;
		return iso(y, m, 1 + first + 7 * (n - 1));
	}
	const lastDay = new Date(Date.UTC(y, m, 0)).getUTCDate();
	const back = (weekday(y, m, lastDay) - wd + 7) % 7;
	return iso(y, m, lastDay - back);
}

/** Saturday -> Friday, Sunday -> Monday. */
function observed(y: number, m: number, d: number): string {
	const wd = weekday(y, m, d);
	return wd === 6 ? iso(y, m, d - 1) : wd === 0 ? iso(y, m, d + 1) : iso(y, m, d);
}

/** Western Easter Sunday (anonymous Gregorian algorithm). */
export function easterSunday(y: number): string {
	const a = y % 19;
	const b = Math.floor(y / 100);
	const c = y % 100;
	const d = Math.floor(b / 4);
	const e = b % 4;
	const f = Math.floor((b + 8) / 25);
	const g = Math.floor((b - f + 1) / 3);
	const h = (19 * a + b - d - g + 15) % 30;
	const i = Math.floor(c / 4);
	const k = c % 4;
	const l = (32 + 2 * e + 2 * i - h - k) % 7;
	const m = Math.floor((a + 11 * h + 22 * l) / 451);
	const month = Math.floor((h + l - 7 * m + 114) / 31);
	const day = ((h + l - 7 * m + 114) % 31) + 1;
	return iso(y, month, day);
}

/** Every NYSE full-day holiday of a calendar year: date -> name. */
export function nyseHolidays(year: number): Map<string, string> {
	if (!Number.isInteger(year) || year < 1971 || year > 9998)
		throw new RangeError(`no holiday rules for year ${year}`);
	const out = new Map<string, string>();
	if (weekday(year, 1, 1) !== 6) out.set(observed(year, 1, 1), "New Year's Day");
	out.set(nthWeekday(year, 1, 1, 3), 'Martin Luther King Jr. Day');
	out.set(nthWeekday(year, 2, 1, 3), "Washington's Birthday");
	const easter = easterSunday(year);
	const [ey, em, ed] = easter.split('-').map(Number);
	out.set(iso(ey, em, ed - 2), 'Good Friday');
	out.set(nthWeekday(year, 5, 1, -1), 'Memorial Day');
	if (year >= 2022) out.set(observed(year, 6, 19), 'Juneteenth');
	out.set(observed(year, 7, 4), 'Independence Day');
	out.set(nthWeekday(year, 9, 1, 1), 'Labor Day');
	out.set(nthWeekday(year, 11, 4, 4), 'Thanksgiving Day');
	out.set(observed(year, 12, 25), 'Christmas Day');
	return out;
}

const cache = new Map<number, Map<string, string>>();

/** The holiday's name when NYSE is closed all day on `date` (`YYYY-MM-DD`), else undefined. */
export function holidayName(date: string): string | undefined {
	const year = Number(date.slice(0, 4));
	let holidays = cache.get(year);
	if (!holidays) {
		holidays = nyseHolidays(year);
		cache.set(year, holidays);
	}
	return holidays.get(date);
}

export function isHoliday(date: string): boolean {
	return holidayName(date) !== undefined;
}

/** A weekday that is not an NYSE full-day holiday (`YYYY-MM-DD`). */
export function isSessionDay(date: string): boolean {
	const [y, m, d] = date.split('-').map(Number);
	const wd = weekday(y, m, d);
	return wd !== 0 && wd !== 6 && !isHoliday(date);
}

/** Why the session of `date` closes at 13:00 ET, or undefined for a normal (or no) session. */
export function earlyCloseName(date: string): string | undefined {
	if (!isSessionDay(date)) return undefined;
	const [y, m, d] = date.split('-').map(Number);
	if (m === 7 && d === 3) return 'the day before Independence Day';
	if (m === 12 && d === 24) return 'Christmas Eve';
	if (m === 11 && d === Number(nthWeekday(y, 11, 4, 4).slice(8)) + 1)
		return 'the day after Thanksgiving';
	return undefined;
}

export function isEarlyClose(date: string): boolean {
	return earlyCloseName(date) !== undefined;
}

/** Close of the session of `date`, minutes after midnight ET (13:00 on an early close). */
export function sessionCloseMinute(date: string): number {
	return isEarlyClose(date) ? EARLY_CLOSE_MINUTE : SESSION_CLOSE_MINUTE;
}

/** Seconds from the 09:30 open to the close of `date`: 23,400, or 12,600 on an early close. */
export function sessionLengthSeconds(date: string): number {
	return (sessionCloseMinute(date) - SESSION_OPEN_MINUTE) * 60;
}
