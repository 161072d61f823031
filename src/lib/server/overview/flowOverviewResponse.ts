/**
 * GET /history/<ticker>/<orderflow stream>/overview?day=YYYY-MM-DD: a whole day of an orderflow
 * stream as its flow overview (src/lib/relay/flowOverviewBody.ts), one gzip-encoded body: what
 * Orderflow's series draw first, before they ask /history for the raw records of the live edge
 * or a zoomed window. overviewResponse.ts answers through this for orderflow streams.
 */
import { gzipSync } from 'node:zlib';
import { encodeFlowOverviewBody } from '../../relay/flowOverviewBody';
import { FLOW_SERIES } from '../../contract/flowSeries';
import { isRecordedDay, type SessionRecorder } from '../recorder/sessionRecorder';
import { OVERVIEW_STEP_SECONDS } from './dayOverviews';
import { bodyAnswer, problem, type OverviewAnswer } from './overviewAnswer';

export function flowOverviewResponse(
	recorder: SessionRecorder,
	ticker: string,
	stream: string,
	query: URLSearchParams
): OverviewAnswer {
	const day = query.get('day') ?? recorder.daysOf(ticker, stream).at(-1);
	if (day === undefined) return problem(404, `Nothing recorded for ${ticker} ${stream} yet.`);
	if (!isRecordedDay(day)) return problem(400, `day must be YYYY-MM-DD, got ${day}`);
	// Encoded and compressed once until the day grows (dayOverviews.ts made()).
	const made = recorder.flowOverviews.made(day, ticker, stream, 'flow', (rows) => ({
		records: rows.length,
		last: rows.at(-1)?.timestamp,
		body: gzipSync(
			encodeFlowOverviewBody(
				{ ticker, stream, day, step: OVERVIEW_STEP_SECONDS, series: [...FLOW_SERIES] },
				rows
			),
			{ level: 1 }
		)
	}));
	return bodyAnswer(made, recorder, ticker, stream, day);
}
