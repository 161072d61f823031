/**
 * The Account page's integration tokens (the levels feed's keys, see README "Levels feed"):
 * listed with their last use, created (the token text returned once, in this form answer only)
 * and revoked. The store is the one the feed checks, so a revoke answers 401 at once.
 *
 * Each token is its maker's: a trader creates, lists and revokes their own, an admin sees every
 * token with its owner's name and may revoke any; another user's token id answers 404 like one
 * that does not exist. A viewer has none (the roles table refuses the actions).
 */
import { fail } from '@sveltejs/kit';
import { tokenStore } from '$lib/server/feed/feedMount';
import type { TokenInfo, TokenScope } from '$lib/server/tokens/tokenStore';
import { appDatabase } from '$lib/server/db/appDb';
import { IMPLICIT_OWNER, OWNER_ASKER, type Asker } from '$lib/server/alerts/store';
import { auditRequest, type RequestActor } from '$lib/server/users/audit';
import { UserStore } from '$lib/server/users/userStore';

type Event = RequestActor & { locals: { user?: { id: string; name: string; role: string } } };

/** Who asks: the signed-in user (the implicit admin without teams mode). */
const asker = (event: Event): Asker => event.locals.user ?? OWNER_ASKER;

/** The name of a token's owner, for the audit log and an admin's list. */
async function ownerName(id: string): Promise<string> {
	if (id === IMPLICIT_OWNER) return 'the single-user admin';
	return (await new UserStore(appDatabase()).byId(id))?.name ?? `user ${id}`;
}

export interface TokenRow extends TokenInfo {
	/** The owner's name; shown to an admin only (a trader sees only their own). */
	ownerName: string | null;
}

export async function tokenList(event: Event): Promise<TokenRow[]> {
	const who = asker(event);
	const list = await tokenStore().list(who);
	const names = new Map<string, string>();
	if (who.role === 'admin' && event.locals.user) {
		for (const owner of new Set(list.map((t) => t.owner))) names.set(owner, await ownerName(owner));
	}
	return list.map((t) => ({ ...t, ownerName: names.get(t.owner) ?? null }));
}

/** What a token opens, ticked on the form: the levels feed (`feed`), the MCP endpoint (`mcp`). */
export async function createToken(form: FormData, event: Event) {
	const scopes = form.getAll('scope').map(String) as TokenScope[];
	if (scopes.length === 0) {
		return fail(400, {
			message: 'Tick what the token opens: the levels feed, AI assistants (MCP), or both.'
		});
	}
	const owner = asker(event).id;
	try {
		// The store refuses a scope it does not know (a hand-made form), with the known ones.
		const { token, info } = await tokenStore().create(
			String(form.get('name') ?? ''),
			scopes,
			owner
		);
		const what = `${info.id} "${info.name}" (${info.scopes.join(', ')}) of ${await ownerName(owner)}`;
		await auditRequest(appDatabase(), event, 'token created', what);
		return {
			message: `Token "${info.name}" created. Copy it now: it is not shown again.`,
			createdToken: token
		};
	} catch (e) {
		return fail(400, { message: (e as Error).message });
	}
}

export async function revokeToken(form: FormData, event: Event) {
	const id = String(form.get('id') ?? '');
	const gone = await tokenStore().revoke(id, asker(event));
	if (!gone) return fail(404, { message: 'No such token.' });
	const what = `${gone.id} "${gone.name}" of ${await ownerName(gone.owner)}`;
	await auditRequest(appDatabase(), event, 'token revoked', what);
	return { message: 'Token revoked: it answers 401 from now on.' };
}
