import { error, redirect } from '@sveltejs/kit';
import { safeNext } from '$lib/server/auth';
import { config } from '$lib/server/config';
import { beginSignIn, FLOW_TTL_MS, OIDC_STATE_COOKIE } from '$lib/server/users/oidcClient';
import type { RequestHandler } from './$types';

/**
 * "Sign in with <provider>": a new authorization code flow (PKCE, state, nonce: oidcClient.ts).
 * The browser keeps the state in a Lax cookie for the provider's redirect back; `next` is kept
 * on the server and may only be a path of this dashboard.
 */
export const GET: RequestHandler = async ({ url, cookies }) => {
	const cfg = config();
	if (!cfg.oidc) error(404, 'Sign-in with an identity provider is not set up.');
	const { url: to, state } = await beginSignIn(safeNext(url.searchParams.get('next')));
	cookies.set(OIDC_STATE_COOKIE, state, {
		path: '/login/oidc',
		httpOnly: true,
		sameSite: 'lax',
		secure: cfg.secureCookies,
		maxAge: FLOW_TTL_MS / 1000
	});
	redirect(303, to.href);
};
