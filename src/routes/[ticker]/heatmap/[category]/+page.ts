import { error } from '@sveltejs/kit';
import { parseClassicView, ViewStateError } from '$lib/state/viewState';
import { parseTimeLink } from '$lib/state/timeLink';
import type { PageLoad } from './$types';

/**
 * The heatmap's state is its URL: ticker, category, metric, and for a past day `day` (ET
 * YYYY-MM-DD) and `at` (the moment to centre on, unix s; see $lib/state/timeLink), so a share
 * link reopens the same view.
 */
export const load = (({ params, url }) => {
	try {
		const classic = parseClassicView(params.ticker, params.category, url.searchParams);
		const { day, at: moment } = parseTimeLink(url.searchParams);
		return {
			view: { ticker: classic.ticker, category: classic.category, metric: classic.metric },
			day,
			moment
		};
	} catch (err) {
		if (err instanceof ViewStateError) error(404, err.message);
		throw err;
	}
}) satisfies PageLoad;
