/**
 * GET /history/<ticker>: the days this server recorded for the ticker and their streams (the
 * day pickers list them). Behind the dashboard's gate (hooks.server.ts).
 */
import { recordedDaysResponse } from '$lib/server/recorder/backfillResponse';
import { sessionRecorder } from '$lib/server/recorder/recorderMount';
import type { RequestHandler } from './$types';

export const GET: RequestHandler = ({ params }) => {
	const answer = recordedDaysResponse(sessionRecorder(), params.ticker);
	return new Response(answer.body as BodyInit, { status: answer.status, headers: answer.headers });
};
