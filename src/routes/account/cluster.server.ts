/**
 * The Account page's cluster panel (cluster mode only, GEXDECK_REDIS_URL): the live replicas,
 * which one is serving this page, which one holds the upstream slot (since when, the last
 * failover), and what the cluster together spent per quota pool (the
 * shared ledger in Redis) against GEXDECK_QUOTA_BUDGET. Redis unreachable: the panel says so.
 */
import { QUOTA_POOLS } from '$lib/contract/routes';
import type { ReplicaCard } from '$lib/server/cluster/replicas';
import { config } from '$lib/server/config';
import type { PoolSpend } from '$lib/server/quotaLedger';
import { sharedLimits } from '$lib/server/services';
import type { SlotInfo } from '$lib/server/cluster/slotLease';
import { clusterSlotInfo } from '$lib/server/stream/relayMount';
import { recorderRunsHere } from '$lib/server/recorder/recorderMount';
import { alertsEvaluateHere } from '$lib/server/alerts/alertsMount';

export interface ClusterStatus {
	/** This replica's id. */
	self: string;
	replicas: ReplicaCard[];
	/** The cluster's spend per pool in the current windows, with the pool's budget. */
	pools: { pool: string; spend: PoolSpend; daily: number | null; monthly: number | null }[];
	/** Who holds the upstream WebSocket slot, since when, and the last failover. */
	slot: SlotInfo;
	/** The once-per-cluster jobs running on this replica (the slot holder's). */
	jobsHere: { recorder: boolean; alerts: boolean };
	/** Set when Redis could not be read. */
	error: string | null;
}

export async function clusterStatus(accountId: string | null): Promise<ClusterStatus | null> {
	const limits = sharedLimits();
	if (!limits) return null;
	const self = limits.replicas.id;
	try {
		const [replicas, slot, spends] = await Promise.all([
			limits.replicas.list(),
			clusterSlotInfo() ?? {},
			Promise.all(QUOTA_POOLS.map((pool) => limits.quota.usage(accountId ?? 'unknown', pool)))
		]);
		const budget = config().quotaBudget;
		return {
			self,
			jobsHere: { recorder: recorderRunsHere(), alerts: alertsEvaluateHere() },
			replicas,
			slot,
			pools: QUOTA_POOLS.map((pool, i) => ({
				pool,
				spend: spends[i],
				daily: budget[pool]?.daily ?? null,
				monthly: budget[pool]?.monthly ?? null
			})),
			error: null
		};
	} catch (err) {
		return {
			self,
			replicas: [],
			slot: {},
			pools: [],
			jobsHere: { recorder: recorderRunsHere(), alerts: alertsEvaluateHere() },
			error: (err as Error).message
		};
	}
}
