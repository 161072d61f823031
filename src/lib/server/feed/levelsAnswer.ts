/**
 * The levels document of one request from what the dashboard holds, or the refusal the feed
 * answers with (status + reason): one function shared by `/feed/v1/levels/<T>` and the MCP
 * `levels` tool, so both say exactly the same thing. Wanting the feed through the holder's
 * `levels` client is the only upstream effect (held once, however many ask).
 */
import { feedGroup, feedOf, feedRoute, type Feed } from '../../contract/feeds';
import type { CanonicalCategory } from '../../contract/categories';
import { buildLevels, STALE_AFTER_S, type LevelsDocument } from '../../levels/document';
import { HOLDER_DECIDING, type FeedClient } from '../feeds';
import type { FeedDeps } from './feedHandler';
import type { LevelsRequest } from './levelsRequest';
import { config } from '../config';

/** Retry-After while the first value of a newly held ticker is on its way. */
export const FIRST_VALUE_RETRY_S = 2;
/** Market closed, nothing held yet: one fetch of the last session's value per feed this often. */
export const CLOSED_FETCH_MS = 5 * 60_000;

const lastClosedFetch = new Map<string, number>();
/** The client's status, reused for STATUS_REUSE_MS: it walks every held feed and the relay. */
const STATUS_REUSE_MS = 250;
let statusCache:
	{ at: number; client: FeedClient; value: ReturnType<FeedClient['status']> } | undefined;

function clientStatus(client: FeedClient, fresh: boolean): ReturnType<FeedClient['status']> {
	const now = Date.now();
	if (
		fresh ||
		!statusCache ||
		statusCache.client !== client ||
		now - statusCache.at > STATUS_REUSE_MS
	) {
		statusCache = { at: now, client, value: client.status() };
	}
	return statusCache.value;
}

export type LevelsAnswer =
	| { ok: true; doc: LevelsDocument }
	| { ok: false; status: number; error: string; retryAfter?: number };

/** The HTTP status of a feed the holder does not hold, from its reason. */
export function refusalStatus(reason: string): 403 | 409 | 503 {
	if (reason.startsWith('budget exhausted')) return 409;
	if (reason.startsWith('not entitled') || reason.startsWith('key rejected')) return 403;
	return 503;
}

type LevelsDeps = Pick<FeedDeps, 'client' | 'store' | 'basis' | 'fetchOnce'>;

export async function levelsAnswer(
	r: LevelsRequest,
	d: LevelsDeps,
	caller?: string
): Promise<LevelsAnswer> {
	const feed: Feed = feedOf(r.ticker, 'classic', r.category as CanonicalCategory);
	const group = feedGroup(feed);
	const known = d.client.wants(group);
	d.client.want([feed]);
	// A feed just wanted is not in a status taken before: ask afresh then.
	const state = clientStatus(d.client, !known).feeds.find((f) => f.group === group);
	// Before the holder has decided how to hold, the feed is as good as held: wait for its value.
	const reason = state && !state.held && state.reason !== HOLDER_DECIDING ? state.reason : null;
	const latest = d.store.get(group);
	if (!latest) {
		if (reason === 'market closed') {
			// The holder polls only in market hours: fetch the last session's value once.
			const key = feedRoute(feed);
			if (Date.now() - (lastClosedFetch.get(key) ?? 0) > CLOSED_FETCH_MS) {
				lastClosedFetch.set(key, Date.now());
				void d.fetchOnce(key, caller).catch(() => undefined);
			}
		}
		const status = reason ? refusalStatus(reason) : 503;
		const error = reason
			? `${r.ticker} ${r.category}: ${reason}`
			: `holding ${r.ticker} ${r.category} started; waiting for its first value`;
		return status === 503
			? { ok: false, status, error, retryAfter: FIRST_VALUE_RETRY_S }
			: { ok: false, status, error };
	}
	let future: Parameters<typeof buildLevels>[0]['future'];
	if (r.future) {
		const basis = await d.basis.get(r.future.of, r.future.root, caller);
		if (!basis.ok) return { ok: false, status: basis.status, error: basis.reason, retryAfter: 60 };
		future = { root: r.future.root, conversion: basis.conversion, fetchedAt: basis.fetchedAt };
	}
	const doc = buildLevels({
		chain: latest.chain,
		category: r.category,
		receivedAt: latest.receivedAt,
		now: Date.now(),
		source: latest.source,
		staleAfterSeconds: STALE_AFTER_S,
		notUpdating: reason,
		session: { simulated: config().upstream === undefined },
		strikes: r.strikes,
		future
	});
	return { ok: true, doc };
}
