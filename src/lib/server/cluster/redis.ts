/**
 * The cluster's one Redis connection (GEXDECK_REDIS_URL). Commands fail fast while Redis is
 * away (a command waits for the connection at most until the next reconnect attempt fails, and
 * never past a 2 s timeout) so a request that needs the shared limits is refused with a reason
 * instead of hanging; ioredis reconnects by itself, so replicas recover when Redis comes back.
 */
import { Redis } from 'ioredis';
import { log } from '../log';

/** Redis could not be asked (down, cut off, timed out): the shared limits cannot be kept. */
export class ClusterUnavailableError extends Error {
	constructor(cause: unknown) {
		super(`Redis unreachable: ${(cause as Error)?.message ?? String(cause)}`);
		this.name = 'ClusterUnavailableError';
	}
}

export function connectRedis(url: string, name = 'gexdeck'): Redis {
	const redis = new Redis(url, {
		connectionName: name,
		// Queued while (re)connecting; flushed with an error when a reconnect attempt fails.
		enableOfflineQueue: true,
		maxRetriesPerRequest: 0,
		commandTimeout: 2_000,
		connectTimeout: 2_000,
		retryStrategy: (times) => Math.min(times * 100, 1_000)
	});
	let up = true;
	redis.on('error', (err: Error) => {
		// ioredis reports every failed reconnect: say it once per outage.
		if (up) log.warn(`cluster: Redis connection failed: ${err.message}`);
		up = false;
	});
	redis.on('ready', () => {
		if (!up) log.info('cluster: Redis connection is back');
		up = true;
	});
	return redis;
}

/** Run one Redis operation; any failure becomes a ClusterUnavailableError. */
export async function guarded<T>(op: () => Promise<T>): Promise<T> {
	try {
		return await op();
	} catch (err) {
		throw new ClusterUnavailableError(err);
	}
}

/** Whether Redis answers PING within `timeoutMs`. */
export async function redisReachable(redis: Redis, timeoutMs = 1_000): Promise<boolean> {
	let timer: NodeJS.Timeout | undefined;
	try {
		const answer = await Promise.race([
			redis.ping(),
			new Promise<never>((_, reject) => {
				timer = setTimeout(() => reject(new Error('timeout')), timeoutMs);
			})
		]);
		return answer === 'PONG';
	} catch {
		return false;
	} finally {
		clearTimeout(timer);
	}
}
