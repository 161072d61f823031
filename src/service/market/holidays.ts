/**
 * NYSE full-day holidays, by rule (no table to go stale): New Year's Day, Martin Luther King Jr.
 * Day, Washington's Birthday, Good Friday, Memorial Day, Juneteenth (from 2022), Independence
 * Day, Labor Day, Thanksgiving and Christmas. A fixed-date holiday on a Saturday is observed on
 * the Friday before, on a Sunday on the Monday after — except New Year's Day on a Saturday, which
 * NYSE does not observe (the Friday before closes a year, rule 7.2).
 *
 * Early (13:00 ET) closes are not modelled: every session runs 09:30-16:00.
 */

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
