/**
 * GET /readyz: whether the dashboard can serve (readiness): 200 when ready, else 503, with the
 * per-check verdicts of $lib/server/health (the database answers a query; in cluster mode also
 * whether this replica reaches Redis). Public (see requestGate.ts): without a session when
 * a password is set, the relay's state is left out, and no call writes a file (the disk probe is
 * cached).
 */
import { json } from '@sveltejs/kit';
import { config } from '$lib/server/config';
import {
	cachedDiskWritable,
	cachedReachability,
	databaseAnswers,
	readiness
} from '$lib/server/health';
import { appDatabase } from '$lib/server/db/appDb';
import { redisReachable } from '$lib/server/cluster/redis';
import { isStopping } from '$lib/server/lifecycle';
import { sharedLimits } from '$lib/server/services';
import { streamRelay } from '$lib/server/stream/relayMount';
import { upstreamTarget } from '$lib/server/upstream';
import type { RequestHandler } from './$types';

const upstreamReachable = cachedReachability(async () => (await upstreamTarget()).baseUrl);
let disk: (() => boolean) | undefined;

export const GET: RequestHandler = async ({ locals }) => {
	disk ??= cachedDiskWritable(config().dataDir);
	const limits = sharedLimits();
	const result = await readiness({
		stopping: isStopping,
		upstreamReachable,
		relayState: () => streamRelay().state,
		redisReachable: limits && (() => redisReachable(limits.redis)),
		databaseReachable: () => databaseAnswers(appDatabase()),
		dataDir: config().dataDir,
		disk,
		showRelay: !locals.passwordRequired || locals.authenticated
	});
	return json(result, {
		status: result.status === 'ready' ? 200 : 503,
		headers: { 'cache-control': 'no-store' }
	});
};
