/**
 * The `/feed/*` entry on the dashboard's node:http server (before SvelteKit, like the /api fast
 * path). The request gate runs first and keeps everything but the session: loopback-only without
 * a password, the Host allowlist, Origin. The session is replaced by an integration token, which
 * the feed ALWAYS requires, in every mode (a logged-in browser cookie opens nothing here).
 * Then the per-token rate limit, then the levels from what the dashboard holds.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { feedGroup, feedOf, feedRoute, type Feed } from '../../contract/feeds';
import type { CanonicalCategory } from '../../contract/categories';
import { buildLevels, STALE_AFTER_S } from '../../levels/document';
import { bookmapCsv, levelsCsv, thinkScript } from '../../levels/formats';
import { tradingViewString } from '../../levels/pasteString';
import { config } from '../config';
import { errorText, log } from '../log';
import { checkNodeRequest, clientAddressOf } from '../requestGate';
import { API_CSP, securityHeaders } from '../securityHeaders';
import { presentedToken } from '../tokens/presented';
import type { RateLimiter } from '../tokens/rateLimit';
import type { TokenStore } from '../tokens/tokenStore';
import type { FeedClient } from '../feeds';
import type { ProxyResult } from '../proxy';
import type { FuturesBasis } from './futuresBasis';
import { parseLevelsRequest } from './levelsRequest';
import type { LevelsStore } from './levelsStore';

/** Retry-After while the first value of a newly held ticker is on its way. */
const FIRST_VALUE_RETRY_S = 2;
/** Market closed, nothing held yet: one fetch of the last session's value per feed this often. */
export const CLOSED_FETCH_MS = 5 * 60_000;

export interface FeedDeps {
	tokens: TokenStore;
	limiter: RateLimiter;
	store: LevelsStore;
	/** The feed holder's `levels` client (feeds wanted on demand, let go when idle). */
	client: FeedClient;
	basis: FuturesBasis;
	/** GET of a feed's route through the proxy: the one fetch of a closed market's last value. */
	fetchOnce: (route: string) => Promise<ProxyResult>;
}

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

const TYPES = {
	json: 'application/json; charset=utf-8',
	csv: 'text/csv; charset=utf-8',
	bookmap: 'text/csv; charset=utf-8',
	tradingview: 'text/plain; charset=utf-8',
	thinkscript: 'text/plain; charset=utf-8'
};

function send(
	res: ServerResponse,
	status: number,
	body: string,
	type: string,
	head: boolean,
	extra: Record<string, string> = {}
): void {
	if (res.headersSent || res.destroyed) return;
	res.writeHead(status, {
		...securityHeaders(config().secureCookies),
		'content-security-policy': API_CSP,
		'content-type': type,
		'cache-control': 'no-store',
		...extra
	});
	res.end(head ? undefined : body);
}

function refuse(
	res: ServerResponse,
	status: number,
	error: string,
	head: boolean,
	extra: Record<string, string> = {}
) {
	send(res, status, JSON.stringify({ error }), TYPES.json, head, extra);
}

/** Answers a /feed request (returns true), or returns false for any other path. */
export function handleFeed(
	req: IncomingMessage,
	res: ServerResponse,
	deps: () => FeedDeps
): boolean {
	const rawUrl = req.url ?? '/';
	if (!rawUrl.startsWith('/feed/') && rawUrl !== '/feed') return false;
	const method = req.method ?? 'GET';
	const head = method === 'HEAD';
	try {
		const verdict = checkNodeRequest(req, '/feed');
		// 401 is the session check: the token replaces it below.
		if (!verdict.ok && verdict.status !== 401) {
			refuse(res, verdict.status, verdict.error, head);
			return true;
		}
		if (method !== 'GET' && !head) {
			refuse(res, 405, 'The feed answers GET only.', head, { allow: 'GET, HEAD' });
			return true;
		}
		const url = new URL(rawUrl, 'http://feed.invalid');
		const d = deps();
		const address = clientAddressOf(req);
		const auth = d.tokens.check(presentedToken(req, url.searchParams), 'feed', address);
		if (!auth.ok) {
			log.warn('feed: token refused', { url: rawUrl, from: address, why: auth.error });
			refuse(res, 401, auth.error, head, { 'www-authenticate': 'Bearer realm="gexdeck feed"' });
			return true;
		}
		const rate = d.limiter.take(auth.token.id);
		if (!rate.ok) {
			refuse(res, 429, `Too many requests for token "${auth.token.name}".`, head, {
				'retry-after': String(rate.retryAfterSeconds)
			});
			return true;
		}
		const parsed = parseLevelsRequest(url.pathname, url.searchParams);
		if (!parsed.ok) {
			refuse(res, parsed.status, parsed.error, head);
			return true;
		}
		answer(res, parsed.value, d, head).catch((err: unknown) => {
			log.error('feed request failed', { error: errorText(err) });
			refuse(res, 500, 'Internal error; see the dashboard log.', head);
		});
	} catch (err) {
		log.error('feed request failed', { error: errorText(err) });
		refuse(res, 500, 'Internal error; see the dashboard log.', head);
	}
	return true;
}

/** The HTTP status of a feed the holder does not hold, from its reason. */
function refusalStatus(reason: string): 403 | 409 | 503 {
	if (reason.startsWith('budget exhausted')) return 409;
	if (reason.startsWith('not entitled') || reason.startsWith('key rejected')) return 403;
	return 503;
}

async function answer(
	res: ServerResponse,
	r: import('./levelsRequest').LevelsRequest,
	d: FeedDeps,
	head: boolean
): Promise<void> {
	const feed: Feed = feedOf(r.ticker, 'classic', r.category as CanonicalCategory);
	const group = feedGroup(feed);
	const known = d.client.wants(group);
	d.client.want([feed]);
	// A feed just wanted is not in a status taken before: ask afresh then.
	const state = clientStatus(d.client, !known).feeds.find((f) => f.group === group);
	const reason = state && !state.held ? state.reason : null;
	const latest = d.store.get(group);
	if (!latest) {
		if (reason === 'market closed') {
			// The holder polls only in market hours: fetch the last session's value once.
			const key = feedRoute(feed);
			if (Date.now() - (lastClosedFetch.get(key) ?? 0) > CLOSED_FETCH_MS) {
				lastClosedFetch.set(key, Date.now());
				void d.fetchOnce(key).catch(() => undefined);
			}
		}
		const status = reason ? refusalStatus(reason) : 503;
		const why = reason
			? `${r.ticker} ${r.category}: ${reason}`
			: `holding ${r.ticker} ${r.category} started; waiting for its first value`;
		return refuse(
			res,
			status,
			why,
			head,
			status === 503 ? { 'retry-after': String(FIRST_VALUE_RETRY_S) } : {}
		);
	}
	let future: Parameters<typeof buildLevels>[0]['future'];
	if (r.future) {
		const basis = await d.basis.get(r.future.of, r.future.root);
		if (!basis.ok) return refuse(res, basis.status, basis.reason, head, { 'retry-after': '60' });
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
		strikes: r.strikes,
		future
	});
	const body =
		r.format === 'json'
			? JSON.stringify(doc)
			: r.format === 'csv'
				? levelsCsv(doc)
				: r.format === 'bookmap'
					? bookmapCsv(doc, r.symbol)
					: r.format === 'tradingview'
						? tradingViewString(doc) + '\n'
						: thinkScript(doc);
	send(res, 200, body, TYPES[r.format], head);
}
