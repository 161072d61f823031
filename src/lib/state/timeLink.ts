/**
 * The time part of every time-aware view's share link: `day` (the ET session, YYYY-MM-DD;
 * absent = today, live) and `at` (the moment, unix seconds; absent = the live edge or none).
 * Classic, the heatmap, Orderflow and the levels path read and write the same two names, so a
 * link carries the day and the moment whichever view it opens. `t` is the heatmap's earlier
 * name for `at`, still read so old links open.
 */
import { isCalendarDate } from '$lib/contract/dates';
import { ViewStateError } from './viewState';

export interface TimeLink {
	day: string | null;
	at: number | null;
}

export const NO_TIME_LINK: TimeLink = { day: null, at: null };

/** The link's day and moment; a malformed one is a ViewStateError naming it. */
export function parseTimeLink(search: URLSearchParams): TimeLink {
	const day = search.get('day');
	if (day !== null && !isCalendarDate(day)) {
		throw new ViewStateError(`day must be YYYY-MM-DD, got '${day}'`);
	}
	const raw = search.get('at') ?? search.get('t');
	const at = raw === null || raw === '' ? null : Number(raw);
	if (at !== null && !(Number.isInteger(at) && at > 0)) {
		throw new ViewStateError(`at must be a moment in unix seconds, got '${raw}'`);
	}
	return { day: day || null, at };
}

/** `path` (with or without a query) with its day and moment set to `link`'s. */
export function withTimeLink(path: string, link: TimeLink): string {
	const q = path.indexOf('?');
	const base = q < 0 ? path : path.slice(0, q);
	const search = new URLSearchParams(q < 0 ? '' : path.slice(q + 1));
	search.delete('t');
	if (link.day) search.set('day', link.day);
	else search.delete('day');
	if (link.at !== null) search.set('at', String(Math.round(link.at)));
	else search.delete('at');
	const s = search.toString().replaceAll('%2C', ',');
	return s ? `${base}?${s}` : base;
}
