import { parseChainView } from '$lib/state/chainView';
import { ViewStateError } from '$lib/state/viewState';
import type { PageLoad } from './$types';

/**
 * The view state (weighting, curves, conventions...) comes from the URL; the chain itself never
 * does. A bad parameter is not a 404: the page says which value is wrong.
 */
export const load = (({ url }) => {
	try {
		return { view: parseChainView(url.searchParams), invalid: null };
	} catch (err) {
		if (!(err instanceof ViewStateError)) throw err;
		return { view: null, invalid: err.message };
	}
}) satisfies PageLoad;
