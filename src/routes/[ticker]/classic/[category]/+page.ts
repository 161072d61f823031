import { error } from '@sveltejs/kit';
import { browser } from '$app/environment';
import { warmBackfillWorker } from '$lib/stream/backfill/backfillClient';
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
		const view = parseClassicView(params.ticker, params.category, url.searchParams);
		const time = parseTimeLink(url.searchParams);
		// A past day's moment is read by the decode worker: its start-up (fetching and compiling
		// ~100 KB) runs from here, before the page hydrates, not after the replay's first effect.
		if (browser && time.day !== null) warmBackfillWorker();
		return { view, time };
	} catch (err) {
		if (err instanceof ViewStateError) error(404, err.message);
		throw err;
	}
}) satisfies PageLoad;
