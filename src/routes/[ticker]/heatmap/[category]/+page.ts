import { askEarly } from '$lib/stream/backfill/earlyFetch';
import { overviewUrl } from '$lib/stream/backfill/overviewClient';
import { loadDayView } from '../../dayView/dayViewLink';
import type { PageLoad } from './$types';

/**
 * The heatmap's state is its URL: ticker, category, metric, and for a past day `day` and the
 * moment to centre on `at` (see dayViewLink.ts), so a share link reopens the same view.
 * `early`: the day's overview, what the heatmap draws first (preloaded, and asked for here).
 */
export const load = (({ params, url }) => {
	const state = loadDayView(params, url);
	const { view, day } = state;
	const early = [overviewUrl(view.ticker, `classic_${view.category}`, day, view.metric)];
	askEarly(early.join(' '), early);
	return { ...state, early };
}) satisfies PageLoad;
