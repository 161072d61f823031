/**
 * One GET of an upstream route through the dashboard's /api proxy, with the answer sorted into
 * data or a RouteError the pages explain (the proxy's refusal reason and what it requires, a
 * 429's Retry-After, a network failure). Shared by the polled LiveRoute and the on-demand
 * OnDemandRoute, so both read refusals the same way.
 */
import type { Failure } from '$lib/contract/outcome';
import { isRefusalReason, type RefusalReason } from '$lib/contract/refusals';

/** Why a route has no fresh data: the proxy refused, upstream failed, or the network did. */
export interface RouteError {
	status: number;
	message: string;
	/** The proxy's refusal reason, if it refused; `offline` when no answer came at all. */
	reason: RefusalReason | 'offline' | undefined;
	requires: string | undefined;
}

export type RouteAnswer =
	{ ok: true; body: unknown } | (Failure<RouteError> & { retryAfterMs: number | undefined });

/** Fetches `/api/<route>`; undefined when `signal` aborted it (a newer fetch took over). */
export async function fetchRoute(
	route: string,
	signal: AbortSignal
): Promise<RouteAnswer | undefined> {
	try {
		const res = await fetch(`/api/${route}`, { signal, headers: { accept: 'application/json' } });
		const body: unknown = await res.json().catch(() => ({ error: `HTTP ${res.status}` }));
		if (signal.aborted) return undefined;
		if (res.ok) return { ok: true, body };
		const b = body as { error?: string; reason?: string; requires?: string };
		const ra = Number(res.headers.get('retry-after'));
		return {
			ok: false,
			error: {
				status: res.status,
				message: b.error ?? `HTTP ${res.status}`,
				reason: isRefusalReason(b.reason) ? b.reason : undefined,
				requires: b.requires
			},
			retryAfterMs: res.status === 429 && ra > 0 ? ra * 1000 : undefined
		};
	} catch (err) {
		if (signal.aborted) return undefined;
		return { ok: false, error: networkError(err), retryAfterMs: undefined };
	}
}

/** The error of a fetch that failed without an answer (offline, connection refused). */
export function networkError(err: unknown): RouteError {
	return {
		status: 0,
		message: `Network error: ${(err as Error).message}`,
		reason: 'offline',
		requires: undefined
	};
}

/** A RouteError in one line for a place with no status line (a watchlist row, a picker). */
export function describeRouteError(e: RouteError): string {
	return e.requires ? `${e.message} Requires: ${e.requires}.` : e.message;
}
