import { error } from '@sveltejs/kit';
import { createSession, SESSION_COOKIE, SESSION_TTL_MS } from '$lib/server/auth';
import { config } from '$lib/server/config';
import { appDatabase } from '$lib/server/db/appDb';
import { errorText, log } from '$lib/server/log';
import { audit } from '$lib/server/users/audit';
import { finishSignIn, OIDC_STATE_COOKIE, OidcRefusal } from '$lib/server/users/oidcClient';
import { oidcUser } from '$lib/server/users/oidcSignIn';
import { persistSession } from '$lib/server/users/sessionStore';
import type { PageServerLoad } from './$types';

/**
 * The provider's redirect back. A verified sign-in of a user with a mapped role gets a session
 * and a page that moves on to `next` by itself: the session cookie is SameSite=Strict, which a
 * browser withholds on a redirect chain begun by another site, so the move is made from this
 * page (a same-site navigation). A refused one gets a 403 page saying why and who can help.
 */
export const load = (async ({ url, cookies, getClientAddress }) => {
	const cfg = config();
	if (!cfg.oidc) error(404, 'Sign-in with an identity provider is not set up.');
	const db = appDatabase();
	let address: string | null;
	try {
		address = getClientAddress();
	} catch {
		address = null;
	}
	const cookieState = cookies.get(OIDC_STATE_COOKIE);
	cookies.delete(OIDC_STATE_COOKIE, { path: '/login/oidc' });
	try {
		const verified = await finishSignIn(url.search, cookieState);
		const user = await oidcUser(db, cfg.oidc, verified, address);
		const who = { id: user.id, name: user.name, role: user.role };
		const token = createSession(Date.now(), who);
		await persistSession(db, token, who, address);
		await audit(db, {
			actor: user.name,
			address,
			action: 'sign-in',
			detail: `${user.role} through ${cfg.oidc.name}`
		});
		cookies.set(SESSION_COOKIE, token, {
			path: '/',
			httpOnly: true,
			sameSite: 'strict',
			secure: cfg.secureCookies,
			maxAge: SESSION_TTL_MS / 1000
		});
		return { next: verified.next, name: user.name, role: user.role };
	} catch (err) {
		if (!(err instanceof OidcRefusal)) {
			log.error('OIDC sign-in failed', { error: errorText(err) });
			error(502, `The sign-in through ${cfg.oidc.name} failed; see the dashboard log.`);
		}
		await audit(db, {
			actor: 'anonymous',
			address,
			action: 'failed sign-in',
			detail: `through ${cfg.oidc.name}: ${err.reason}`
		});
		error(403, err.message);
	}
}) satisfies PageServerLoad;
