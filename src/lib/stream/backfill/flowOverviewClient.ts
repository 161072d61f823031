/**
 * The page's side of an orderflow stream's day overview (GET /history/<ticker>/<stream>/overview,
 * see src/lib/relay/flowOverviewBody.ts): the flow series of a whole recorded day at the
 * overview's 10 s steps, one small gzip-encoded answer the browser inflates itself, decoded on
 * the main thread (a full day is 2,340 steps of 8 numbers: well under a millisecond).
 */
import { decodeFlowOverviewBody, type DecodedFlowOverview } from '../../relay/flowOverviewBody';
import { overviewUrl } from './overviewClient';
import { backfillActivity } from './backfillActivity.svelte';
import { takeEarly } from './earlyFetch';

/** Activity ids of overview loads: negative, apart from the backfill client's. */
let nextId = -1;

export interface FlowOverviewResult extends DecodedFlowOverview {
	/** Body bytes after the browser inflated it. */
	bytes: number;
	/** The day is still being recorded (a view of it follows the raw records after `last`). */
	recording: boolean;
	/** Data time of the last step (unix s). */
	last?: number;
}

/**
 * The day's flow overview, or undefined when the server has none for it (not recorded here: the
 * view then reads the day the raw way, which also fetches a past day from the service).
 */
export async function fetchFlowOverview(
	ticker: string,
	stream: string,
	day: string | null,
	signal?: AbortSignal
): Promise<FlowOverviewResult | undefined> {
	// While it loads the page says so, as for a raw day (BackfillProgress.svelte).
	const id = nextId--;
	backfillActivity.begin(id, ticker, stream);
	try {
		// The metric is the chain overviews' parameter; an orderflow stream's answer ignores it.
		const url = overviewUrl(ticker, stream, day, 'vol');
		const res = await (takeEarly(url) ?? fetch(url, { signal }));
		if (!res.ok) return undefined;
		const bytes = new Uint8Array(await res.arrayBuffer());
		const last = res.headers.get('x-gexdeck-last');
		return {
			...decodeFlowOverviewBody(bytes),
			bytes: bytes.length,
			recording: res.headers.get('x-gexdeck-recording') === '1',
			last: last === null ? undefined : Number(last)
		};
	} finally {
		backfillActivity.end(id);
	}
}
