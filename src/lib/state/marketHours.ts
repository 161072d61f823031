/**
 * America/New_York wall clock: regular trading hours (09:30-16:00 ET on NYSE session days, 13:00
 * on early closes) and the ET calendar day and month that quota windows are counted in. Intl
 * resolves the DST offset of every instant, so nothing here hard-codes -4 or -5. The holiday and
 * early-close rule is the one the embedded service's market clock uses (contract/marketCalendar).
 */
import { SESSION_OPEN_MINUTE, isSessionDay, sessionCloseMinute } from '../contract/marketCalendar';

const etFormatter = new Intl.DateTimeFormat('en-US', {
	timeZone: 'America/New_York',
	year: 'numeric',
	month: '2-digit',
	day: '2-digit',
	hour: '2-digit',
	minute: '2-digit',
	weekday: 'short',
	hourCycle: 'h23'
});

export interface EtClock {
	year: number;
	month: number;
	day: number;
	hour: number;
	minute: number;
	/** 0 = Sunday ... 6 = Saturday */
	weekday: number;
}

const WEEKDAYS: Record<string, number> = { Sun: 0, Mon: 1, Tue: 2, Wed: 3, Thu: 4, Fri: 5, Sat: 6 };

export function etClock(at: Date): EtClock {
	const out: Record<string, string> = {};
	for (const part of etFormatter.formatToParts(at)) out[part.type] = part.value;
	return {
		year: Number(out.year),
		month: Number(out.month),
		day: Number(out.day),
		hour: Number(out.hour),
		minute: Number(out.minute),
		weekday: WEEKDAYS[out.weekday] ?? 0
	};
}

const pad = (n: number) => String(n).padStart(2, '0');

/** Quota window ids at `at`: the ET day `YYYY-MM-DD` and ET month `YYYY-MM`. */
export function etWindows(at: Date): { daily: string; monthly: string } {
	const c = etClock(at);
	const monthly = `${c.year}-${pad(c.month)}`;
	return { daily: `${monthly}-${pad(c.day)}`, monthly };
}

/**
 * Regular trading hours: 09:30 (inclusive) to the close (exclusive) ET on NYSE session days; the
 * close is 16:00, or 13:00 on an early-close day. Weekends and NYSE holidays are closed.
 */
export function isRegularTradingHours(at: Date | number): boolean {
	const c = etClock(typeof at === 'number' ? new Date(at) : at);
	const date = `${c.year}-${pad(c.month)}-${pad(c.day)}`;
	if (!isSessionDay(date)) return false;
	const minutes = c.hour * 60 + c.minute;
	return minutes >= SESSION_OPEN_MINUTE && minutes < sessionCloseMinute(date);
}
