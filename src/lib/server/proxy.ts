/**
 * The key-holding REST proxy behind /api. It forwards only documented routes of the contract
 * (validated parameters and query, canonical spellings), to the configured upstream only,
 * adding the key, User-Agent and Accept. It refuses locally what the key cannot be served
 * (no wasted request), shares identical GETs within the 1 s cadence, counts spending per quota
 * pool and holds a pool after a 429.
 */
import { canAccess, type AccessRule, type KeyState } from '$lib/contract/access';
import { feedStream, type Feed } from '$lib/contract/feeds';
import { classifyKey } from '$lib/contract/keys';
import type { RouteParams, RouteSpec } from '$lib/contract/routes';
import { PoolBackoff } from './backoff';
import { Coalescer, type CoalesceOutcome } from './requestCoalescer';
import { httpGet, UpstreamUnreachableError, type UpstreamResponse } from './httpClient';
import type { QuotaLedger } from './quotaLedger';
import { GEXDECK_CALLER, type ShareStore } from './usage/callShares';
import type { UpstreamTarget } from './upstream';
import type { UpdateTap } from './updates/tap';
import type { ClusterLimits } from './cluster/clusterLimits';
import { sharedCall, sharedCallRefusal } from './cluster/sharedCall';
import {
	JSON_TYPE,
	makePlan,
	planBytes,
	refusal,
	resolveApiPath,
	type Plan,
	type ProxyResult
} from './proxyPlan';

/** Why the proxy answered without (successfully) calling upstream (shared with the pages). */
export type { RefusalReason } from '$lib/contract/refusals';
export { upstreamUrl, type ProxyResult } from './proxyPlan';

export interface AccountInfo {
	_id: string;
	max_level: string | null;
	addons: string[];
	account?: { child?: boolean; suspended?: boolean };
}

export interface ProxyDeps {
	target: () => Promise<UpstreamTarget>;
	ledger: QuotaLedger;
	userAgent: string;
	backoff?: PoolBackoff;
	get?: typeof httpGet;
	/** Reuse window of identical GETs (the upstream's cadence). */
	coalesceMs?: number;
	/** Fresh snapshots of the live routes are published here (recorder, alerts); see updates/tap. */
	tap?: UpdateTap;
	/** Cluster mode: backoff, quota budget and coalescing shared with the other replicas. */
	cluster?: ClusterLimits;
	/** Who caused each pooled call, and who was answered by another's (usage/callShares.ts). */
	shares?: ShareStore;
}

/** Snapshot routes answer within about 1 s upstream; downloads and research take longer. */
const SLOW_ROUTES = new Set(['history', 'eod', 'research']);
/**
 * Past the service's own one-minute hold of a history day it is generating: its 504 then says
 * where the day stands (queue, progress, Retry-After) instead of our timeout saying nothing.
 */
const SLOW_ROUTE_TIMEOUT_MS = 90_000;
const WHOAMI_TTL_MS = 60_000;
const PLAN_MAX_ENTRIES = 2_000;
const PLAN_MAX_BYTES = 2 * 1024 * 1024;
/** Finished upstream answers held for coalescing (research answers can be large). */
const COALESCED_MAX_BYTES = 32 * 1024 * 1024;
/** A download name the browser may be given: plain characters, no path, no quoting tricks. */
const SAFE_DISPOSITION =
	/^(attachment|inline)(;\s*filename="?[A-Za-z0-9^][A-Za-z0-9^._-]{0,127}"?)?$/i;

/** The routes a non-streaming account polls every second: what the session is made of. */
const SNAPSHOT_ROUTES = new Set(['classicChain', 'stateSnapshot', 'orderflow']);

/** Which key a route is sent with. */
function keyKindFor(access: AccessRule): 'none' | 'custom' | 'research' {
	if (access.kind === 'public') return 'none';
	return access.kind === 'research' ? 'research' : 'custom';
}

/** Human words for the requirement of a locked route. */
export function requirementOf(access: AccessRule): string {
	switch (access.kind) {
		case 'package':
			return `${access.level[0].toUpperCase()}${access.level.slice(1)} package`;
		case 'quant':
			return 'Quant subscription';
		case 'research':
			return 'Research add-on and a Research key';
		case 'paid':
			return 'any paid subscription';
		default:
			return 'an API key';
	}
}

export class UpstreamProxy {
	readonly backoff: PoolBackoff;
	readonly coalescer: Coalescer<UpstreamResponse>;
	private readonly get: typeof httpGet;
	private readonly accounts = new Map<
		string,
		{ at: number; info: Promise<AccountInfo | number> }
	>();

	constructor(private readonly deps: ProxyDeps) {
		this.backoff = deps.backoff ?? new PoolBackoff();
		this.coalescer = new Coalescer<UpstreamResponse>({
			ttlMs: deps.coalesceMs ?? 1000,
			maxBytes: COALESCED_MAX_BYTES,
			sizeOf: (r) => r.body.length + 1024
		});
		this.get = deps.get ?? httpGet;
	}

	/**
	 * Resolve a browser path (relative to /api, e.g. `SPX/classic/full`, `tickers/quant`) to a
	 * documented route: first under `/v2`, then at the root for the root-only routes.
	 */
	static resolve(method: string, path: string) {
		return resolveApiPath(method, path);
	}

	/** The account behind `key` (whoami, cached a minute), or the upstream status refusing it. */
	async account(target: UpstreamTarget, key: string): Promise<AccountInfo | number> {
		const cacheKey = `${target.baseUrl}|${key}`;
		const hit = this.accounts.get(cacheKey);
		if (hit && Date.now() - hit.at < WHOAMI_TTL_MS) return hit.info;
		const info = this.get(new URL(`${target.baseUrl}/whoami`), this.headers(key), 5_000).then(
			(res): AccountInfo | number => {
				if (res.status !== 200) return res.status;
				return JSON.parse(res.body.toString('utf8')) as AccountInfo;
			}
		);
		this.accounts.set(cacheKey, { at: Date.now(), info });
		// Failures are not remembered: the next request asks again.
		info.then(
			(v) => typeof v === 'number' && this.accounts.delete(cacheKey),
			() => this.accounts.delete(cacheKey)
		);
		return info;
	}

	/** Forget cached accounts (after keys or the demo account change). */
	forgetAccounts(): void {
		this.accounts.clear();
	}

	private headers(key: string | undefined): Record<string, string> {
		const h: Record<string, string> = {
			'user-agent': this.deps.userAgent,
			accept: 'application/json'
		};
		if (key) h.authorization = `Bearer ${key}`;
		return h;
	}

	/** Decide whether `route` can be served with the configured keys; undefined = go ahead. */
	async refuseLocked(
		target: UpstreamTarget,
		route: RouteSpec
	): Promise<{ refusal?: ProxyResult; key?: string; accountId?: string }> {
		const kind = keyKindFor(route.access);
		if (kind === 'none') return {};
		const key = kind === 'research' ? target.researchKey : target.customKey;
		if (!key) {
			return {
				refusal: refusal(
					403,
					'no-key',
					kind === 'research'
						? 'No Research key is configured: enter one on the Account page (research routes accept only a Research key).'
						: 'No API key is configured: set GEXDECK_API_KEY or enter a key on the Account page.',
					{ route: route.id, requires: requirementOf(route.access) }
				)
			};
		}
		const info = classifyKey(key);
		const keyState: KeyState = info ? info.kind : 'malformed';
		let account: AccountInfo | number;
		try {
			account = await this.account(target, key);
		} catch (err) {
			return {
				refusal: refusal(502, 'unreachable', `Upstream unreachable: ${(err as Error).message}`)
			};
		}
		if (typeof account === 'number' && account >= 500) {
			// A failing upstream says nothing about the key.
			return {
				refusal: refusal(
					502,
					'unreachable',
					`The upstream is failing: whoami answered ${account}; try again shortly.`
				)
			};
		}
		if (typeof account === 'number') {
			return {
				refusal: refusal(
					account === 429 ? 429 : 401,
					account === 429 ? 'backoff' : 'key-rejected',
					account === 429
						? 'The upstream is rate limiting this account.'
						: `The upstream rejected the configured ${kind} key (whoami answered ${account}).`
				)
			};
		}
		const decision = canAccess(route, keyState, account);
		if (!decision.ok) {
			return {
				refusal: refusal(decision.status, 'locked', decision.error, {
					route: route.id,
					requires: requirementOf(route.access),
					level: account.max_level
				})
			};
		}
		return { key, accountId: account._id };
	}

	private readonly plans = new Map<string, Plan>();
	private planBytes = 0;

	/**
	 * Route resolution and validation of a path + query, memoised: it is deterministic, and the
	 * hot path (the same few live routes every second) should not re-validate each time. Only
	 * successes are kept (a refusal costs little to recompute and anyone can send endless
	 * distinct invalid paths), capped by count and by bytes, oldest dropped first.
	 */
	private plan(path: string, query: URLSearchParams): Plan {
		const key = `${path}?${query.toString()}`;
		const hit = this.plans.get(key);
		if (hit) return hit;
		const plan = makePlan(path, query);
		if ('refusal' in plan) return plan;
		this.plans.set(key, plan);
		this.planBytes += planBytes(key);
		for (const old of this.plans.keys()) {
			if (this.plans.size <= PLAN_MAX_ENTRIES && this.planBytes <= PLAN_MAX_BYTES) break;
			this.plans.delete(old);
			this.planBytes -= planBytes(old);
		}
		return plan;
	}

	/** Plans currently memoised (count and approximate bytes), for tests and diagnostics. */
	get planCache(): { entries: number; bytes: number } {
		return { entries: this.plans.size, bytes: this.planBytes };
	}

	/**
	 * Handle one request to `/api/<path>?<query>`; `caller` is who asked (usage/callShares.ts:
	 * a user, or the dashboard itself when omitted), for each user's share of the calls.
	 */
	async handle(
		method: string,
		path: string,
		query: URLSearchParams,
		caller: string = GEXDECK_CALLER
	): Promise<ProxyResult> {
		if (method !== 'GET' && method !== 'HEAD') {
			return refusal(405, 'method', 'The proxy forwards only GET requests.');
		}
		const plan = this.plan(path, query);
		if ('refusal' in plan) return plan.refusal;
		const { route } = plan;

		const target = await this.deps.target();
		const access = await this.refuseLocked(target, route);
		if (access.refusal) return access.refusal;

		const pool = route.quotaPool;
		const poolId = poolKey(access.accountId, pool ?? '');
		const cluster = this.deps.cluster;
		if (pool) {
			let admitted: Awaited<ReturnType<PoolBackoff['admit']>>;
			try {
				admitted = cluster ? await cluster.backoff.admit(poolId) : this.backoff.admit(poolId);
			} catch (err) {
				return sharedCallRefusal(err) ?? refusal(502, 'unreachable', String(err));
			}
			if (!admitted.ok) {
				const seconds = Math.max(1, Math.ceil((admitted.retryAt - Date.now()) / 1000));
				const res = refusal(
					429,
					'backoff',
					`Pool ${pool} is rate limited upstream; gexdeck holds requests for ${seconds} s.`,
					{ pool, retryAt: new Date(admitted.retryAt).toISOString() }
				);
				res.headers['retry-after'] = String(seconds);
				return res;
			}
		}

		const url = plan.url(target);
		const coalesceKey = `${access.key ?? ''}|${url.href}`;
		const send = () => this.send(url, access.key, route, access.accountId);
		let result: { value: UpstreamResponse; outcome: CoalesceOutcome };
		try {
			result = await this.coalescer.run(
				coalesceKey,
				cluster ? () => this.sendShared(cluster, coalesceKey, route, access, send) : send,
				(r) => r.status !== 429
			);
		} catch (err) {
			if (pool && cluster) await cluster.backoff.abandonProbe(poolId).catch(() => undefined);
			else if (pool) this.backoff.abandonProbe(poolId);
			const shared = sharedCallRefusal(err);
			if (shared) return shared;
			const message = err instanceof UpstreamUnreachableError ? err.message : String(err);
			return refusal(502, 'unreachable', `Upstream unreachable: ${message}`);
		}
		const outcome = this.clusterOutcomes.get(result.value) ?? result.outcome;
		if (outcome === 'miss') this.publishSnapshot(route, plan.params, result.value);
		if (pool && result.value.status !== 429) {
			// One call upstream is its causer's; the requests it also answered are 'shared'.
			this.deps.shares
				?.add(access.accountId ?? 'unknown', pool, caller, outcome === 'miss' ? 'calls' : 'shared')
				// Redis away: the split misses this one; the ledger (the account's total) has it.
				.catch(() => undefined);
		}
		return this.toResult(result.value, outcome, route, access.key);
	}

	/** How the cluster served an answer another replica fetched ('shared' or 'hit'). */
	private readonly clusterOutcomes = new WeakMap<UpstreamResponse, CoalesceOutcome>();

	/** One call through the cluster's shared coalescer, budget and backoff (cluster/sharedCall.ts). */
	private async sendShared(
		cluster: ClusterLimits,
		key: string,
		route: RouteSpec,
		access: { accountId?: string },
		send: () => Promise<UpstreamResponse>
	): Promise<UpstreamResponse> {
		const { value, outcome } = await sharedCall(cluster, {
			key,
			ttlMs: this.deps.coalesceMs ?? 1000,
			timeoutMs: SLOW_ROUTES.has(route.id) ? SLOW_ROUTE_TIMEOUT_MS : 5_000,
			pool: route.quotaPool,
			account: access.accountId ?? 'unknown',
			poolId: poolKey(access.accountId, route.quotaPool ?? ''),
			send
		});
		if (outcome !== 'miss') this.clusterOutcomes.set(value, outcome);
		return value;
	}

	/** One upstream call of a live snapshot route = one update on the tap (not each sharer). */
	private publishSnapshot(route: RouteSpec, params: RouteParams, res: UpstreamResponse): void {
		if (!this.deps.tap || res.status !== 200 || !SNAPSHOT_ROUTES.has(route.id)) return;
		if (!params.ticker || !params.package || !params.category) return;
		this.deps.tap.publish({
			source: 'snapshot',
			ticker: params.ticker,
			stream: feedStream(params as Feed),
			receivedAt: Date.now(),
			json: res.body.toString('utf8')
		});
	}

	private async send(
		url: URL,
		key: string | undefined,
		route: RouteSpec,
		accountId: string | undefined
	): Promise<UpstreamResponse> {
		const res = await this.get(
			url,
			this.headers(key),
			SLOW_ROUTES.has(route.id) ? SLOW_ROUTE_TIMEOUT_MS : 5_000
		);
		const pool = route.quotaPool;
		if (pool) {
			this.backoff.record(poolKey(accountId, pool), res.status);
			this.deps.ledger.record(accountId ?? 'unknown', pool, res.status);
		}
		return res;
	}

	private toResult(
		res: UpstreamResponse,
		outcome: CoalesceOutcome,
		route: RouteSpec,
		key: string | undefined
	): ProxyResult {
		// Defence in depth: an upstream that echoed the key (in the body, a passed header or a
		// redirect's Location) must not leak it to the browser.
		if (
			key &&
			(res.body.includes(key) || Object.values(res.headers).some((v) => v.includes(key)))
		) {
			return refusal(502, 'unreachable', 'The upstream response contained the API key; withheld.');
		}
		const headers: Record<string, string> = {
			'content-type': res.contentType ?? 'application/octet-stream',
			'cache-control': 'no-store',
			'x-gexdeck-route': route.id,
			'x-gexdeck-coalesced': outcome
		};
		if (route.quotaPool) headers['x-gexdeck-pool'] = route.quotaPool;
		const disposition = res.headers['content-disposition']?.trim();
		if (disposition && SAFE_DISPOSITION.test(disposition)) {
			headers['content-disposition'] = disposition;
		}
		if (res.headers['retry-after']) headers['retry-after'] = res.headers['retry-after'];
		// A history redirect points at a pre-signed download elsewhere: hand it over as data,
		// never as a redirect the browser would follow with our origin's credentials.
		if (res.status >= 300 && res.status < 400 && res.headers.location) {
			return {
				status: 200,
				headers: { ...headers, 'content-type': JSON_TYPE },
				body: JSON.stringify({ url: res.headers.location })
			};
		}
		if (res.status >= 500 && !res.contentType?.startsWith('application/json')) {
			// A gateway's HTML error page would reach the browser as the answer; say what it was.
			return refusal(
				res.status,
				'upstream-error',
				`The upstream answered ${res.status} without an error message; try again shortly.`
			);
		}
		return { status: res.status, headers, body: res.body };
	}
}

function poolKey(accountId: string | undefined, pool: string): string {
	return `${accountId ?? 'unknown'}|${pool}`;
}
