/**
 * The page's side of a day overview (GET /history/<ticker>/<stream>/overview, see
 * src/lib/relay/overviewBody.ts): a whole recorded day of a chain stream at 10 s steps, for one
 * metric, in one small gzip-encoded answer the browser inflates itself. Decoded on the main
 * thread: a full day is ~2,340 columns, a few milliseconds of typed-array copies.
 */
import {
	decodeOverviewBody,
	type DecodedOverview,
	type OverviewMetric
} from '../../relay/overviewBody';
import type { BackfillResult } from './backfillClient';
import { answerBytes } from './answerBytes';
import { takeEarly } from './earlyFetch';

export interface OverviewResult extends DecodedOverview {
	/** Body bytes after the browser inflated it. */
	bytes: number;
	/** The day is still being recorded (a view of it follows the raw records after `last`). */
	recording: boolean;
	/** Data time of the last step (unix s). */
	last?: number;
}

export interface OverviewOptions {
	/** false: the lines only (spot, zero gamma, majors per step), no strikes. */
	cells?: boolean;
	/** Only an overview already built: 404 instead of a build from the raw records. */
	ready?: boolean;
}

export function overviewUrl(
	ticker: string,
	stream: string,
	day: string | null,
	metric: OverviewMetric,
	options: OverviewOptions = {}
): string {
	const q = new URLSearchParams({ metric });
	if (day !== null) q.set('day', day);
	if (options.cells === false) q.set('cells', 'none');
	if (options.ready) q.set('ready', '1');
	return `/history/${encodeURIComponent(ticker)}/${encodeURIComponent(stream)}/overview?${q}`;
}

/**
 * The day's overview, or undefined when the server has none for it (not recorded here: the view
 * then reads the day the raw way, which also fetches a past day from the service).
 */
export async function fetchOverview(
	ticker: string,
	stream: string,
	day: string | null,
	metric: OverviewMetric,
	signal?: AbortSignal,
	options: OverviewOptions = {}
): Promise<OverviewResult | undefined> {
	const url = overviewUrl(ticker, stream, day, metric, options);
	return overviewOf(await (takeEarly(url) ?? fetch(url, { signal })));
}

/** An overview answer read: undefined when it is not one (404: none for the day). */
export async function overviewOf(res: Response): Promise<OverviewResult | undefined> {
	if (!res.ok) return undefined;
	const bytes = await answerBytes(res);
	const last = res.headers.get('x-gexdeck-last');
	return {
		...decodeOverviewBody(bytes),
		bytes: bytes.length,
		recording: res.headers.get('x-gexdeck-recording') === '1',
		last: last === null ? undefined : Number(last)
	};
}

/** Where a view following a recorded day asks on from, as a backfill result would say it. */
export function followFrom(overview: OverviewResult): BackfillResult {
	return {
		id: 0,
		ok: true,
		updates: [],
		corrupt: 0,
		bytes: overview.bytes,
		fetchMs: 0,
		decodeMs: 0,
		day: overview.header.day,
		recording: overview.recording,
		last: overview.last
	};
}
