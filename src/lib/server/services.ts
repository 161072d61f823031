/**
 * The dashboard server's long-lived parts, created once per process: the quota ledger and the
 * proxy (with its coalescer and 429 backoff), which forgets the accounts it knew when the
 * settings change; in cluster mode (GEXDECK_REDIS_URL) the limits the replicas share.
 */
import { clusterLimits, type ClusterLimits } from './cluster/clusterLimits';
import { config } from './config';
import { QuotaLedger } from './quotaLedger';
import { UpstreamProxy } from './proxy';
import { onSettingsChange } from './settings';
import { upstreamTarget } from './upstream';
import { updateTap } from './updates/tap';

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

/** Clean stop: leave the replica list and close the Redis connection (no-op in one process). */
export async function stopSharedLimits(): Promise<void> {
	await cluster?.close();
}

export function quotaLedger(): QuotaLedger {
	ledger ??= QuotaLedger.inDataDir(config().dataDir);
	return ledger;
}

export function upstreamProxy(): UpstreamProxy {
	proxy ??= new UpstreamProxy({
		target: upstreamTarget,
		ledger: quotaLedger(),
		userAgent: config().userAgent,
		tap: updateTap(),
		cluster: sharedLimits()
	});
	// Whatever was learned about the old key (account, entitlements) is dropped.
	onSettingsChange(() => proxy?.forgetAccounts());
	return proxy;
}
