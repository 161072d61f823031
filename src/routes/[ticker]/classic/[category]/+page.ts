import { error } from '@sveltejs/kit';
import { browser } from '$app/environment';
import { feedOf, feedStream } from '$lib/contract/feeds';
import { warmBackfillWorker } from '$lib/stream/backfill/backfillClient';
import { inLaterTask } from '$lib/stream/nextTask';
import { appStarted } from '$lib/state/appStart';
import { fetchDaySeed } from '$lib/stream/backfill/daySeed';
import { askEarly } from '$lib/stream/backfill/earlyFetch';
import { momentUrl } from '$lib/stream/backfill/momentClient';
import { overviewUrl } from '$lib/stream/backfill/overviewClient';
import { parseClassicView, ViewStateError } from '$lib/state/viewState';
import { parseTimeLink } from '$lib/state/timeLink';
import type { PageLoad } from './$types';

/** The replay asks the day's lines by both metrics (the price chart's majors follow either). */
const LINE_METRICS = ['vol', 'oi'] as const;

/**
 * The whole view state comes from the URL, so a share link reproduces the view exactly: the
 * chart's settings, and `day` (a past session) and `at` (the replayed moment) as every
 * time-aware view. `seed`: a past day (at its end, or at the link's moment), read here as the
 * page is rendered (the server draws it into the HTML: daySeed.ts). `early`: otherwise, what the
 * replay fetches first (the day's lines; a past day opened at its end, that step's chain),
 * preloaded from the head and asked for here (earlyFetch.ts).
 */
export const load = (async ({ params, url, fetch }) => {
	let view, time;
	try {
		view = parseClassicView(params.ticker, params.category, url.searchParams);
		time = parseTimeLink(url.searchParams);
	} catch (err) {
		if (err instanceof ViewStateError) error(404, err.message);
		throw err;
	}
	const stream = feedStream(feedOf(view.ticker, 'classic', view.category));
	// Rendering the page (the server's, and the browser's hydration replaying the server's answers).
	const seed =
		time.day !== null && !appStarted()
			? await fetchDaySeed(fetch, view.ticker, stream, time.day, time.at)
			: undefined;
	const early = seed
		? []
		: [
				...LINE_METRICS.map((m) => overviewUrl(view.ticker, stream, time.day, m, { cells: false })),
				...(time.day !== null && time.at === null ? [momentUrl(view.ticker, stream, time.day)] : [])
			];
	// Once per page and day: a settled scrub runs the load again and fetches nothing new.
	askEarly(`${url.pathname}?day=${time.day ?? ''}`, early);
	// A scrubbed moment is read by the decode worker: its start-up (fetching and compiling
	// ~100 KB) starts from here, in the task after this one (not in the hydration's own).
	if (browser && time.day !== null) inLaterTask(warmBackfillWorker);
	return { view, time, early, seed };
}) satisfies PageLoad;
