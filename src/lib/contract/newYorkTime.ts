/**
 * New York time, in one place for the service, the dashboard server and the browser: the
 * America/New_York wall clock of an instant, the instant of a wall time, ET day keys (the key of
 * a day's series and files, and of the quota windows that reset at 00:00 ET), the regular session
 * of a day (09:30 to 16:00, or 13:00 on an NYSE early close: ./marketCalendar.ts) and ET labels.
 *
 * The offset comes from the US rule in force since 2007 (the Energy Policy Act of 2005): daylight
 * time from 02:00 EST on March's second Sunday to 02:00 EDT on November's first Sunday. It is
 * computed, not asked of Intl, for instants of 2007 through 2099: a time-zone Intl.DateTimeFormat
 * costs a page ~25 ms of main-thread time when the module loads (the zone data) and ~5 us per
 * formatToParts, which the whole-day views call thousands of times. Before 2007 and from 2100 on,
 * Intl (the platform's tz database) answers, its formatter made on first use. The property test
 * (newYorkTime.test.ts) checks the rule against Intl at random instants of every year it covers.
 * New York's offset is a whole number of hours, so ET minutes are unix minutes.
 */
import { SESSION_OPEN_MINUTE, isSessionDay, sessionCloseMinute } from './marketCalendar';

export const ET_ZONE = 'America/New_York';

let partsFormatter: Intl.DateTimeFormat | undefined;

/** Intl's answer, outside the years the rule covers. */
function intlParts(at: Date | number): EtParts {
	partsFormatter ??= new Intl.DateTimeFormat('en-US', {
		timeZone: ET_ZONE,
		hourCycle: 'h23',
		year: 'numeric',
		month: '2-digit',
		day: '2-digit',
		hour: '2-digit',
		minute: '2-digit',
		second: '2-digit',
		weekday: 'short'
	});
	const f: Record<string, string> = {};
	for (const part of partsFormatter.formatToParts(at)) f[part.type] = part.value;
	return {
		year: Number(f.year),
		month: Number(f.month),
		day: Number(f.day),
		hour: Number(f.hour),
		minute: Number(f.minute),
		second: Number(f.second),
		weekday: WEEKDAYS[f.weekday] ?? 0,
		date: `${f.year}-${f.month}-${f.day}`
	};
}

const WEEKDAYS: Record<string, number> = { Sun: 0, Mon: 1, Tue: 2, Wed: 3, Thu: 4, Fri: 5, Sat: 6 };

const HOUR_MS = 3_600_000;
/** The first and last UTC years the rule answers for (Intl outside them). */
export const RULE_YEARS = { first: 2007, last: 2099 } as const;

/** Day of the month of the n-th (1-based) Sunday of a month. */
function nthSunday(year: number, month: number, n: number): number {
	const first = new Date(Date.UTC(year, month - 1, 1)).getUTCDay();
	return 1 + ((7 - first) % 7) + 7 * (n - 1);
}

/** Daylight time's start and end in `year` (unix ms): 07:00 and 06:00 UTC on the switch days. */
const switches = new Map<number, [number, number]>();
function daylightSpan(year: number): [number, number] {
	let span = switches.get(year);
	if (!span) {
		span = [
			Date.UTC(year, 2, nthSunday(year, 3, 2), 7),
			Date.UTC(year, 10, nthSunday(year, 11, 1), 6)
		];
		switches.set(year, span);
	}
	return span;
}

/** New York's offset from UTC in hours (-4 or -5) at unix ms `ms` of a year the rule covers. */
function ruleOffsetHours(ms: number, year: number): number {
	const [start, end] = daylightSpan(year);
	return ms >= start && ms < end ? -4 : -5;
}

const pad2 = (n: number) => (n < 10 ? `0${n}` : String(n));
export interface EtParts {
	year: number;
	month: number;
	day: number;
	hour: number;
	minute: number;
	second: number;
	/** 0 = Sunday ... 6 = Saturday */
	weekday: number;
	/** `YYYY-MM-DD` of the ET calendar day */
	date: string;
}

/** Wall-clock fields of an instant (a Date or unix ms) in New York. */
export function etParts(at: Date | number): EtParts {
	const ms = typeof at === 'number' ? at : at.getTime();
	// Intl formats the whole millisecond (and throws on an invalid time value, as before).
	const whole = Math.floor(ms);
	const year = Number.isFinite(whole) ? new Date(whole).getUTCFullYear() : Number.NaN;
	if (!(year >= RULE_YEARS.first && year <= RULE_YEARS.last)) return intlParts(at);
	const wall = new Date(whole + ruleOffsetHours(whole, year) * HOUR_MS);
	const y = wall.getUTCFullYear();
	const month = wall.getUTCMonth() + 1;
	const day = wall.getUTCDate();
	return {
		year: y,
		month,
		day,
		hour: wall.getUTCHours(),
		minute: wall.getUTCMinutes(),
		second: wall.getUTCSeconds(),
		weekday: wall.getUTCDay(),
		date: `${y}-${pad2(month)}-${pad2(day)}`
	};
}

/** `YYYY-MM-DD` of the ET calendar day holding an instant (a Date or unix ms). */
export function etDate(at: Date | number): string {
	return etParts(at).date;
}

/**
 * The UTC hour etDay answered last, and its day. The ET day is the same through a whole UTC hour
 * (New York's offsets, and the moments they change, are whole hours under the rules), and a day's
 * series asks it for thousands of points in a handful of hours: 2,340 overview steps took ~5 ms
 * of a cold Orderflow load in formatting alone (issue 26).
 */
let answeredHour = Number.NaN;
let answeredDay = '';

/** `YYYY-MM-DD` of the ET calendar day holding the unix second (the key of a day's series). */
export function etDay(unixS: number): string {
	const hour = Math.floor(unixS / 3600);
	if (hour === answeredHour) return answeredDay;
	const day = etDate(unixS * 1000);
	// Only inside the rules' years (outside, Intl answers, with offsets that need not be whole).
	const year = Number(day.slice(0, 4));
	if (year > RULE_YEARS.first && year < RULE_YEARS.last) {
		answeredHour = hour;
		answeredDay = day;
	}
	return day;
}

/** Ids of the quota windows holding an instant: the ET day `YYYY-MM-DD` and ET month `YYYY-MM`. */
export interface QuotaWindowIds {
	/** ET calendar day, `YYYY-MM-DD`. */
	daily: string;
	/** ET calendar month, `YYYY-MM`. */
	monthly: string;
}

/** The ET day and month of an instant: quota windows reset at 00:00 ET. */
export function etWindowIds(at: Date | number): QuotaWindowIds {
	const daily = etDate(at);
	return { daily, monthly: daily.slice(0, 7) };
}

/** `[year, month, day]` of a `YYYY-MM-DD` date; a RangeError for anything else. */
export function parseDate(date: string): [number, number, number] {
	const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(date);
	if (!match) throw new RangeError(`not a YYYY-MM-DD date: ${date}`);
	const y = Number(match[1]);
	const m = Number(match[2]);
	const d = Number(match[3]);
	const check = new Date(Date.UTC(y, m - 1, d));
	if (check.getUTCFullYear() !== y || check.getUTCMonth() !== m - 1 || check.getUTCDate() !== d)
		throw new RangeError(`no such calendar date: ${date}`);
	return [y, m, d];
}

/** The instant (unix ms) at which New York's wall clock reads `date` `hh:mm:ss`. */
export function etToUtc(date: string, hour = 0, minute = 0, second = 0): number {
	const [y, m, d] = parseDate(date);
	// Seconds may be fractional or run past 59 (a second of the day), hence no Date.UTC fields.
	const naive = Date.UTC(y, m - 1, d) + ((hour * 60 + minute) * 60 + second) * 1000;
	// New York is UTC-5 or UTC-4; correct the guess by the offset observed at the guess, twice so
	// a guess on the other side of a DST switch converges.
	let guess = naive + 5 * 3600_000;
	for (let i = 0; i < 2; i++) {
		const p = etParts(guess);
		guess += naive - Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, p.second);
	}
	return guess;
}

/** The unix second at which New York's wall clock reads `day` 00:00 + `secondOfDay`. */
export function etInstant(day: string, secondOfDay: number): number {
	return etToUtc(day, 0, 0, secondOfDay) / 1000;
}

/** The regular open as a second of the ET day (09:30). */
export const OPEN_SECOND = SESSION_OPEN_MINUTE * 60;

export interface SessionBounds {
	/**
	 * The origin of the day's time-of-day offsets: `t - midnight` is New York's wall-clock second
	 * of the day for every instant t from 03:00 ET on, the regular hours included. It is 00:00 ET
	 * except on the two DST-switch days (Sundays, no session), whose 00:00 is on the other offset,
	 * an hour away from this origin.
	 */
	midnight: number;
	/** 09:30 ET. */
	open: number;
	/** 16:00 ET, or 13:00 on an NYSE early-close day. */
	close: number;
}

/**
 * The regular hours of a calendar day in unix seconds: the instants New York's wall clock reads
 * 09:30 and the close. Defined for every day: on a weekend or holiday they are the hours a
 * session would have had, which is how a chart of a closed day frames its empty axis
 * (isSessionDay says whether there is a session). Both are resolved as wall times of their own,
 * never as midnight plus a fixed offset, which is an hour off on a DST-switch day.
 */
export function sessionBounds(day: string): SessionBounds {
	const open = etInstant(day, OPEN_SECOND);
	const close = etInstant(day, sessionCloseMinute(day) * 60);
	return { midnight: open - OPEN_SECOND, open, close };
}

/**
 * Regular trading hours, the project's one definition (the dashboard's poller and labels, the
 * embedded service's market clock): NYSE session days from 09:30:00 through the closing second
 * ET, both included. The close is 16:00:00, or 13:00:00 on an early-close day; the closing
 * second is in: its calculation is the session's last tick (the service publishes it, a poller
 * fetches it). 16:00:01 is closed, as are weekends and NYSE holidays.
 */
export function isRegularTradingHours(at: Date | number): boolean {
	const p = etParts(at);
	if (!isSessionDay(p.date)) return false;
	const second = p.hour * 3600 + p.minute * 60 + p.second;
	return second >= SESSION_OPEN_MINUTE * 60 && second <= sessionCloseMinute(p.date) * 60;
}

/** "10:42" or "10:42:07" (with seconds) of a second-of-day. */
export function formatTimeOfDay(secondOfDay: number, withSeconds = false): string {
	const s = Math.round(secondOfDay);
	const hh = String(Math.floor(s / 3600)).padStart(2, '0');
	const mm = String(Math.floor((s % 3600) / 60)).padStart(2, '0');
	if (!withSeconds) return `${hh}:${mm}`;
	return `${hh}:${mm}:${String(s % 60).padStart(2, '0')}`;
}

const MONTH_NAMES = [
	'Jan',
	'Feb',
	'Mar',
	'Apr',
	'May',
	'Jun',
	'Jul',
	'Aug',
	'Sep',
	'Oct',
	'Nov',
	'Dec'
] as const;

const clockOf = (p: EtParts) => `${pad2(p.hour)}:${pad2(p.minute)}:${pad2(p.second)}`;

/** ET wall clock of unix seconds: "14:31:05". */
export function formatEtClock(unixSeconds: number): string {
	return clockOf(etParts(unixSeconds * 1000));
}

/** ET calendar day of unix seconds: "Nov 22". */
export function formatEtMonthDay(unixSeconds: number): string {
	const p = etParts(unixSeconds * 1000);
	return `${MONTH_NAMES[p.month - 1]} ${p.day}`;
}

/** ET date and wall clock of unix seconds: "Nov 20, 15:59:58". */
export function formatEtDateTime(unixSeconds: number): string {
	const p = etParts(unixSeconds * 1000);
	return `${MONTH_NAMES[p.month - 1]} ${p.day}, ${clockOf(p)}`;
}
