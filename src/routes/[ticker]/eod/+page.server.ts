/**
 * /<TICKER>/eod: the service's end-of-day report of the newest completed session: download it
 * (streamed through /eod/<ticker>), or open it, which files its 15 categories in the recorder so
 * the heatmap and replay show that day.
 */
import { error, fail } from '@sveltejs/kit';
import { isTicker } from '$lib/contract/tickers';
import { config } from '$lib/server/config';
import { EodError, openEodReport } from '$lib/server/recorder/eodReports';
import { sessionRecorder } from '$lib/server/recorder/recorderMount';
import { upstreamTarget } from '$lib/server/upstream';
import type { Actions, PageServerLoad } from './$types';

export const load = (({ params }) => {
	const ticker = params.ticker.toUpperCase();
	if (!isTicker(ticker)) error(404, `Unknown ticker ${params.ticker}`);
	const recorder = sessionRecorder();
	// Days already filed (recorded live, fetched from history or opened from a report).
	const days = recorder
		.days()
		.reverse()
		.map((day) => ({ day, streams: recorder.streams(day, ticker) }))
		.filter((d) => d.streams.length > 0);
	return { ticker, days };
}) satisfies PageServerLoad;

export const actions = {
	open: async ({ params }) => {
		const ticker = params.ticker.toUpperCase();
		if (!isTicker(ticker)) return fail(404, { message: `Unknown ticker ${params.ticker}` });
		const target = await upstreamTarget();
		try {
			const opened = await openEodReport(
				{ baseUrl: target.baseUrl, key: target.customKey, userAgent: config().userAgent },
				sessionRecorder(),
				ticker
			);
			return { opened };
		} catch (e) {
			const status = e instanceof EodError ? e.status : 502;
			return fail(status >= 400 && status < 600 ? status : 502, {
				message: `The EOD report could not be opened: ${(e as Error).message}`
			});
		}
	}
} satisfies Actions;
