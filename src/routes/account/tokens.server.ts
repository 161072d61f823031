/**
 * The Account page's integration tokens (the levels feed's keys, see README "Levels feed"):
 * listed with their last use, created (the token text returned once, in this form answer only)
 * and revoked. The store is the one the feed checks, so a revoke answers 401 at once.
 */
import { fail } from '@sveltejs/kit';
import { tokenStore } from '$lib/server/feed/feedMount';
import type { TokenInfo, TokenScope } from '$lib/server/tokens/tokenStore';
import { appDatabase } from '$lib/server/db/appDb';
import { auditRequest, type RequestActor } from '$lib/server/users/audit';

export function tokenList(): Promise<TokenInfo[]> {
	return tokenStore().list();
}

/** What a token opens, ticked on the form: the levels feed (`feed`), the MCP endpoint (`mcp`). */
export async function createToken(form: FormData, event: RequestActor) {
	const scopes = form.getAll('scope').map(String) as TokenScope[];
	if (scopes.length === 0) {
		return fail(400, {
			message: 'Tick what the token opens: the levels feed, AI assistants (MCP), or both.'
		});
	}
	try {
		// The store refuses a scope it does not know (a hand-made form), with the known ones.
		const { token, info } = await tokenStore().create(String(form.get('name') ?? ''), scopes);
		const what = `${info.id} "${info.name}" (${info.scopes.join(', ')})`;
		await auditRequest(appDatabase(), event, 'token created', what);
		return {
			message: `Token "${info.name}" created. Copy it now: it is not shown again.`,
			createdToken: token
		};
	} catch (e) {
		return fail(400, { message: (e as Error).message });
	}
}

export async function revokeToken(form: FormData, event: RequestActor) {
	const id = String(form.get('id') ?? '');
	if (!(await tokenStore().revoke(id))) return fail(400, { message: 'No such token.' });
	await auditRequest(appDatabase(), event, 'token revoked', id);
	return { message: 'Token revoked: it answers 401 from now on.' };
}
