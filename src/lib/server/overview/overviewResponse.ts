/**
 * GET /history/<ticker>/<stream>/overview?day=YYYY-MM-DD&metric=vol|oi[&cells=none]: a whole day
 * of one chain stream as its day overview (src/lib/relay/overviewBody.ts), one gzip-encoded body:
 * what a whole-day view draws first, before it asks /history for raw detail where it needs it.
 * An orderflow stream's day is its flow overview (flowOverviewResponse.ts).
 * `cells=none` leaves the strikes out (no rows): the lines only (spot, zero gamma, the majors),
 * what the levels path and Classic's timeline draw, ~40 KB for a full day. `ready=1` answers
 * 404 at once instead of building an overview that is not there yet (a page being rendered).
 * Framework-free so the SvelteKit route and the integration tests use the same code.
 */
import { gzipSync } from 'node:zlib';
import { encodeOverviewBody, type OverviewMetric } from '../../relay/overviewBody';
import {
	isRecordedDay,
	isRecordedTicker,
	isStreamName,
	type SessionRecorder
} from '../recorder/sessionRecorder';
import { OVERVIEW_STEP_SECONDS } from './dayOverviews';
import { hasOverview } from './overviewRow';
import { hasFlowOverview } from './flowOverviewRow';
import { flowOverviewResponse } from './flowOverviewResponse';
import { bodyAnswer, problem, type OverviewAnswer } from './overviewAnswer';

export type { OverviewAnswer } from './overviewAnswer';

export function overviewResponse(
	recorder: SessionRecorder,
	ticker: string,
	stream: string,
	query: URLSearchParams
): OverviewAnswer {
	if (!isRecordedTicker(ticker)) return problem(400, `Not a ticker: ${ticker}`);
	if (!isStreamName(stream)) return problem(400, `Not a stream name: ${stream}`);
	// Orderflow streams have their own kind of overview: the flow series per step.
	if (hasFlowOverview(ticker, stream)) return flowOverviewResponse(recorder, ticker, stream, query);
	if (!hasOverview(ticker, stream)) return problem(400, `${stream} has no overview (not chains)`);
	const metric = query.get('metric') ?? 'vol';
	if (metric !== 'vol' && metric !== 'oi') return problem(400, `metric must be vol or oi`);
	const cells = query.get('cells') ?? 'all';
	if (cells !== 'all' && cells !== 'none') return problem(400, `cells must be all or none`);
	const none = new Float64Array(0);
	const day = query.get('day') ?? recorder.daysOf(ticker, stream).at(-1);
	if (day === undefined) return problem(404, `Nothing recorded for ${ticker} ${stream} yet.`);
	if (!isRecordedDay(day)) return problem(400, `day must be YYYY-MM-DD, got ${day}`);
	const ready = query.get('ready');
	if (ready !== null && ready !== '1') return problem(400, `ready must be 1`);
	// A page rendering the day asks only for an overview already built (daySeed.ts).
	if (ready === '1' && !recorder.overviews.isBuilt(day, ticker, stream)) {
		return problem(404, `No overview of ${ticker} ${stream} on ${day} is built (yet, or at all).`);
	}
	const vol = (metric as OverviewMetric) === 'vol';
	// Encoded and compressed once per overview and variant until the day grows (dayOverviews.ts):
	// the same day asked again (another tab, Classic's second metric after the levels path's)
	// is answered without reading, decoding or compressing the rows again.
	const made = recorder.overviews.made(day, ticker, stream, `${metric}/${cells}`, (rows) => ({
		records: rows.length,
		last: rows.at(-1)?.timestamp,
		// Level 1: a full day's ~1 MB compresses in ~10-25 ms instead of ~115-250 ms at 6, for
		// 0.47 MB instead of 0.41 MB (npm run bench -- overview): the answer's time was most of
		// the page's wait, 50 KB is 20 ms at 20 Mbit/s.
		body: gzipSync(
			encodeOverviewBody(
				{ ticker, stream, day, metric: metric as OverviewMetric, step: OVERVIEW_STEP_SECONDS },
				rows.map((r) => ({
					timestamp: r.timestamp,
					spot: r.spot,
					zeroGamma: r.zeroGamma,
					majorPos: vol ? r.majorPosVol : r.majorPosOi,
					majorNeg: vol ? r.majorNegVol : r.majorNegOi,
					strikes: cells === 'none' ? none : r.strikes,
					values: cells === 'none' ? none : vol ? r.gexVol : r.gexOi
				}))
			),
			{ level: 1 }
		)
	}));
	return bodyAnswer(made, recorder, ticker, stream, day);
}
