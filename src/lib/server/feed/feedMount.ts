/**
 * The levels feed's process-wide parts: the token store on the data folder, the rate limiter,
 * the latest-chain store on the update tap, the holdings polling through the proxy, the futures
 * basis cache; and the /feed entry on the http.Server. SvelteKit-only (reads the config): call
 * mountFeed() once from the init hook.
 */
import { isRegularTradingHours } from '../../contract/newYorkTime';
import { config } from '../config';
import { interceptRequests, onHttpServer } from '../httpServer';
import { upstreamProxy } from '../services';
import { RateLimiter } from '../tokens/rateLimit';
import { TokenStore } from '../tokens/tokenStore';
import { updateTap } from '../updates/tap';
import { handleFeed, type FeedDeps } from './feedHandler';
import { FuturesBasis } from './futuresBasis';
import { LevelsHoldings } from './levelsHolding';
import { LevelsStore } from './levelsStore';

let deps: FeedDeps | undefined;
let tokens: TokenStore | undefined;

/** The process's token store (the Account page and the feed share it). */
export function tokenStore(): TokenStore {
	tokens ??= TokenStore.inDataDir(config().dataDir);
	return tokens;
}

export function feedDeps(): FeedDeps {
	if (deps) return deps;
	const isMarketOpen = () => isRegularTradingHours(Date.now());
	deps = {
		tokens: tokenStore(),
		limiter: new RateLimiter(),
		store: new LevelsStore(updateTap()),
		holdings: new LevelsHoldings({
			poll: (path) => upstreamProxy().handle('GET', path, new URLSearchParams()),
			isMarketOpen,
			pollMs: config().feedPollMs
		}),
		basis: new FuturesBasis((path, query) => upstreamProxy().handle('GET', path, query)),
		isMarketOpen
	};
	const flush = setInterval(() => tokenStore().flush(), 10_000);
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
