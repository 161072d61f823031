import { error } from '@sveltejs/kit';
import { parseOrderflowView } from '$lib/state/orderflowView';
import { parseTimeLink } from '$lib/state/timeLink';
import { ViewStateError } from '$lib/state/viewState';
import { askEarly } from '$lib/stream/backfill/earlyFetch';
import { overviewUrl } from '$lib/stream/backfill/overviewClient';
import type { PageLoad } from './$types';

/**
 * The whole view state comes from the URL, so a share link reproduces the view exactly.
 * `early`: the day's flow overview, what the series draw first (preloaded, and asked for here);
 * nothing for a locked view, which asks nothing.
 */
export const load = (({ params, url, data }) => {
	try {
		const view = parseOrderflowView(params.ticker, url.searchParams);
		// `day` (a past session) and `at` (the crosshair's moment), as every time-aware view.
		const time = parseTimeLink(url.searchParams);
		const locked = Object.keys(data.refusals ?? {}).length > 0;
		const early = locked ? [] : [overviewUrl(view.ticker, 'orderflow_orderflow', time.day, 'vol')];
		askEarly(early.join(' '), early);
		return {
			// What the proxy would refuse this account (+page.server.ts).
			...data,
			view,
			time,
			early
		};
	} catch (err) {
		if (err instanceof ViewStateError) error(404, err.message);
		throw err;
	}
}) satisfies PageLoad;
