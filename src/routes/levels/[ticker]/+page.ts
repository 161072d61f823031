import { error } from '@sveltejs/kit';
import { parseTimeLink } from '$lib/state/timeLink';
import { askEarly } from '$lib/stream/backfill/earlyFetch';
import { overviewUrl } from '$lib/stream/backfill/overviewClient';
import { parseLevelsView, ViewStateError } from '$lib/state/viewState';
import type { PageLoad } from './$types';

/** `early`: the path's overview lines, what the view draws first (preloaded, and asked for here). */
export const load = (({ params, url }) => {
	try {
		const view = parseLevelsView(params.ticker, url.searchParams);
		// The path's day and marked moment, as every time-aware view.
		const time = parseTimeLink(url.searchParams);
		const early = [overviewUrl(view.ticker, 'classic_gex_full', time.day, 'vol', { cells: false })];
		askEarly(early.join(' '), early);
		return { view, time, early };
	} catch (err) {
		if (err instanceof ViewStateError) error(404, err.message);
		throw err;
	}
}) satisfies PageLoad;
