/**
 * GET /history/<ticker>/<stream>?day=&from=&to=&with=spot: the recorded session (or part of it)
 * of one stream as a backfill body for the decode worker. Behind the dashboard's gate like every
 * route (hooks.server.ts); see $lib/server/recorder/backfillResponse.
 */
import { backfillResponse } from '$lib/server/recorder/backfillResponse';
import { sessionRecorder } from '$lib/server/recorder/mount';
import type { RequestHandler } from './$types';

export const GET: RequestHandler = ({ params, url }) => {
	const answer = backfillResponse(
		sessionRecorder(),
		params.ticker,
		params.stream,
		url.searchParams
	);
	return new Response(answer.body as BodyInit, { status: answer.status, headers: answer.headers });
};
