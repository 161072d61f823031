/**
 * Whether this dashboard's account may stream (Quant tier: `api_websocket_access` permission and
 * max_level quant), asked server-side from the cached whoami. Pages subscribe to the relay only
 * when it may; otherwise they poll REST and the badge gives this reason.
 */
import { levelIncludes } from '$lib/contract/subscriptionLevels';
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
