import type { LayoutServerLoad } from './$types';
import { config } from '$lib/server/config';
import { streamAccess } from './streamAccess.server';

export const load = (async ({ locals }) => ({
	csrf: locals.csrf,
	passwordRequired: locals.passwordRequired,
	authenticated: locals.authenticated,
	// The embedded service is a simulated market: outside market hours it replays a past session,
	// which the status badges call a replay, never live (contract/freshness.ts).
	simulatedMarket: config().upstream === undefined,
	// Whether live pages may stream; asked only of a signed-in viewer (whoami is cached).
	streamAccess:
		locals.authenticated || !locals.passwordRequired
			? await streamAccess()
			: { ok: false, reason: 'not signed in' }
})) satisfies LayoutServerLoad;
