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
import { resolve } from 'node:path';
import { AccountRegistry } from './accounts/registry';
import type { AccountsFile } from './accounts/file';
import type { ServiceContext } from './http/context';
import { createRequestHandler, type ExtraRouteHandler, type ExtraRoutes } from './http/router';
import { UrlSigner } from './http/signing';
import { QuotaLedger } from './quota/ledger';
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
	/** Accounts given directly (tests); wins over accountsFile. */
	accounts?: AccountRegistry | AccountsFile;
	/** A market to serve; when absent one is created with createMarket(marketOptions). */
	market?: MarketSource;
	/** Options for createMarket (clock, start, speed, seed, tickers, dataDir...). */
	marketOptions?: Record<string, unknown>;
	/** Origin written into history download links; default: the request's Host. */
	publicOrigin?: string;
	/** Delay between a quota change and its write to disk (ms); default 200. */
	quotaFlushMs?: number;
}

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

interface ClosableMarket {
	close?: () => void | Promise<void>;
	stop?: () => void | Promise<void>;
}

export async function startService(options: StartServiceOptions = {}): Promise<RunningService> {
	const host = options.host ?? '127.0.0.1';
	const dataDir = resolve(options.dataDir ?? 'data/service');
	const accounts =
		options.accounts instanceof AccountRegistry
			? options.accounts
			: options.accounts
				? new AccountRegistry(options.accounts)
				: AccountRegistry.load(options.accountsFile);

	let market = options.market;
	const ownsMarket = !market;
	if (!market) {
		const { createMarket } = await import('./market/index');
		market = (await createMarket({ dataDir, ...options.marketOptions })) as MarketSource;
	}
	const quota = new QuotaLedger({
		dataDir,
		now: () => market.now(),
		flushDelayMs: options.quotaFlushMs
	});
	const context: ServiceContext = {
		market,
		accounts,
		quota,
		signer: new UrlSigner(),
		dataDir,
		publicOrigin: options.publicOrigin
	};
	const routes: ExtraRoutes = { exact: new Map(), prefix: new Map() };
	const server = createServer(createRequestHandler(context, routes));
	// Long history generations must not be cut by Node's default request timeout.
	server.requestTimeout = 0;
	server.headersTimeout = 60_000;

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
		market,
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
				if (ownsMarket) {
					const m = market as ClosableMarket;
					await (m.close ?? m.stop)?.call(m);
				}
			})();
			return closing;
		}
	};
}
