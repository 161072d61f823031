/**
 * GET /readyz: whether the dashboard can serve (readiness): 200 when ready, else 503, with the
 * per-check verdicts of $lib/server/health. Public (see requestGate.ts).
 */
import { json } from '@sveltejs/kit';
import { config } from '$lib/server/config';
import { cachedReachability, readiness } from '$lib/server/health';
import { isStopping } from '$lib/server/lifecycle';
import { streamRelay } from '$lib/server/stream/relayMount';
import { upstreamTarget } from '$lib/server/upstream';
import type { RequestHandler } from './$types';

const upstreamReachable = cachedReachability(async () => (await upstreamTarget()).baseUrl);

export const GET: RequestHandler = async () => {
	const result = await readiness({
		stopping: isStopping,
		upstreamReachable,
		relayState: () => streamRelay().state,
		dataDir: config().dataDir
	});
	return json(result, {
		status: result.status === 'ready' ? 200 : 503,
		headers: { 'cache-control': 'no-store' }
	});
};
