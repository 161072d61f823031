/**
 * Option expiry calendars and futures contract months. Expiries settle at the close of their
 * date (PM settlement for every simulated series): 16:00 ET, or 13:00 on an early-close day
 * (chainDay.ts). An expiry that falls on an exchange holiday moves to the session before.
 */
import {
	addDays,
	daysBetween,
	isTradingDay,
	parseDate,
	previousTradingDay,
	weekdayOf
} from './clock';
import type { ExpiryCalendar } from './universe';

/** How far ahead chains are listed (the "full" category covers up to 90 days). */
export const EXPIRY_HORIZON_DAYS = 90;

/** Third Friday of a month, `YYYY-MM-DD`. */
export function thirdFriday(year: number, month: number): string {
	const first = `${year}-${String(month).padStart(2, '0')}-01`;
	const offset = (5 - weekdayOf(first) + 7) % 7;
	return addDays(first, offset + 14);
}

function isThirdFriday(date: string): boolean {
	const [y, m] = parseDate(date);
	return thirdFriday(y, m) === date;
}

/** Third Wednesday stands in for the VIX monthly settlement. */
function isThirdWednesday(date: string): boolean {
	const [y, m] = parseDate(date);
	return addDays(thirdFriday(y, m), -2) === date;
}

/**
 * Expiries listed on `date` (including a same-day expiry), through `date` + 90 days. Dense near
 * the front, sparse further out, like the real listings that carry the open interest:
 * - daily (SPX, NDX, RUT, SPY, QQQ, IWM): every session for a week, Fridays to 6 weeks,
 *   then monthlies;
 * - weekly stocks: Fridays for 6 weeks, then monthlies;
 * - monthly stocks: the next two Fridays, then monthlies;
 * - vix: Wednesdays for 6 weeks, then monthly Wednesdays.
 */
export function listExpiries(calendar: ExpiryCalendar, date: string): string[] {
	const out: string[] = [];
	for (let d = 0; d <= EXPIRY_HORIZON_DAYS; d++) {
		const day = addDays(date, d);
		const wd = weekdayOf(day);
		if (wd === 0 || wd === 6) continue;
		let listed = false;
		switch (calendar) {
			case 'daily':
				listed = d <= 7 || (wd === 5 && d <= 42) || isThirdFriday(day);
				break;
			case 'weekly':
				listed = (wd === 5 && d <= 42) || isThirdFriday(day);
				break;
			case 'monthly':
				listed = (wd === 5 && d <= 13) || isThirdFriday(day);
				break;
			case 'vix':
				listed = (wd === 3 && d <= 42) || isThirdWednesday(day);
				break;
		}
		if (!listed) continue;
		// A holiday expiry moves to the previous session (never before `date`, never listed twice).
		const settles = isTradingDay(day) ? day : previousTradingDay(day);
		if (settles >= date && out[out.length - 1] !== settles) out.push(settles);
	}
	return out;
}

/** Is `date` the month's monthly expiry (or the session it moved to from a holiday)? */
export function isMonthlyExpiry(calendar: ExpiryCalendar, date: string): boolean {
	const [y, m] = parseDate(date);
	const friday = thirdFriday(y, m);
	const nominal = calendar === 'vix' ? addDays(friday, -2) : friday;
	return date === (isTradingDay(nominal) ? nominal : previousTradingDay(nominal));
}

const MONTH_CODES = 'FGHJKMNQUVXZ';

/**
 * Front-month futures contract on `date`, e.g. `ESZ6`. Equity index futures are quarterly
 * (H M U Z) and roll eight days before the third-Friday expiry; GC rolls on the even months, CL
 * monthly (both to the next month once the 20th has passed, an approximation of their rolls).
 */
export function frontMonthContract(root: string, date: string): string {
	const [y, m, d] = parseDate(date);
	let year = y;
	let month: number;
	if (root === 'CL') {
		month = d > 20 ? m + 2 : m + 1;
	} else if (root === 'GC') {
		month = m + (m % 2 === 0 ? (d > 20 ? 2 : 0) : 1);
	} else {
		month = Math.ceil(m / 3) * 3;
		if (month === m && daysBetween(date, thirdFriday(y, m)) < 8) month += 3;
	}
	while (month > 12) {
		month -= 12;
		year += 1;
	}
	return `${root}${MONTH_CODES[month - 1]}${year % 10}`;
}

/** Calendar days from `date` to the front-month future's expiry (for the carry in the basis). */
export function daysToFuturesExpiry(root: string, date: string): number {
	const code = frontMonthContract(root, date);
	const month = MONTH_CODES.indexOf(code[code.length - 2]) + 1;
	const [y, m] = parseDate(date);
	const year = month < m ? y + 1 : y;
	return Math.max(0, daysBetween(date, thirdFriday(year, month)));
}
