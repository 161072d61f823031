/**
 * The Account page's integration tokens (the levels feed's keys, see README "Levels feed"):
 * listed with their last use, created (the token text returned once, in this form answer only)
 * and revoked. The store is the one the feed checks, so a revoke answers 401 at once.
 */
import { fail } from '@sveltejs/kit';
import { tokenStore } from '$lib/server/feed/feedMount';
import type { TokenInfo } from '$lib/server/tokens/tokenStore';

export function tokenList(): TokenInfo[] {
	return tokenStore().list();
}

export function createToken(form: FormData) {
	try {
		const { token, info } = tokenStore().create(String(form.get('name') ?? ''), ['feed']);
		return {
			message: `Token "${info.name}" created. Copy it now: it is not shown again.`,
			createdToken: token
		};
	} catch (e) {
		return fail(400, { message: (e as Error).message });
	}
}

export function revokeToken(form: FormData) {
	const id = String(form.get('id') ?? '');
	if (!tokenStore().revoke(id)) return fail(400, { message: 'No such token.' });
	return { message: 'Token revoked: it answers 401 from now on.' };
}
