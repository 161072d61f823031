/**
 * Market time of the embedded service: trading-day arithmetic, where the market stands at an
 * instant, and the simulated session clock the whole service runs on. New York wall time itself
 * (Intl, DST-correct), a day's session bounds and the NYSE calendar are the contract's
 * (src/lib/contract/newYorkTime.ts, marketCalendar.ts), used here and re-exported for the market's
 * modules, so the service and the dashboard never disagree on when a session opens or closes.
 */

import { SESSION_OPEN_MINUTE, isSessionDay } from '../../lib/contract/marketCalendar';
import {
	etParts,
	isRegularTradingHours,
	parseDate,
	sessionBounds
} from '../../lib/contract/newYorkTime';
import { sessionCloseMinute, sessionLengthSeconds } from './holidays';

export { etParts, etToUtc, parseDate, type EtParts } from '../../lib/contract/newYorkTime';

/**
 * Seconds of a full session: 09:30:00 through 16:00:00 inclusive is 23,401 ticks. An early-close
 * day (13:00, ./holidays) is shorter: sessionSeconds(date) is the length of a given day.
 */
export const SESSION_SECONDS = 6.5 * 3600;
/** The regular open, minutes after midnight ET (the close of a day: sessionCloseMinute). */
export const OPEN_MINUTE = SESSION_OPEN_MINUTE;
/** Open interest is published for the day at 08:30 ET. */
export const OI_REFRESH_MINUTE = 8 * 60 + 30;

/** Calendar arithmetic on `YYYY-MM-DD` strings (zone-free). */
export function addDays(date: string, days: number): string {
	const [y, m, d] = parseDate(date);
	return new Date(Date.UTC(y, m - 1, d + days)).toISOString().slice(0, 10);
}

export function weekdayOf(date: string): number {
	const [y, m, d] = parseDate(date);
	return new Date(Date.UTC(y, m - 1, d)).getUTCDay();
}

export function daysBetween(from: string, to: string): number {
	const [y1, m1, d1] = parseDate(from);
	const [y2, m2, d2] = parseDate(to);
	return Math.round((Date.UTC(y2, m2 - 1, d2) - Date.UTC(y1, m1 - 1, d1)) / 86_400_000);
}

/** A session day: a weekday that is not an NYSE holiday (contract/marketCalendar). */
export const isTradingDay: (date: string) => boolean = isSessionDay;

export function previousTradingDay(date: string): string {
	let d = addDays(date, -1);
	while (!isTradingDay(d)) d = addDays(d, -1);
	return d;
}

export function nextTradingDay(date: string): string {
	let d = addDays(date, 1);
	while (!isTradingDay(d)) d = addDays(d, 1);
	return d;
}

/** Seconds from the open to the close of session `date` (23,400; 12,600 on an early close). */
export const sessionSeconds: (date: string) => number = sessionLengthSeconds;

/** The ET date of an instant and New York's wall-clock second of that day. */
function etSecondOfDay(ms: number): { date: string; secondOfDay: number } {
	const p = etParts(ms);
	return { date: p.date, secondOfDay: p.hour * 3600 + p.minute * 60 + p.second };
}

/** Unix ms of the 09:30 ET open of `date` (the contract's sessionBounds, in ms). */
export function sessionOpenMs(date: string): number {
	return sessionBounds(date).open * 1000;
}

/** Unix ms of the close of `date`: 16:00 ET, 13:00 on an early close. Option expiries settle then. */
export function sessionCloseMs(date: string): number {
	return sessionBounds(date).close * 1000;
}

/**
 * Where the market stands at an instant: the session date whose data is current and the tick
 * (second since 09:30:00, 0..sessionSeconds(date)) of that session. Outside RTH it is the last
 * session's close tick; the day's open interest is refreshed at 08:30 ET but spot and trades wait
 * for 09:30, and on an early-close day they stop at 13:00.
 */
export function marketPosition(ms: number): { date: string; tick: number; open: boolean } {
	const { date, secondOfDay } = etSecondOfDay(ms);
	const openSecond = OPEN_MINUTE * 60;
	if (isTradingDay(date) && secondOfDay >= openSecond) {
		const length = sessionSeconds(date);
		const tick = Math.min(secondOfDay - openSecond, length);
		return { date, tick, open: secondOfDay - openSecond <= length };
	}
	const last = previousTradingDay(date);
	return { date: last, tick: sessionSeconds(last), open: false };
}

/** The newest session whose close (16:00, or 13:00 on an early close) is at or before `ms`. */
export function lastCompletedSession(ms: number): string {
	const { date, secondOfDay } = etSecondOfDay(ms);
	if (isTradingDay(date) && secondOfDay >= sessionCloseMinute(date) * 60) return date;
	return previousTradingDay(date);
}

export type ClockMode = 'session' | 'real';

export interface SessionClockOptions {
	mode: ClockMode;
	/** Simulated start instant; with it the clock runs linearly from `start` at `speed`. */
	start?: Date;
	speed?: number;
	/** Wall time source (unix ms), for tests. */
	wall?: () => number;
}

/**
 * The simulated clock.
 * - `real`: wall time.
 * - `session` (default): wall time while New York is in RTH; at any other hour the clock replays
 *   the last completed session from its open at 1x, looping every 6.5 hours (3.5 hours when that
 *   session closed early at 13:00), so a demo at 3 a.m. still moves. The replayed day is the same
 *   deterministic day, so its numbers match history.
 * - with `start`: `start + (wall - wall at creation) * speed`, in either mode, so tests run a day
 *   in minutes.
 */
export class SessionClock {
	readonly mode: ClockMode;
	readonly speed: number;
	private readonly wall: () => number;
	private readonly startMs?: number;
	private readonly wallAtStart: number;

	constructor(options: SessionClockOptions) {
		this.mode = options.mode;
		this.speed = options.speed ?? 1;
		if (!(this.speed > 0) || !Number.isFinite(this.speed))
			throw new RangeError(`clock speed must be a positive number, got ${options.speed}`);
		this.wall = options.wall ?? Date.now;
		this.wallAtStart = this.wall();
		if (options.start) {
			const ms = options.start.getTime();
			if (!Number.isFinite(ms)) throw new RangeError('clock start is not a valid date');
			this.startMs = ms;
		}
	}

	nowMs(): number {
		const wall = this.wall();
		if (this.startMs !== undefined) return this.startMs + (wall - this.wallAtStart) * this.speed;
		if (this.mode === 'real' || isRegularTradingHours(wall)) return wall;
		const day = lastCompletedSession(wall);
		const since = Math.max(0, wall - sessionCloseMs(day));
		return sessionOpenMs(day) + (since % (sessionSeconds(day) * 1000));
	}

	now(): Date {
		return new Date(this.nowMs());
	}

	/** Wall milliseconds until the simulated clock reaches `simMs` (for scheduling). */
	wallDelayUntil(simMs: number): number {
		const now = this.nowMs();
		if (simMs <= now) return 0;
		const rate = this.startMs !== undefined ? this.speed : 1;
		return (simMs - now) / rate;
	}
}
