import { error } from '@sveltejs/kit';
import { parseClassicView, ViewStateError } from '$lib/state/viewState';
import { parseTimeLink } from '$lib/state/timeLink';
import type { PageLoad } from './$types';

/**
 * The whole view state comes from the URL, so a share link reproduces the view exactly: the
 * chart's settings, and `day` (a past session) and `at` (the replayed moment) as every
 * time-aware view.
 */
export const load = (({ params, url }) => {
	try {
		return {
			view: parseClassicView(params.ticker, params.category, url.searchParams),
			time: parseTimeLink(url.searchParams)
		};
	} catch (err) {
		if (err instanceof ViewStateError) error(404, err.message);
		throw err;
	}
}) satisfies PageLoad;
