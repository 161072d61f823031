/**
 * The `/feed/*` entry on the dashboard's node:http server (before SvelteKit, like the /api fast
 * path). The request gate runs first and keeps everything but the session: loopback-only without
 * a password, the Host allowlist, Origin. The session is replaced by an integration token, which
 * the feed ALWAYS requires, in every mode (a logged-in browser cookie opens nothing here).
 * Then the per-token rate limit, then the levels from what the dashboard holds.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { bookmapCsv, levelsCsv, thinkScript } from '../../levels/formats';
import { tradingViewString } from '../../levels/pasteString';
import { config } from '../config';
import { errorText, log } from '../log';
import { checkNodeRequest, clientAddressOf } from '../requestGate';
import { sendApiAnswer } from '../securityHeaders';
import { presentedToken } from '../tokens/presented';
import type { RateLimiter } from '../tokens/rateLimit';
import type { TokenStore } from '../tokens/tokenStore';
import type { FeedClient } from '../feeds';
import type { ProxyResult } from '../proxy';
import type { FuturesBasis } from './futuresBasis';
import { levelsAnswer } from './levelsAnswer';
import { parseLevelsRequest } from './levelsRequest';
import type { LevelsStore } from './levelsStore';
import { userCaller } from '../usage/callShares';

export { CLOSED_FETCH_MS } from './levelsAnswer';

export interface FeedDeps {
	tokens: TokenStore;
	limiter: RateLimiter;
	store: LevelsStore;
	/** The feed holder's `levels` client (feeds wanted on demand, let go when idle). */
	client: FeedClient;
	basis: FuturesBasis;
	/** GET of a feed's route through the proxy: the one fetch of a closed market's last value. */
	/** One upstream GET of `route`, counted for `caller` (usage/callShares.ts). */
	fetchOnce: (route: string, caller?: string) => Promise<ProxyResult>;
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
	sendApiAnswer(res, config().secureCookies, status, type, head ? undefined : body, extra);
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
		authorised(req, res, url, d, address, head).catch((err: unknown) => {
			log.error('feed request failed', { error: errorText(err) });
			refuse(res, 500, 'Internal error; see the dashboard log.', head);
		});
	} catch (err) {
		log.error('feed request failed', { error: errorText(err) });
		refuse(res, 500, 'Internal error; see the dashboard log.', head);
	}
	return true;
}

/** The token's check (a database look-up), its rate limit, then the answer. */
async function authorised(
	req: IncomingMessage,
	res: ServerResponse,
	url: URL,
	d: FeedDeps,
	address: string | undefined,
	head: boolean
): Promise<void> {
	const auth = await d.tokens.check(presentedToken(req, url.searchParams), 'feed', address);
	if (!auth.ok) {
		log.warn('feed: token refused', { url: req.url, from: address, why: auth.error });
		refuse(res, 401, auth.error, head, { 'www-authenticate': 'Bearer realm="gexdeck feed"' });
		return;
	}
	const rate = d.limiter.take(auth.token.id);
	if (!rate.ok) {
		refuse(res, 429, `Too many requests for token "${auth.token.name}".`, head, {
			'retry-after': String(rate.retryAfterSeconds)
		});
		return;
	}
	const parsed = parseLevelsRequest(url.pathname, url.searchParams);
	if (!parsed.ok) {
		refuse(res, parsed.status, parsed.error, head);
		return;
	}
	// What the answer fetches upstream counts as the token owner's (the Account page's shares).
	await answer(res, parsed.value, d, head, userCaller(auth.token.owner));
}

async function answer(
	res: ServerResponse,
	r: import('./levelsRequest').LevelsRequest,
	d: FeedDeps,
	head: boolean,
	caller: string
): Promise<void> {
	const a = await levelsAnswer(r, d, caller);
	if (!a.ok) {
		return refuse(
			res,
			a.status,
			a.error,
			head,
			a.retryAfter !== undefined ? { 'retry-after': String(a.retryAfter) } : {}
		);
	}
	const { doc } = a;
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
