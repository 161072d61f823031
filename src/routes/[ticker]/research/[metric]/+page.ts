import { parseResearchView } from '$lib/state/researchView';
import { ViewStateError } from '$lib/state/viewState';
import type { PageLoad } from './$types';

/**
 * The whole view state comes from the URL (share links). A bad parameter is not a 404: the page
 * says which value is wrong and offers the same view without filters.
 */
export const load = (({ params, url }) => {
	try {
		return {
			view: parseResearchView(params.ticker, params.metric, url.searchParams),
			invalid: null
		};
	} catch (err) {
		if (!(err instanceof ViewStateError)) throw err;
		return {
			view: null,
			invalid: { message: err.message, ticker: params.ticker.toUpperCase(), metric: params.metric }
		};
	}
}) satisfies PageLoad;
