/**
 * Calendar arithmetic for option chains quoted in New York: wall time in America/New_York to an
 * instant, weekday counts and third Fridays. Pure date math by rule (US daylight saving since
 * 2007: second Sunday of March to first Sunday of November), because analytics may import
 * nothing of the project and must give the same answer in Node, a browser and a worker whatever
 * their ICU data. Dates are `YYYY-MM-DD` strings throughout.
 */

export const MONTHS = [
	'january',
	'february',
	'march',
	'april',
	'may',
	'june',
	'july',
	'august',
	'september',
	'october',
	'november',
	'december'
] as const;
export const WEEKDAYS = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'] as const;

const DAY_MS = 86_400_000;

/** Days since 1970-01-01 of a calendar date (proleptic Gregorian, UTC). */
export function dayNumber(date: string): number {
	const [y, m, d] = date.split('-').map(Number);
	return Math.round(Date.UTC(y, m - 1, d) / DAY_MS);
}

export function dateOfDayNumber(n: number): string {
	return new Date(n * DAY_MS).toISOString().slice(0, 10);
}

/** `YYYY-MM-DD` from parts, or undefined when the parts name no real date. */
export function calendarDate(year: number, month: number, day: number): string | undefined {
	if (!Number.isInteger(year) || year < 1900 || year > 9999) return undefined;
	if (!Number.isInteger(month) || month < 1 || month > 12) return undefined;
	const last = new Date(Date.UTC(year, month, 0)).getUTCDate();
	if (!Number.isInteger(day) || day < 1 || day > last) return undefined;
	return `${String(year).padStart(4, '0')}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
}

/** 0 = Sunday ... 6 = Saturday. */
export function weekdayOf(date: string): number {
	return (((dayNumber(date) + 4) % 7) + 7) % 7;
}

/** The n-th (1-based) weekday `wd` of a month as a day of the month. */
function nthWeekdayDay(year: number, month: number, wd: number, n: number): number {
	const first = new Date(Date.UTC(year, month - 1, 1)).getUTCDay();
	return 1 + ((wd - first + 7) % 7) + 7 * (n - 1);
}

/** Is daylight saving in force in New York at 12:00 on `date` (true on both switch days). */
export function isNyDaylightTime(date: string): boolean {
	const [y, m, d] = date.split('-').map(Number);
	if (m < 3 || m > 11) return false;
	if (m > 3 && m < 11) return true;
	if (m === 3) return d >= nthWeekdayDay(y, 3, 0, 2);
	return d < nthWeekdayDay(y, 11, 0, 1);
}

/** UTC offset of New York in minutes (-240 EDT, -300 EST) at `minute` after midnight of `date`. */
export function nyOffsetMinutes(date: string, minute: number): number {
	const [y, m, d] = date.split('-').map(Number);
	// The switches happen at 02:00 local time.
	if (m === 3 && d === nthWeekdayDay(y, 3, 0, 2)) return minute >= 120 ? -240 : -300;
	if (m === 11 && d === nthWeekdayDay(y, 11, 0, 1)) return minute >= 120 ? -300 : -240;
	return isNyDaylightTime(date) ? -240 : -300;
}

/**
 * Epoch ms of a New York wall time. `offsetMinutes` (from an EDT/EST label) wins over the rule,
 * which matters only in the repeated hour of November's switch.
 */
export function nyWallTimeMs(date: string, minute: number, offsetMinutes?: number): number {
	const offset = offsetMinutes ?? nyOffsetMinutes(date, minute);
	return dayNumber(date) * DAY_MS + (minute - offset) * 60_000;
}

/**
 * Weekdays (Monday to Friday) in [from, to): numpy.busday_count with its default week mask and
 * no holidays, negative when `to` is before `from`.
 */
export function weekdayCount(from: string, to: string): number {
	const a = dayNumber(from);
	const b = dayNumber(to);
	if (b < a) return -weekdayCount(to, from);
	const weeks = Math.floor((b - a) / 7);
	let count = weeks * 5;
	for (let n = a + weeks * 7; n < b; n++) {
		const wd = (((n + 4) % 7) + 7) % 7;
		if (wd !== 0 && wd !== 6) count++;
	}
	return count;
}

/** The standard monthly expiry day: the third Friday of its month. */
export function isThirdFriday(date: string): boolean {
	const d = Number(date.slice(8, 10));
	return weekdayOf(date) === 5 && d >= 15 && d <= 21;
}
