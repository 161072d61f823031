import type { LayoutServerLoad } from './$types';
import { streamAccess } from './streamAccess.server';

export const load = (async ({ locals }) => ({
	csrf: locals.csrf,
	passwordRequired: locals.passwordRequired,
	authenticated: locals.authenticated,
	// Whether live pages may stream; asked only of a signed-in viewer (whoami is cached).
	streamAccess:
		locals.authenticated || !locals.passwordRequired
			? await streamAccess()
			: { ok: false, reason: 'not signed in' }
})) satisfies LayoutServerLoad;
