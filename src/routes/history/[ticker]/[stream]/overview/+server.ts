/**
 * GET /history/<ticker>/<stream>/overview?day=&metric=: one recorded day of a chain stream as its
 * day overview (server/overview/overviewResponse.ts), gzip-encoded. Behind the dashboard's gate
 * like every route (hooks.server.ts).
 */
import { overviewResponse } from '$lib/server/overview/overviewResponse';
import { sessionRecorder } from '$lib/server/recorder/recorderMount';
import type { RequestHandler } from './$types';

export const GET: RequestHandler = ({ params, url }) => {
	const answer = overviewResponse(
		sessionRecorder(),
		params.ticker,
		params.stream,
		url.searchParams
	);
	return new Response(answer.body as BodyInit, { status: answer.status, headers: answer.headers });
};
