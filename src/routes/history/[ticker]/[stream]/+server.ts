/**
 * GET /history/<ticker>/<stream>?day=&from=&to=&with=spot&step=: the recorded session (or part
 * of it) of one stream as a backfill body for the decode worker. With `source=service` and a
 * day this server did not record, the day is first fetched from the service's history (Quant;
 * counted against api_history_cache) and stored in the recorder's format, so it is fetched once.
 * While the service still generates the day, the answer is a 504 with where it stands (queue
 * position, progress, wait: the service's body) and a Retry-After, within a few seconds, so the
 * page shows progress instead of a spinner held for a minute (historyDayStatus).
 * At most historyStreams.max answers stream at once (503 with Retry-After past it).
 * Behind the dashboard's gate like every route (hooks.server.ts).
 */
import { config } from '$lib/server/config';
import type { IncomingMessage } from 'node:http';
import { historyStreams, releasingStream } from '$lib/server/connectionCap';
import { reservedHistorySlot } from '$lib/server/fastAnswers';
import { backfillResponse } from '$lib/server/recorder/backfillResponse';
import { historyPendingBody } from '$lib/contract/historyPending';
import { HistoryImportError, historyDayStatus } from '$lib/server/recorder/historyImport';
import { sessionRecorder } from '$lib/server/recorder/recorderMount';
import { isRecordedDay } from '$lib/server/recorder/sessionRecorder';
import { upstreamProxy } from '$lib/server/services';
import type { RequestHandler } from './$types';

export const GET: RequestHandler = async ({ params, url, platform }) => {
	const recorder = sessionRecorder();
	const day = url.searchParams.get('day');
	if (
		url.searchParams.get('source') === 'service' &&
		day !== null &&
		isRecordedDay(day) &&
		!recorder.has(day, params.ticker, params.stream)
	) {
		try {
			const status = await historyDayStatus(
				{ recorder, proxy: upstreamProxy(), userAgent: config().userAgent },
				params.ticker,
				params.stream,
				day
			);
			if (!status.ready) {
				return new Response(JSON.stringify(historyPendingBody(status.pending)), {
					status: 504,
					headers: {
						'content-type': 'application/json',
						'cache-control': 'no-store',
						'retry-after': String(status.retryAfter)
					}
				});
			}
		} catch (err) {
			const status = err instanceof HistoryImportError ? err.status : 502;
			return new Response(
				JSON.stringify({ error: `The service's history: ${(err as Error).message}` }),
				{ status, headers: { 'content-type': 'application/json', 'cache-control': 'no-store' } }
			);
		}
	}
	// A slot per answer that streams: at most historyStreams.max at once, 503 + Retry-After past it.
	// The slot the fast answers took for this request (fastAnswers.ts), else one taken now.
	const release =
		reservedHistorySlot((platform as { req?: IncomingMessage } | undefined)?.req) ??
		historyStreams.acquire();
	if (!release) return historyStreams.busy('history answers');
	const answer = await backfillResponse(recorder, params.ticker, params.stream, url.searchParams);
	if (typeof answer.body === 'string') release();
	const body =
		typeof answer.body === 'string' ? answer.body : releasingStream(answer.body, release);
	return new Response(body, { status: answer.status, headers: answer.headers });
};
