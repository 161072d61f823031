/**
 * What this dashboard's account may fetch, decided server-side from the cached whoami before a
 * page asks: whether it may stream (Quant tier: `api_websocket_access` permission and max_level
 * quant; pages subscribe to the relay only when it may, otherwise they poll REST and the badge
 * gives this reason), and which of a page's REST routes the proxy would refuse as locked or
 * keyless (the page shows the refusal without fetching it).
 */
import type { RouteError } from '$lib/cache/routeFetch';
import { levelIncludes } from '$lib/contract/subscriptionLevels';
import { UpstreamProxy } from '$lib/server/proxy';
import { upstreamProxy } from '$lib/server/services';
import { upstreamTarget } from '$lib/server/upstream';
import type { StreamAccess } from '$lib/live/streamFeed.svelte';

export async function streamAccess(): Promise<StreamAccess> {
	try {
		const target = await upstreamTarget();
		if (!target.customKey) return { ok: false, reason: 'no API key configured' };
		const account = await upstreamProxy().account(target, target.customKey);
		if (typeof account === 'number') {
			return { ok: false, reason: `the account could not be checked (whoami ${account})` };
		}
		const permissions = (account as { permissions?: unknown }).permissions;
		if (!Array.isArray(permissions) || !permissions.includes('api_websocket_access')) {
			return { ok: false, reason: 'the account has no WebSocket access' };
		}
		if (!levelIncludes(account.max_level, 'quant')) {
			return { ok: false, reason: 'streaming needs the Quant tier' };
		}
		return { ok: true, reason: '' };
	} catch (err) {
		return { ok: false, reason: `upstream unreachable (${(err as Error).message})` };
	}
}

/**
 * The refusals the /api proxy would answer for `routes` (paths under /api, e.g.
 * `SPX/state/gex_full`), by route, when they are final for this account: locked (the package is
 * not in the subscription) or no key configured. The same decision as the proxy's
 * (`refuseLocked`), so the page shows the very message a request would have got. A route whose
 * access cannot be decided now (upstream unreachable, whoami failing, an invalid path) is left
 * out: the page asks, and the proxy answers.
 */
export async function knownRefusals(
	routes: readonly string[]
): Promise<Record<string, RouteError>> {
	const refused: Record<string, RouteError> = {};
	try {
		const target = await upstreamTarget();
		for (const path of routes) {
			const resolved = UpstreamProxy.resolve('GET', path);
			if (resolved.kind !== 'match') continue;
			const { refusal } = await upstreamProxy().refuseLocked(target, resolved.route);
			if (!refusal) continue;
			const body = JSON.parse(String(refusal.body)) as {
				error?: string;
				reason?: string;
				requires?: string;
			};
			if (body.reason !== 'locked' && body.reason !== 'no-key') continue;
			refused[path] = {
				status: refusal.status,
				message: body.error ?? `HTTP ${refusal.status}`,
				reason: body.reason,
				requires: body.requires
			};
		}
	} catch {
		// Undecided: the page fetches and shows what the proxy answers.
	}
	return refused;
}
