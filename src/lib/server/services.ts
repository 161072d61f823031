/**
 * The dashboard server's long-lived parts, created once per process: the quota ledger (loaded
 * from the database by the init hook) and the proxy (with its coalescer and 429 backoff), which
 * forgets the accounts it knew when the settings change; in cluster mode (GEXDECK_REDIS_URL) the
 * limits the replicas share.
 */
import { clusterLimits, type ClusterLimits } from './cluster/clusterLimits';
import { config } from './config';
import type { Database } from './db/index';
import { QuotaLedger } from './quotaLedger';
import { SharedShares } from './cluster/sharedShares';
import { MemoryShares, type ShareStore } from './usage/callShares';
import { UpstreamProxy } from './proxy';
import { onSettingsChange } from './settings';
import { upstreamTarget } from './upstream';
import { updateTap } from './updates/tap';
import { loginThrottle } from './auth';
import {
	localLoginDelays,
	SharedLoginThrottle,
	type LoginDelays
} from './cluster/sharedLoginThrottle';

let ledger: QuotaLedger | undefined;
let proxy: UpstreamProxy | undefined;
let cluster: ClusterLimits | undefined;

/** The shared limits when GEXDECK_REDIS_URL is set; undefined in a single process. */
export function sharedLimits(): ClusterLimits | undefined {
	const { redisUrl, quotaBudget } = config();
	if (redisUrl && !cluster) {
		cluster = clusterLimits(redisUrl, quotaBudget);
		cluster.replicas.start();
	}
	return cluster;
}

let delays: LoginDelays | undefined;

/** Wrong-password delays: counted in Redis in cluster mode (any replica), else in this process. */
export function loginDelays(): LoginDelays {
	if (!delays) {
		const limits = sharedLimits();
		delays = limits
			? new SharedLoginThrottle(limits.redis, loginThrottle)
			: localLoginDelays(loginThrottle);
	}
	return delays;
}

/** Clean stop: leave the replica list and close the Redis connection (no-op in one process). */
export async function stopSharedLimits(): Promise<void> {
	await cluster?.close();
}

/** Read the quota ledger from `db` (the init hook, before any request). */
export async function loadQuotaLedger(db: Database): Promise<QuotaLedger> {
	ledger = await QuotaLedger.load(db);
	return ledger;
}

export function quotaLedger(): QuotaLedger {
	if (!ledger) throw new Error('the quota ledger is used before the database was opened');
	return ledger;
}

let shares: ShareStore | undefined;

/** Each user's share of the calls: in Redis in cluster mode (every replica the same), else here. */
export function callShares(): ShareStore {
	if (!shares) {
		const limits = sharedLimits();
		shares = limits ? new SharedShares(limits.redis) : new MemoryShares();
	}
	return shares;
}

export function upstreamProxy(): UpstreamProxy {
	proxy ??= new UpstreamProxy({
		target: upstreamTarget,
		ledger: quotaLedger(),
		userAgent: config().userAgent,
		tap: updateTap(),
		cluster: sharedLimits(),
		shares: callShares()
	});
	// Whatever was learned about the old key (account, entitlements) is dropped.
	onSettingsChange(() => proxy?.forgetAccounts());
	return proxy;
}
