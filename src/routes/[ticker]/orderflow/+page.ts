import { error } from '@sveltejs/kit';
import { parseOrderflowView } from '$lib/state/orderflowView';
import { parseTimeLink } from '$lib/state/timeLink';
import { ViewStateError } from '$lib/state/viewState';
import type { PageLoad } from './$types';

/** The whole view state comes from the URL, so a share link reproduces the view exactly. */
export const load = (({ params, url, data }) => {
	try {
		return {
			// What the proxy would refuse this account (+page.server.ts).
			...data,
			view: parseOrderflowView(params.ticker, url.searchParams),
			// `day` (a past session) and `at` (the crosshair's moment), as every time-aware view.
			time: parseTimeLink(url.searchParams)
		};
	} catch (err) {
		if (err instanceof ViewStateError) error(404, err.message);
		throw err;
	}
}) satisfies PageLoad;
