/**
 * The levels feed's process-wide parts: the token store on the data folder, the rate limiter,
 * the feed holder's `levels` client (feeds held on demand, let go after IDLE_MS without a
 * request) and the latest chains it brings, the futures basis cache; and the /feed entry on the
 * http.Server. SvelteKit-only (reads the config): call mountFeed() once from the init hook.
 */
import { appDatabase } from '../db/appDb';
import { feedHolder } from '../feeds/feedsMount';
import { interceptRequests, onHttpServer } from '../httpServer';
import { errorText, log } from '../log';
import { upstreamProxy } from '../services';
import { INTEGRATIONS_CALLER } from '../usage/callShares';
import { RateLimiter } from '../tokens/rateLimit';
import { TokenStore } from '../tokens/tokenStore';
import { handleFeed, type FeedDeps } from './feedHandler';
import { FuturesBasis } from './futuresBasis';
import { LevelsStore } from './levelsStore';

/** A feed no platform asked for in this long is let go (its membership or poll freed). */
export const IDLE_MS = 5 * 60_000;

let deps: FeedDeps | undefined;
let tokens: TokenStore | undefined;

/** The process's token store (the Account page, the feed and MCP share it). */
export function tokenStore(): TokenStore {
	tokens ??= new TokenStore(appDatabase());
	return tokens;
}

export function feedDeps(): FeedDeps {
	if (deps) return deps;
	const client = feedHolder().client('levels', { idleMs: IDLE_MS });
	deps = {
		tokens: tokenStore(),
		limiter: new RateLimiter(),
		store: new LevelsStore((listener) => client.subscribe(listener)),
		client,
		// What the feed fetches for a token's request counts as the token owner's, else as the
		// integrations' (callShares.ts).
		basis: new FuturesBasis((path, query, caller) =>
			upstreamProxy().handle('GET', path, query, caller ?? INTEGRATIONS_CALLER)
		),
		fetchOnce: (route, caller) =>
			upstreamProxy().handle('GET', route, new URLSearchParams(), caller ?? INTEGRATIONS_CALLER)
	};
	const flush = setInterval(() => {
		tokenStore()
			.flush()
			.catch((err: unknown) => log.error('tokens: last use not saved', { error: errorText(err) }));
	}, 10_000);
	flush.unref?.();
	return deps;
}

let mounted = false;

export function mountFeed(): void {
	if (mounted) return;
	mounted = true;
	feedDeps();
	onHttpServer((server) => interceptRequests(server, (req, res) => handleFeed(req, res, feedDeps)));
}
