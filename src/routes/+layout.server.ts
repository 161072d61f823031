import type { LayoutServerLoad } from './$types';
import { config } from '$lib/server/config';
import { knownRefusals, streamAccess } from './streamAccess.server';

/** A route of each view that may be locked for a tier: the menu marks the locked ones. */
const VIEW_ROUTES = {
	classic: 'SPX/classic/gex_full',
	state: 'SPX/state/gex_full',
	orderflow: 'SPX/orderflow/orderflow',
	research: 'research/SPX/iv_mid'
} as const;

async function lockedViews(): Promise<Partial<Record<keyof typeof VIEW_ROUTES, string>>> {
	const refused = await knownRefusals(Object.values(VIEW_ROUTES));
	const out: Partial<Record<keyof typeof VIEW_ROUTES, string>> = {};
	for (const [view, route] of Object.entries(VIEW_ROUTES)) {
		const r = refused[route];
		if (r)
			out[view as keyof typeof VIEW_ROUTES] = r.requires ? `Requires ${r.requires}` : r.message;
	}
	return out;
}

export const load = (async ({ locals }) => ({
	csrf: locals.csrf,
	passwordRequired: locals.passwordRequired,
	authenticated: locals.authenticated,
	// The menu's Admin item is an admin's only (the implicit admin on loopback included).
	admin: locals.authenticated && locals.user?.role === 'admin',
	// The embedded service is a simulated market: outside market hours it replays a past session,
	// which the status badges call a replay, never live (contract/freshness.ts).
	simulatedMarket: config().upstream === undefined,
	// Views this account's tier lacks, marked in the menu before the click (issue 25 item 11).
	lockedViews: locals.authenticated || !locals.passwordRequired ? await lockedViews() : {},
	// Whether live pages may stream; asked only of a signed-in viewer (whoami is cached).
	streamAccess:
		locals.authenticated || !locals.passwordRequired
			? await streamAccess()
			: { ok: false, reason: 'not signed in' }
})) satisfies LayoutServerLoad;
