/**
 * The Orderflow view's state in its URL: `/<TICKER>/orderflow?charts=dex,spot&exp=zero&zoom=1000-1130&theme=light`.
 * `charts` picks the session charts (DEX, GEX and convexity flow, spot), `exp` the expiries whose
 * flow lines are drawn (0DTE, next), `zoom` the time window as ET clock times (HHMM or HHMMSS,
 * inside 09:30-16:00), so a link opens the same window of the recipient's session. Parameters at
 * their default are left out: the canonical URL of a state is unique.
 */
import { SESSION_CLOSE_MINUTE } from '../contract/marketCalendar';
import { OPEN_SECOND } from '../contract/newYorkTime';
import { parseTicker, parseTheme, ViewStateError, withQuery, type Theme } from './viewState';

export const FLOW_CHARTS = ['dex', 'gex', 'cvr', 'spot'] as const;
export type FlowChartId = (typeof FLOW_CHARTS)[number];
export const FLOW_EXPIRIES = ['zero', 'one'] as const;
export type FlowExpiry = (typeof FLOW_EXPIRIES)[number];

const OPEN = OPEN_SECOND;
/** The normal close: a link's window is a clock range, whatever the recipient's day. */
const CLOSE = SESSION_CLOSE_MINUTE * 60;

/** A time window as seconds since 00:00 ET. */
export interface ClockWindow {
	from: number;
	to: number;
}

export interface OrderflowViewState {
	ticker: string;
	/** Charts shown, in FLOW_CHARTS order. */
	charts: FlowChartId[];
	/** Expiries drawn on the flow charts, in FLOW_EXPIRIES order (at least one). */
	expiries: FlowExpiry[];
	/** null = the whole session. */
	zoom: ClockWindow | null;
	theme: Theme | null;
}

function parseList<T extends string>(
	raw: string | null,
	all: readonly T[],
	name: string,
	allowNone: boolean
): T[] {
	if (raw === null) return [...all];
	const names = raw === '' || raw === 'none' ? [] : raw.split(',');
	for (const n of names) {
		if (!(all as readonly string[]).includes(n)) {
			throw new ViewStateError(`unknown ${name} '${n}' (expected ${all.join(', ')})`);
		}
	}
	if (!allowNone && names.length === 0)
		throw new ViewStateError(`${name} needs at least one value`);
	return all.filter((x) => names.includes(x));
}

function parseClock(raw: string): number {
	const m = /^([01]\d|2[0-3])([0-5]\d)([0-5]\d)?$/.exec(raw);
	if (!m) throw new ViewStateError(`zoom times are HHMM or HHMMSS, got '${raw}'`);
	return Number(m[1]) * 3600 + Number(m[2]) * 60 + Number(m[3] ?? 0);
}

function formatClock(s: number): string {
	const t = Math.round(s);
	const hhmm = `${String(Math.floor(t / 3600)).padStart(2, '0')}${String(Math.floor((t % 3600) / 60)).padStart(2, '0')}`;
	return t % 60 === 0 ? hhmm : `${hhmm}${String(t % 60).padStart(2, '0')}`;
}

export function parseClockWindow(raw: string | null): ClockWindow | null {
	if (raw === null || raw === '') return null;
	const parts = raw.split('-');
	if (parts.length !== 2) throw new ViewStateError(`zoom must be <from>-<to>, got '${raw}'`);
	const from = parseClock(parts[0]);
	const to = parseClock(parts[1]);
	if (!(from < to)) throw new ViewStateError(`zoom start ${parts[0]} must be before ${parts[1]}`);
	if (from < OPEN || to > CLOSE) {
		throw new ViewStateError(`zoom must lie inside the 09:30-16:00 session, got '${raw}'`);
	}
	return { from, to };
}

export function parseOrderflowView(ticker: string, search: URLSearchParams): OrderflowViewState {
	return {
		ticker: parseTicker(ticker),
		charts: parseList(search.get('charts'), FLOW_CHARTS, 'chart', true),
		expiries: parseList(search.get('exp'), FLOW_EXPIRIES, 'expiry', false),
		zoom: parseClockWindow(search.get('zoom')),
		theme: parseTheme(search.get('theme'))
	};
}

/** The window as it is written in a link (whole seconds, inside the session). */
export function canonicalWindow(w: ClockWindow): ClockWindow | null {
	const from = Math.max(OPEN, Math.round(w.from));
	const to = Math.min(CLOSE, Math.round(w.to));
	if (!(from < to) || (from === OPEN && to === CLOSE)) return null;
	return { from, to };
}

export function orderflowViewUrl(s: OrderflowViewState): string {
	const q = new URLSearchParams();
	const charts = FLOW_CHARTS.filter((c) => s.charts.includes(c));
	if (charts.length !== FLOW_CHARTS.length)
		q.set('charts', charts.length ? charts.join(',') : 'none');
	const exp = FLOW_EXPIRIES.filter((e) => s.expiries.includes(e));
	if (exp.length === 0) throw new ViewStateError('expiry needs at least one value');
	if (exp.length !== FLOW_EXPIRIES.length) q.set('exp', exp.join(','));
	const zoom = s.zoom && canonicalWindow(s.zoom);
	if (zoom) q.set('zoom', `${formatClock(zoom.from)}-${formatClock(zoom.to)}`);
	if (s.theme) q.set('theme', s.theme);
	return withQuery(`/${s.ticker}/orderflow`, q);
}
