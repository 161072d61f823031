import { error } from '@sveltejs/kit';
import { parseClassicView, ViewStateError } from '$lib/state/viewState';
import { parseTimeLink } from '$lib/state/timeLink';
import type { PageLoad } from './$types';

/**
 * The price chart's state is its URL, as the heatmap's: ticker, category (whose zero gamma and
 * majors are drawn), metric (the majors by volume or OI), `day` and the replayed moment `at`.
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
