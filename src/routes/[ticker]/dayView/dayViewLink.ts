/**
 * The URL of a view that shows one category's day over time (the heatmap and the price chart):
 * ticker, category, metric, `day` (ET YYYY-MM-DD, absent = today, live) and the replayed moment
 * `at` (unix s; see $lib/state/timeLink), so a share link reopens the same view.
 */
import { error } from '@sveltejs/kit';
import type { GexCategory } from '$lib/contract/categories';
import type { Metric } from '$lib/state/viewState';
import { parseClassicView, ViewStateError, withQuery } from '$lib/state/viewState';
import { parseTimeLink } from '$lib/state/timeLink';

/** The view part of a day view's link. */
export interface DayViewState {
	ticker: string;
	category: GexCategory;
	metric: Metric;
}

/** The state in a day view's link: a 404 for a link that names no view. */
export function loadDayView(params: { ticker: string; category: string }, url: URL) {
	try {
		const classic = parseClassicView(params.ticker, params.category, url.searchParams);
		const { day, at: moment } = parseTimeLink(url.searchParams);
		const view: DayViewState = {
			ticker: classic.ticker,
			category: classic.category,
			metric: classic.metric
		};
		return { view, day, moment };
	} catch (err) {
		if (err instanceof ViewStateError) error(404, err.message);
		throw err;
	}
}

/** What a control changes; a day (or null, today) given drops the moment. */
export interface DayViewChange {
	ticker?: string;
	category?: string;
	metric?: string;
	day?: string | null;
}

/**
 * The link of the `page` view (`heatmap`, `price`) after `next`: the moment stays while the day
 * does (a metric or category switch keeps the link's time).
 */
export function dayViewHref(
	page: 'heatmap' | 'price',
	now: { view: DayViewState; day: string | null; moment: number | null },
	next: DayViewChange
): string {
	const q = new URLSearchParams();
	const metric = next.metric ?? now.view.metric;
	if (metric !== 'vol') q.set('metric', metric);
	const day = next.day === undefined ? now.day : next.day;
	if (day) q.set('day', day);
	if (next.day === undefined && now.moment !== null) q.set('at', String(now.moment));
	return withQuery(
		`/${next.ticker ?? now.view.ticker}/${page}/${next.category ?? now.view.category}`,
		q
	);
}
