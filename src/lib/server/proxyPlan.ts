/**
 * The proxy's request plans (see proxy.ts): a browser path + query resolved to a documented
 * route, its parameters and query validated, and the only upstream URL it may produce; and the
 * refusal answer the proxy gives without calling upstream.
 */
import {
	resolveRoute,
	routePath,
	validateQuery,
	type RouteParams,
	type RouteSpec
} from '$lib/contract/routes';
import type { RefusalReason } from '$lib/contract/refusals';
import type { UpstreamTarget } from './upstream';

export interface ProxyResult {
	status: number;
	headers: Record<string, string>;
	body: Uint8Array | string;
}

export const JSON_TYPE = 'application/json; charset=utf-8';

export function refusal(
	status: number,
	reason: RefusalReason,
	error: string,
	extra: object = {}
): ProxyResult {
	return {
		status,
		headers: {
			'content-type': JSON_TYPE,
			'cache-control': 'no-store',
			'x-gexdeck-refused': reason
		},
		body: JSON.stringify({ error, reason, ...extra })
	};
}

/**
 * Resolve a browser path (relative to /api, e.g. `SPX/classic/full`, `tickers/quant`) to a
 * documented route: first under `/v2`, then at the root for the root-only routes.
 */
export function resolveApiPath(method: string, path: string) {
	const v2 = resolveRoute(method, `/v2/${path}`);
	if (v2.kind !== 'not-found') return v2;
	return resolveRoute(method, `/${path}`);
}

/** A memoised plan: its key twice (string + map slot) and the plan's own objects. */
export function planBytes(key: string): number {
	return key.length * 2 + 512;
}

export type Plan =
	| { refusal: ProxyResult }
	| { route: RouteSpec; params: RouteParams; url: (target: UpstreamTarget) => URL };

export function makePlan(path: string, query: URLSearchParams): Plan {
	const resolved = resolveApiPath('GET', path);
	if (resolved.kind === 'not-found' || resolved.kind === 'method-not-allowed') {
		return { refusal: refusal(404, 'off-list', `Not a documented upstream route: /${path}`) };
	}
	if (resolved.kind === 'invalid') return { refusal: refusal(400, 'invalid', resolved.error) };
	const { route, params } = resolved;
	const q = validateQuery(route, query);
	if (!q.ok) return { refusal: refusal(400, 'invalid', q.error) };
	if (route.id === 'negotiateGet') {
		return {
			refusal: refusal(404, 'off-list', 'Negotiation is done by the stream relay, not the proxy.')
		};
	}
	try {
		// The route's own path must build from the validated parameters; if it cannot, the
		// request is invalid, never an internal error.
		upstreamUrl({ rootUrl: 'http://upstream.invalid' } as UpstreamTarget, route, params, query);
	} catch {
		return { refusal: refusal(400, 'invalid', `Invalid parameters for /${path}.`) };
	}
	const urls = new Map<string, URL>();
	return {
		route,
		params,
		url: (target) => {
			let url = urls.get(target.rootUrl);
			if (!url) {
				url = upstreamUrl(target, route, params, query);
				urls.set(target.rootUrl, url);
			}
			return url;
		}
	};
}

/** The only upstream URLs the proxy can produce: the target's origin + a contract route path. */
export function upstreamUrl(
	target: UpstreamTarget,
	route: RouteSpec,
	params: RouteParams,
	query: URLSearchParams
): URL {
	// Canonical category spelling, so `full` and `gex_full` share one coalesced call.
	const { rawCategory: _raw, ...canonical } = params;
	const url = new URL(target.rootUrl + routePath(route, canonical));
	const q = new URLSearchParams(query);
	q.sort();
	url.search = q.toString();
	return url;
}
