import { error } from '@sveltejs/kit';
import { parseStateView } from '$lib/state/stateView';
import { ViewStateError } from '$lib/state/viewState';
import type { PageLoad } from './$types';

/** The whole view state comes from the URL, so a share link reproduces the view exactly. */
export const load = (({ params, url, data }) => {
	try {
		return {
			...data,
			view: parseStateView(params.ticker, params.category, url.searchParams)
		};
	} catch (err) {
		if (err instanceof ViewStateError) error(404, err.message);
		throw err;
	}
}) satisfies PageLoad;
