/**
 * The shared limits of a cluster (GEXDECK_REDIS_URL set), as the proxy uses them: the shared
 * 429 backoff, the shared quota ledger with its budget, and the cross-replica coalescer, on one
 * Redis connection, beside the list of live replicas (replicas.ts). Without GEXDECK_REDIS_URL there is none and the proxy keeps its
 * process-local backoff and coalescer (single process, nothing changes).
 */
import type { Redis } from 'ioredis';
import type { QuotaBudget } from './budget';
import { connectRedis } from './redis';
import { ReplicaRegistry } from './replicas';
import { SharedBackoff, type SharedBackoffOptions } from './sharedBackoff';
import { SharedCoalescer } from './sharedCoalescer';
import { SharedQuota } from './sharedQuota';

export interface ClusterLimits {
	redis: Redis;
	backoff: SharedBackoff;
	quota: SharedQuota;
	coalescer: SharedCoalescer;
	/** This replica's card in the cluster's list (beats once started). */
	replicas: ReplicaRegistry;
	/** Leave the list and close the connection (a clean stop). */
	close(): Promise<void>;
}

export function clusterLimits(
	redisOrUrl: Redis | string,
	budget: QuotaBudget,
	options: { backoff?: SharedBackoffOptions; prefix?: string } = {}
): ClusterLimits {
	const redis = typeof redisOrUrl === 'string' ? connectRedis(redisOrUrl) : redisOrUrl;
	const prefix = options.prefix ?? 'gexdeck';
	const replicas = new ReplicaRegistry(redis, `${prefix}:replicas`);
	return {
		redis,
		backoff: new SharedBackoff(redis, { prefix: `${prefix}:backoff`, ...options.backoff }),
		quota: new SharedQuota(redis, budget, undefined, `${prefix}:quota`),
		coalescer: new SharedCoalescer(redis, `${prefix}:coalesce`),
		replicas,
		async close() {
			await replicas.leave().catch(() => undefined);
			redis.disconnect();
		}
	};
}
