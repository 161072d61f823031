/**
 * GET /history/<ticker>/<stream>/moment?day=YYYY-MM-DD[&at=<unix s>]: the chain recorded at one
 * moment of a day, as JSON (src/lib/relay/momentBody.ts), gzip-encoded. Without `at` it is the
 * day's last overview step, the moment Classic opens a past day at: the page asks for it with the
 * page (a preload in its head) and draws it without the decode worker. One record, read through
 * the recording's index (nothing else of the day is read). Framework-free so the SvelteKit route
 * and the integration tests use the same code.
 */
import { gzipSync } from 'node:zlib';
import { encodeMomentBody } from '../../relay/momentBody';
import {
	isRecordedDay,
	isRecordedTicker,
	isStreamName,
	type SessionRecorder
} from '../recorder/sessionRecorder';
import { problem, type OverviewAnswer } from './overviewAnswer';
import { gexOfRecord, hasOverview } from './overviewRow';

export async function momentResponse(
	recorder: SessionRecorder,
	ticker: string,
	stream: string,
	query: URLSearchParams
): Promise<OverviewAnswer> {
	if (!isRecordedTicker(ticker)) return problem(400, `Not a ticker: ${ticker}`);
	if (!isStreamName(stream)) return problem(400, `Not a stream name: ${stream}`);
	if (!hasOverview(ticker, stream)) return problem(400, `${stream} has no moments (not chains)`);
	const day = query.get('day') ?? recorder.daysOf(ticker, stream).at(-1);
	if (day === undefined) return problem(404, `Nothing recorded for ${ticker} ${stream} yet.`);
	if (!isRecordedDay(day)) return problem(400, `day must be YYYY-MM-DD, got ${day}`);
	if (!recorder.has(day, ticker, stream)) {
		return problem(404, `${ticker} ${stream} was not recorded on ${day}.`);
	}
	const rawAt = query.get('at');
	let at: number;
	if (rawAt === null) {
		// The last step of the day's overview, the timeline's last moment (kept with the open
		// overview until the day grows, as its answers are).
		const last = recorder.overviews.made(day, ticker, stream, 'last step', (rows) =>
			rows.length > 0 ? rows[rows.length - 1].timestamp : null
		);
		if (last === undefined || last === null) {
			return problem(404, `Nothing recorded for ${ticker} ${stream} on ${day}.`);
		}
		at = last;
	} else {
		at = Number(rawAt);
		if (rawAt.trim() === '' || !Number.isFinite(at)) {
			return problem(400, `at must be unix seconds, got ${rawAt}`);
		}
	}
	await recorder.check(day, ticker, stream);
	const span = recorder.span(day, ticker, stream, at, at);
	let found;
	if (span) {
		read: for await (const chunk of span.chunks()) {
			for (const r of chunk) {
				if (r.timestamp !== at) continue;
				found = gexOfRecord(r.kind, r.payload);
				if (found) break read;
			}
		}
	}
	if (!found) return problem(404, `No chain of ${ticker} ${stream} was recorded at ${at}.`);
	return {
		status: 200,
		headers: {
			'content-type': 'application/json',
			'content-encoding': 'gzip',
			'cache-control': 'no-store',
			'x-gexdeck-day': day
		},
		body: gzipSync(encodeMomentBody({ at, chain: found }), { level: 1 })
	};
}
