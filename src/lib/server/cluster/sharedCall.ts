/**
 * One upstream call of the proxy in a cluster: coalesced across replicas, counted against the
 * pool's budget in the shared ledger before it is sent, and its answer fed to the shared 429
 * backoff, so replicas together behave like one process (see clusterLimits.ts). Failures of
 * the shared layer become the proxy's refusals: Redis away (503), budget spent (429).
 */
import type { UpstreamResponse } from '../httpClient';
import { UpstreamUnreachableError } from '../httpClient';
import { log } from '../log';
import { refusal, type ProxyResult } from '../proxyPlan';
import type { ClusterLimits } from './clusterLimits';
import { ClusterUnavailableError } from './redis';
import { SharedCallError, type SharedOutcome } from './sharedCoalescer';

/** The pool's budget (GEXDECK_QUOTA_BUDGET) is spent for the window: nothing was sent. */
export class BudgetSpentError extends Error {
	constructor(pool: string, window: string, budget: number) {
		super(`Pool ${pool} has spent its ${window} budget of ${budget} calls (GEXDECK_QUOTA_BUDGET).`);
	}
}

export interface SharedCallPlan {
	/** Identity of the call (key and URL): identical calls share one answer. */
	key: string;
	ttlMs: number;
	timeoutMs: number;
	/** Quota pool of the route and the account it is counted for (none: not counted). */
	pool: string | null;
	account: string;
	/** The backoff's name of the pool (account|pool). */
	poolId: string;
	send: () => Promise<UpstreamResponse>;
}

function kindOf(err: unknown): string {
	if (err instanceof BudgetSpentError) return 'budget';
	if (err instanceof UpstreamUnreachableError) return 'unreachable';
	return 'error';
}

export async function sharedCall(
	cluster: ClusterLimits,
	plan: SharedCallPlan
): Promise<{ value: UpstreamResponse; outcome: SharedOutcome }> {
	const { pool, account, poolId } = plan;
	return cluster.coalescer.run(
		plan.key,
		plan.ttlMs,
		plan.timeoutMs,
		async () => {
			if (pool) {
				const reserved = await cluster.quota.reserve(account, pool);
				if (!reserved.ok) throw new BudgetSpentError(pool, reserved.window, reserved.budget);
			}
			const res = await plan.send();
			if (pool) {
				await Promise.all([
					cluster.backoff.record(poolId, res.status),
					cluster.quota.record(account, pool, res.status)
				]).catch((err: Error) => log.warn(`cluster: answer not recorded: ${err.message}`));
			}
			return res;
		},
		(r) => r.status !== 429,
		kindOf
	);
}

/** The proxy's answer for a failure of the shared layer, or undefined for any other error. */
export function sharedCallRefusal(err: unknown): ProxyResult | undefined {
	if (err instanceof ClusterUnavailableError) {
		return refusal(
			503,
			'unreachable',
			'The cluster cannot reach Redis, so the shared quota cannot be kept: try again shortly.'
		);
	}
	const budget =
		err instanceof BudgetSpentError || (err instanceof SharedCallError && err.kind === 'budget');
	if (budget) return refusal(429, 'backoff', (err as Error).message);
	if (err instanceof SharedCallError) {
		return refusal(502, 'unreachable', `Upstream unreachable: ${err.message}`);
	}
	return undefined;
}
