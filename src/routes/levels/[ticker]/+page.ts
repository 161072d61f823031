import { error } from '@sveltejs/kit';
import { parseTimeLink } from '$lib/state/timeLink';
import { parseLevelsView, ViewStateError } from '$lib/state/viewState';
import type { PageLoad } from './$types';

export const load = (({ params, url }) => {
	try {
		return {
			view: parseLevelsView(params.ticker, url.searchParams),
			// The path's day and marked moment, as every time-aware view.
			time: parseTimeLink(url.searchParams)
		};
	} catch (err) {
		if (err instanceof ViewStateError) error(404, err.message);
		throw err;
	}
}) satisfies PageLoad;
