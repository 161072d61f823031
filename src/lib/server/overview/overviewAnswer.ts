/**
 * The answer of an overview route (overviewResponse.ts for chains, flowOverviewResponse.ts for
 * orderflow): a problem as JSON, or a day's gzip body with the headers a whole-day view reads
 * (records, the last step's time, whether the day is still being recorded).
 */
import type { SessionRecorder } from '../recorder/sessionRecorder';

export interface OverviewAnswer {
	status: number;
	headers: Record<string, string>;
	body: Uint8Array | string;
}

export function problem(status: number, error: string): OverviewAnswer {
	return {
		status,
		headers: { 'content-type': 'application/json', 'cache-control': 'no-store' },
		body: JSON.stringify({ error })
	};
}

/** A day's overview body as made once until the day grows (dayOverviews.ts made()). */
export interface MadeBody {
	records: number;
	last: number | undefined;
	body: Uint8Array;
}

/** The 200 of `made`, or 404 when `ticker` `stream` was not recorded on `day`. */
export function bodyAnswer(
	made: MadeBody | undefined,
	recorder: SessionRecorder,
	ticker: string,
	stream: string,
	day: string
): OverviewAnswer {
	if (!made) return problem(404, `${ticker} ${stream} was not recorded on ${day}.`);
	const { records, last, body } = made;
	return {
		status: 200,
		headers: {
			'content-type': 'application/octet-stream',
			'content-encoding': 'gzip',
			'cache-control': 'no-store',
			'x-gexdeck-day': day,
			'x-gexdeck-records': String(records),
			// The day is still being recorded: a view of it follows the raw records after `last`.
			...(recorder.recordingDay() === day ? { 'x-gexdeck-recording': '1' } : {}),
			...(last !== undefined ? { 'x-gexdeck-last': String(last) } : {})
		},
		body
	};
}
