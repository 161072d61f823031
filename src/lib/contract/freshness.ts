/**
 * What the data on screen is, in a trader's words: live, delayed, a replay of a past session
 * (the embedded, simulated market), or the last session's data while the market is closed. One
 * pure decision for every view's badge and the levels feed's `stale` flag, from the data's own
 * timestamp and the wall clock, never from whether the service says its market is open: the
 * embedded service replays the last session outside market hours and reports it open.
 *
 * Live means: New York is in regular trading hours (contract calendar, early closes included),
 * the data belongs to today's session, and it is at most LIVE_LAG_S old.
 */
import { isSessionDay } from './marketCalendar';
import { etDate, etDay, isRegularTradingHours, parseDate, sessionBounds } from './newYorkTime';

/**
 * The documented lag: data older than this during the session is labelled delayed. The service
 * computes once a second and the dashboard polls at 1 s, so a healthy feed is 1-3 s old; ten
 * seconds leaves room for a slow poll without calling a stalled feed live.
 */
export const LIVE_LAG_S = 10;

export type FreshnessKind = 'live' | 'delayed' | 'replay' | 'closed' | 'old';

export interface Freshness {
	kind: FreshnessKind;
	/** Only `live` data may be acted on as current. */
	live: boolean;
	/** The badge text: "Live", "Delayed 40 s", "Replay of Tue Nov 25 (simulated market)", ... */
	text: string;
	/** The ET session day (`YYYY-MM-DD`) the data belongs to. */
	session: string;
}

export interface FreshnessInput {
	/** The data's own timestamp, unix seconds. */
	dataTimestamp: number;
	/** Wall clock, unix ms. */
	now: number;
	/** The service is the embedded, simulated market (it replays past sessions). */
	simulated: boolean;
	/** Override of LIVE_LAG_S (seconds). */
	lagSeconds?: number;
}

const WEEKDAY = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const MONTH = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** "Tue Nov 25" of a `YYYY-MM-DD` day. */
export function sessionDayLabel(day: string): string {
	const [y, m, d] = parseDate(day);
	const wd = new Date(Date.UTC(y, m - 1, d)).getUTCDay();
	return `${WEEKDAY[wd]} ${MONTH[m - 1]} ${d}`;
}

/**
 * A session day as a trader reads it beside data of it: "today" when it is New York's date at
 * `nowMs`, else its day ("Fri Nov 27"): on a weekend, before the open or in a replay of the
 * simulated market, the feed's newest session is not today's.
 */
export function sessionName(day: string, nowMs: number): string {
	return day === etDate(nowMs) ? 'today' : sessionDayLabel(day);
}

/** "40 s", "3 min", "2 h 5 min": the delay of data in the session. */
function delayText(seconds: number): string {
	const s = Math.round(seconds);
	if (s < 120) return `${s} s`;
	const min = Math.floor(s / 60);
	if (min < 60) return `${min} min`;
	return `${Math.floor(min / 60)} h ${min % 60} min`;
}

/** The newest session day at or before `day` (`day` itself when it is one). */
function sessionAtOrBefore(day: string): string {
	let iso = day;
	for (let i = 0; i < 10 && !isSessionDay(iso); i++) iso = previousDay(iso);
	return iso;
}

export function freshness(input: FreshnessInput): Freshness {
	const { dataTimestamp, now, simulated } = input;
	const lag = input.lagSeconds ?? LIVE_LAG_S;
	const session = etDay(dataTimestamp);
	const today = etDate(now);
	const day = sessionDayLabel(session);
	const open = isRegularTradingHours(now);
	if (open && session === today) {
		const age = Math.max(0, now / 1000 - dataTimestamp);
		if (age <= lag) return { kind: 'live', live: true, text: 'Live', session };
		return { kind: 'delayed', live: false, text: `Delayed ${delayText(age)}`, session };
	}
	if (simulated) {
		return { kind: 'replay', live: false, text: `Replay of ${day} (simulated market)`, session };
	}
	if (session === lastSession(now)) {
		return { kind: 'closed', live: false, text: `Market closed: last session (${day})`, session };
	}
	return {
		kind: 'old',
		live: false,
		text: open ? `Not live: data of ${day}` : `Market closed: data of ${day}`,
		session
	};
}

/** The newest session that has opened by `now` (unix ms): today's once it opened, else earlier. */
export function lastSession(now: number): string {
	const today = etDate(now);
	if (isSessionDay(today) && now / 1000 >= sessionBounds(today).open) return today;
	return sessionAtOrBefore(previousDay(today));
}

function previousDay(day: string): string {
	const [y, m, d] = parseDate(day);
	return new Date(Date.UTC(y, m - 1, d - 1)).toISOString().slice(0, 10);
}
