/**
 * The REST request handler: User-Agent check, route resolution from the contract's route table,
 * access, query validation, quota, then the route's handler. Errors become `{"error": ...}`.
 *
 * Other parts of the service (the WebSocket hubs) register handlers for `/v2/negotiate` and
 * `/client/hubs/*` through `extraRoutes`; requests there are handed over untouched.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import {
	resolveRoute,
	validateQuery,
	type RouteParams,
	type RouteResolution
} from '../../lib/contract/routes';
import { authorize, requireUserAgent } from './requestAccess';
import { spend, type ServiceContext } from './context';
import { eodReport } from './eod';
import * as general from './general';
import { checkHistoryWindow, DOWNLOAD_PREFIX, historyDownload, historyLink } from './history';
import { research } from './researchRoute';
import { HttpError, sendError, sendJson } from './respond';
import { snapshot } from './snapshot';
import { whoamiBody } from './whoami';
import { errorText, log } from '../../lib/server/log';

/** A handler another part of the service attaches (hubs: negotiation, WebSocket paths). */
export type ExtraRouteHandler = (
	req: IncomingMessage,
	res: ServerResponse,
	url: { pathname: string; query: URLSearchParams }
) => void | Promise<void>;

export interface ExtraRoutes {
	/** Exact paths, e.g. `/v2/negotiate`. */
	exact: Map<string, ExtraRouteHandler>;
	/** Path prefixes, e.g. `/client/hubs/`. */
	prefix: Map<string, ExtraRouteHandler>;
}

function findExtra(extra: ExtraRoutes, pathname: string): ExtraRouteHandler | undefined {
	const exact = extra.exact.get(pathname);
	if (exact) return exact;
	for (const [prefix, handler] of extra.prefix) if (pathname.startsWith(prefix)) return handler;
	return undefined;
}

/**
 * Route resolution is a pure function of method and path, and clients poll the same few paths
 * every second, so resolutions are memoised. Only matches are kept: a refusal costs little to
 * recompute, and keeping refusals let keyless requests with long invented paths fill the cache
 * with their path and error text (hundreds of MB). The cache is bounded by entries and by key
 * bytes, oldest entry out first.
 */
export const RESOLVED_CACHE_MAX_ENTRIES = 4_096;
export const RESOLVED_CACHE_MAX_BYTES = 1024 * 1024;
/** Longer paths are resolved every time (no documented route comes near this). */
const RESOLVED_CACHE_MAX_KEY = 256;
const resolvedCache = new Map<string, RouteResolution>();
let resolvedCacheBytes = 0;

export function resolveCached(method: string, pathname: string): RouteResolution {
	const key = `${method} ${pathname}`;
	const hit = resolvedCache.get(key);
	if (hit) return hit;
	const resolved = resolveRoute(method, pathname);
	if (resolved.kind !== 'match' || key.length > RESOLVED_CACHE_MAX_KEY) return resolved;
	while (
		resolvedCache.size > 0 &&
		(resolvedCache.size >= RESOLVED_CACHE_MAX_ENTRIES ||
			resolvedCacheBytes + key.length > RESOLVED_CACHE_MAX_BYTES)
	) {
		const oldest = resolvedCache.keys().next().value!;
		resolvedCache.delete(oldest);
		resolvedCacheBytes -= oldest.length;
	}
	resolvedCache.set(key, resolved);
	resolvedCacheBytes += key.length;
	return resolved;
}

/** Size of the route-lookup cache (tests check its bound). */
export function resolvedCacheStats(): { entries: number; bytes: number } {
	return { entries: resolvedCache.size, bytes: resolvedCacheBytes };
}

const EMPTY_QUERY = new URLSearchParams();

/** Answers a failed request: its HttpError, else a logged 500. Never throws. */
export function fail(res: ServerResponse, err: unknown): void {
	try {
		if (res.headersSent || res.destroyed) {
			// Half an answer is out: cutting the connection is the only honest end. Not passed to
			// destroy(): an error there is emitted on `res`, which nobody listens to.
			res.destroy();
			return;
		}
		if (err instanceof HttpError) {
			sendError(res, err.status, err.message, err.headers);
			return;
		}
		log.error('service: request failed', { error: errorText(err) });
		sendError(res, 500, 'Internal server error.');
	} catch (again) {
		log.error('service: could not answer a failed request', { error: errorText(again) });
		res.destroy();
	}
}

const DEFAULT_LONG_IDLE_MS = 15 * 60_000;

/**
 * For the routes whose answer may take minutes (history link, download, EOD report): an
 * AbortSignal that fires when the client goes away before the answer is complete, and the
 * socket's idle bound raised while the answer is prepared (restored after it, since the
 * connection may carry further requests).
 */
function longAnswer(ctx: ServiceContext, req: IncomingMessage, res: ServerResponse): AbortSignal {
	const controller = new AbortController();
	const socket = req.socket;
	const usual = socket.timeout ?? 0;
	socket.setTimeout(ctx.longIdleTimeoutMs ?? DEFAULT_LONG_IDLE_MS);
	res.on('close', () => {
		if (!res.writableFinished) controller.abort();
		if (!socket.destroyed) socket.setTimeout(usual);
	});
	return controller.signal;
}

/** /whoami answers JSON only; an Accept header that rules JSON out is a bad request. */
function requireJsonAccept(req: IncomingMessage): void {
	const accept = req.headers.accept;
	if (accept === undefined || accept.trim() === '') return;
	const ok = accept.split(',').some((part) => {
		const [type, ...params] = part.trim().toLowerCase().split(';');
		const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
		if (q !== undefined && !(Number(q.slice(2)) > 0)) return false;
		return type === 'application/json' || type === 'application/*' || type === '*/*';
	});
	if (!ok)
		throw new HttpError(400, 'This resource is application/json: send Accept: application/json.');
}

/** A request path with its percent-escapes decoded; a malformed escape is the client's error. */
function decodedPath(pathname: string): string {
	if (!pathname.includes('%')) return pathname;
	try {
		return decodeURIComponent(pathname);
	} catch {
		throw new HttpError(400, 'Malformed percent-encoding in the path.');
	}
}

export function createRequestHandler(ctx: ServiceContext, extra: ExtraRoutes) {
	return function handle(req: IncomingMessage, res: ServerResponse): void {
		const raw = req.url ?? '/';
		const q = raw.indexOf('?');
		const pathname = q === -1 ? raw : raw.slice(0, q);
		const query = q === -1 ? EMPTY_QUERY : new URLSearchParams(raw.slice(q + 1));
		try {
			const hook = findExtra(extra, pathname);
			if (hook) {
				Promise.resolve(hook(req, res, { pathname, query })).catch((err: unknown) =>
					fail(res, err)
				);
				return;
			}
			if (pathname.startsWith(DOWNLOAD_PREFIX) && req.method === 'GET') {
				historyDownload(ctx, req, res, pathname, query, longAnswer(ctx, req, res)).catch(
					(err: unknown) => fail(res, err)
				);
				return;
			}
			requireUserAgent(req);
			// Routes match decoded paths, as the upstream's server decodes them (`%5ESPX` is `^SPX`).
			const resolved = resolveCached(req.method ?? 'GET', decodedPath(pathname));
			if (resolved.kind === 'not-found') throw new HttpError(404, 'Not found.');
			if (resolved.kind === 'method-not-allowed') {
				throw new HttpError(405, 'Method not allowed.', { Allow: resolved.allowed.join(', ') });
			}
			const route = resolved.route;
			// The identity resource must never be cached, errors included.
			if (route.id === 'whoami') res.setHeader('Cache-Control', 'no-store');
			const principal = authorize(req, ctx.accounts, route.access);
			if (resolved.kind === 'invalid') throw new HttpError(resolved.status, resolved.error);
			const checked = validateQuery(route, query);
			if (!checked.ok) throw new HttpError(checked.status, checked.error);
			const params: RouteParams = resolved.params;
			if (params.ticker && route.id !== 'research' && !ctx.market.hasTicker(params.ticker)) {
				throw new HttpError(400, `Unknown ticker '${params.ticker}'.`);
			}

			switch (route.id) {
				case 'whoami':
					requireJsonAccept(req);
					sendJson(res, 200, whoamiBody(principal!), { 'Cache-Control': 'no-store' });
					return;
				case 'tickers':
					general.tickers(ctx, res);
					return;
				case 'quantTickers':
					general.quantTickers(ctx, res);
					return;
				case 'categories':
					general.categories(res, pathname.split('/')[1]);
					return;
				case 'expiries':
					general.expiries(ctx, res, params.ticker!);
					return;
				case 'futuresConversion': {
					const conversion = general.futuresConversion(ctx, query);
					spend(ctx, principal!, 'api_futures_conversion');
					sendJson(res, 200, conversion);
					return;
				}
				case 'classicChain':
				case 'stateSnapshot':
				case 'orderflow':
				case 'classicMajors':
				case 'stateMajors':
				case 'classicMaxchange':
				case 'stateMaxchange': {
					spend(ctx, principal!, route.quotaPool!);
					const view =
						route.quotaPool === 'api_majors'
							? 'majors'
							: route.quotaPool === 'api_max_change'
								? 'maxchange'
								: 'chain';
					snapshot(ctx, res, view, params.ticker!, params.package!, params.category!);
					return;
				}
				case 'history': {
					checkHistoryWindow(ctx, params.date!);
					spend(ctx, principal!, 'api_history_cache');
					const p = {
						ticker: params.ticker!,
						package: params.package!,
						category: params.category!,
						date: params.date!
					};
					historyLink(ctx, req, res, p, query, longAnswer(ctx, req, res)).catch((err: unknown) =>
						fail(res, err)
					);
					return;
				}
				case 'eod':
					eodReport(ctx, res, params.ticker!, longAnswer(ctx, req, res)).catch((err: unknown) =>
						fail(res, err)
					);
					return;
				case 'research':
					research(ctx, res, principal!, params.ticker!, params.metric!, query);
					return;
				case 'negotiatePost':
				case 'negotiateGet':
				case 'negotiatePatch':
					throw new HttpError(503, 'WebSocket streaming is not enabled on this server.');
			}
		} catch (err) {
			fail(res, err);
		}
	};
}
