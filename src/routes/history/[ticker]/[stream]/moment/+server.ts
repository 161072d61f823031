/**
 * GET /history/<ticker>/<stream>/moment?day=&at=: one recorded chain as JSON
 * (server/overview/momentResponse.ts), gzip-encoded: a past day's first moment, drawn by
 * Classic without the decode worker. Behind the dashboard's gate like every route
 * (hooks.server.ts).
 */
import { momentResponse } from '$lib/server/overview/momentResponse';
import { sessionRecorder } from '$lib/server/recorder/recorderMount';
import type { RequestHandler } from './$types';

export const GET: RequestHandler = async ({ params, url }) => {
	const answer = await momentResponse(
		sessionRecorder(),
		params.ticker,
		params.stream,
		url.searchParams
	);
	return new Response(answer.body as BodyInit, { status: answer.status, headers: answer.headers });
};
