/**
 * The session's time axis in America/New_York: the ET calendar day of a data timestamp (the key
 * of a day's series) and that day's 09:30-16:00 bounds as unix seconds, DST-correct through Intl
 * (New York's offset is a whole number of hours, so ET minutes are unix minutes).
 */

import { sessionCloseMinute } from '../contract/marketCalendar';

const etParts = new Intl.DateTimeFormat('en-US', {
	timeZone: 'America/New_York',
	hourCycle: 'h23',
	year: 'numeric',
	month: '2-digit',
	day: '2-digit',
	hour: '2-digit',
	minute: '2-digit',
	second: '2-digit'
});

export const OPEN_SECOND = 9.5 * 3600;

function wallOf(unixS: number): { date: string; utcOfWall: number } {
	const f: Record<string, string> = {};
	for (const p of etParts.formatToParts(new Date(unixS * 1000))) f[p.type] = p.value;
	const date = `${f.year}-${f.month}-${f.day}`;
	const utcOfWall =
		Date.UTC(Number(f.year), Number(f.month) - 1, Number(f.day), +f.hour, +f.minute, +f.second) /
		1000;
	return { date, utcOfWall };
}

/** `YYYY-MM-DD` of the ET calendar day holding the unix second. */
export function etDay(unixS: number): string {
	return wallOf(unixS).date;
}

/** The unix second at which New York's wall clock reads `day` 00:00 + `secondOfDay`. */
export function etInstant(day: string, secondOfDay: number): number {
	const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(day);
	if (!m) throw new RangeError(`not a YYYY-MM-DD day: ${day}`);
	const naive = Date.UTC(+m[1], +m[2] - 1, +m[3]) / 1000 + secondOfDay;
	// Guess UTC-5, then correct by the offset seen at the guess; twice converges across a switch.
	let guess = naive + 5 * 3600;
	for (let i = 0; i < 2; i++) guess += naive - wallOf(guess).utcOfWall;
	return guess;
}

export interface SessionBounds {
	/** Unix seconds of 00:00 ET (the origin of time-of-day offsets on this day). */
	midnight: number;
	open: number;
	close: number;
}

/** The day's session; it closes at 13:00 on an NYSE early-close day (contract/marketCalendar). */
export function sessionBounds(day: string): SessionBounds {
	const midnight = etInstant(day, 0);
	// The session is far from the 02:00 DST switch, so open/close are midnight + a fixed offset.
	return { midnight, open: midnight + OPEN_SECOND, close: midnight + sessionCloseMinute(day) * 60 };
}

/** "10:42" or "10:42:07" (with seconds) of a second-of-day. */
export function formatTimeOfDay(secondOfDay: number, withSeconds = false): string {
	const s = Math.round(secondOfDay);
	const hh = String(Math.floor(s / 3600)).padStart(2, '0');
	const mm = String(Math.floor((s % 3600) / 60)).padStart(2, '0');
	if (!withSeconds) return `${hh}:${mm}`;
	return `${hh}:${mm}:${String(s % 60).padStart(2, '0')}`;
}
