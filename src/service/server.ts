/**
 * startService: the embedded GEXBot-compatible service on plain node:http.
 *
 * The REST routes are answered by src/service/http; the WebSocket hubs attach themselves
 * through the returned `server` (its 'upgrade' event) and `routes` (handlers for
 * `/v2/negotiate` and `/client/hubs/*`), so one process and one port serve both, with the same
 * accounts, quota ledger and market clock.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import { AccountRegistry } from './accounts/registry';
import { parseAccountsFile, type AccountsFile } from './accounts/file';
import type { ServiceContext } from './http/context';
import { createRequestHandler, type ExtraRouteHandler, type ExtraRoutes } from './http/router';
import { UrlSigner } from './http/signing';
import { QuotaLedger } from './quota/accountQuotaLedger';
import type { ClockMode } from './market/clock';
import { createMarket, type Market, type MarketOptions } from './simulatedMarket';
import type { MarketSource } from './source';

export interface StartServiceOptions {
	/** TCP port; 0 (default) picks a free one. */
	port?: number;
	/** Interface to bind; default 127.0.0.1. */
	host?: string;
	/** Quota counters, outbox and EOD reports live here; default `data/service`. */
	dataDir?: string;
	/** Accounts file path; without it (and without `accounts`) the demo accounts are used. */
	accountsFile?: string;
	/** Accounts given directly (tests; a plain document is validated like a file); wins over accountsFile. */
	accounts?: AccountRegistry | AccountsFile;
	/** A ready market to serve (not started or stopped by the service). */
	market?: MarketSource;
	/** Simulated clock: `session` (default) or `real`. */
	clock?: ClockMode;
	/** Simulated start instant (ISO string or Date); the clock then runs at `speed`. */
	start?: string | Date;
	/** Simulated seconds per wall second (with `start`). */
	speed?: number;
	/** Market seed (default 1). */
	seed?: number;
	/** Restrict the simulated universe (tests, benchmarks); default every served ticker. */
	tickers?: string[];
	/** Further createMarket options (e.g. `wall`, `historyWaitMs`). */
	marketOptions?: Partial<MarketOptions>;
	/** Origin written into history download links; default: the request's Host. */
	publicOrigin?: string;
	/** Delay between a quota change and its write to disk (ms); default 200. */
	quotaFlushMs?: number;
	/** Timeouts and caps of the http server (defaults: SERVICE_LIMITS). */
	limits?: Partial<ServiceLimits>;
}

/**
 * What one peer may hold of the server. Every bound is on by default: a peer that sends headers
 * slowly, never finishes its request, idles on a socket or opens connections without end is cut,
 * so no client can hold the service's memory or sockets.
 */
export interface ServiceLimits {
	/** Time to receive the request headers (ms). */
	headersTimeoutMs: number;
	/** Time to receive the whole request, body included (ms); the answer is not bounded by it. */
	requestTimeoutMs: number;
	/** A socket with no traffic either way for this long is closed (ms). */
	idleTimeoutMs: number;
	/**
	 * The idle bound while a history link, download or EOD report is being prepared (ms): a day's
	 * generation can take minutes before the first byte (see ServiceContext.longIdleTimeoutMs).
	 */
	longIdleTimeoutMs: number;
	/** Open TCP connections at once (REST, negotiation and hub WebSockets together). */
	maxConnections: number;
}

export const SERVICE_LIMITS: ServiceLimits = {
	headersTimeoutMs: 15_000,
	requestTimeoutMs: 30_000,
	idleTimeoutMs: 60_000,
	longIdleTimeoutMs: 15 * 60_000,
	maxConnections: 1024
};

export interface RunningService {
	/** Base URL including `/v2`, e.g. `http://127.0.0.1:40123/v2`. */
	url: string;
	/** Origin without the version prefix, e.g. `http://127.0.0.1:40123`. */
	rootUrl: string;
	port: number;
	host: string;
	market: MarketSource;
	accounts: AccountRegistry;
	quota: QuotaLedger;
	context: ServiceContext;
	/** The node:http server (attach 'upgrade' listeners for WebSockets here). */
	server: Server;
	/** Hooks for other parts of the service, checked before the REST routes. */
	routes: ExtraRoutes;
	/** Register a handler for one exact path (e.g. `/v2/negotiate`), any method. */
	addRoute(path: string, handler: ExtraRouteHandler): void;
	/** Register a handler for every path starting with `prefix` (e.g. `/client/hubs/`). */
	addPrefixRoute(prefix: string, handler: ExtraRouteHandler): void;
	/** Functions run by close() before the server stops (e.g. the hubs closing sockets). */
	onClose(fn: () => void | Promise<void>): void;
	close(): Promise<void>;
}

/**
 * The market clock read at most once per wall millisecond. Every counted request asks for the
 * time (quota windows), and reading the session clock costs an Intl conversion; within one
 * wall millisecond the answer cannot move a quota window in any meaningful way.
 */
function simulatedNowPerMillisecond(
	market: MarketSource,
	/** The wall source the market's clock runs on (tests inject one that jumps). */
	wallNow: () => number
): () => Date {
	let wallMs = -1;
	let value = market.now();
	return () => {
		const wall = wallNow();
		if (wall !== wallMs) {
			wallMs = wall;
			value = market.now();
		}
		return value;
	};
}

export async function startService(options: StartServiceOptions = {}): Promise<RunningService> {
	const host = options.host ?? '127.0.0.1';
	const limits: ServiceLimits = { ...SERVICE_LIMITS, ...options.limits };
	const dataDir = resolve(options.dataDir ?? 'data/service');
	const accounts =
		options.accounts instanceof AccountRegistry
			? options.accounts
			: options.accounts
				? new AccountRegistry(parseAccountsFile(options.accounts))
				: AccountRegistry.load(options.accountsFile);

	let market = options.market;
	let owned: Market | undefined;
	if (!market) {
		const start = options.start === undefined ? undefined : new Date(options.start);
		if (start && Number.isNaN(start.getTime()))
			throw new RangeError(`invalid start: ${options.start}`);
		owned = await createMarket({
			seed: options.seed ?? 1,
			clock: options.clock ?? 'session',
			start,
			speed: options.speed,
			tickers: options.tickers,
			dataDir: join(dataDir, 'market'),
			...options.marketOptions
		});
		await owned.start();
		market = owned;
	}
	const source: MarketSource = market;
	const quota = new QuotaLedger({
		dataDir,
		now: simulatedNowPerMillisecond(source, options.marketOptions?.wall ?? Date.now),
		flushDelayMs: options.quotaFlushMs
	});
	const context: ServiceContext = {
		market: source,
		accounts,
		quota,
		signer: new UrlSigner(),
		dataDir,
		publicOrigin: options.publicOrigin,
		longIdleTimeoutMs: limits.longIdleTimeoutMs
	};
	const routes: ExtraRoutes = { exact: new Map(), prefix: new Map() };
	const server = createServer(
		// Node checks the header and request timeouts on this interval (default 30 s, which
		// would let a slow client hold a socket twice as long as the bound says).
		{ connectionsCheckingInterval: Math.max(50, Math.min(5_000, limits.headersTimeoutMs / 3)) },
		createRequestHandler(context, routes)
	);
	// requestTimeout bounds receiving the request only; a long history generation answers after
	// it and is bounded by the idle timeout, raised for those routes (router.ts).
	server.headersTimeout = limits.headersTimeoutMs;
	server.requestTimeout = limits.requestTimeoutMs;
	server.timeout = limits.idleTimeoutMs;
	server.maxConnections = limits.maxConnections;

	await new Promise<void>((resolveListen, reject) => {
		server.once('error', reject);
		server.listen(options.port ?? 0, host, () => {
			server.off('error', reject);
			resolveListen();
		});
	});
	const port = (server.address() as AddressInfo).port;
	const urlHost = host.includes(':') ? `[${host}]` : host === '0.0.0.0' ? '127.0.0.1' : host;
	const rootUrl = `http://${urlHost}:${port}`;
	const closers: (() => void | Promise<void>)[] = [];
	let closing: Promise<void> | undefined;

	return {
		url: `${rootUrl}/v2`,
		rootUrl,
		port,
		host,
		market: source,
		accounts,
		quota,
		context,
		server,
		routes,
		addRoute: (path, handler) => void routes.exact.set(path, handler),
		addPrefixRoute: (prefix, handler) => void routes.prefix.set(prefix, handler),
		onClose: (fn) => void closers.push(fn),
		close() {
			closing ??= (async () => {
				for (const fn of closers) await fn();
				const stopped = new Promise<void>((r) => server.close(() => r()));
				server.closeAllConnections();
				await stopped;
				await quota.close();
				owned?.stop();
			})();
			return closing;
		}
	};
}
