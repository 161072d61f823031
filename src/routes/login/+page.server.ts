import { fail, redirect } from '@sveltejs/kit';
import {
	createSession,
	endSession,
	passwordMatches,
	safeNext,
	SESSION_COOKIE,
	SESSION_TTL_MS
} from '$lib/server/auth';
import { config } from '$lib/server/config';
import { loginDelays } from '$lib/server/services';
import { cookieValue } from '$lib/server/cookies';
import { appDatabase } from '$lib/server/db/appDb';
import { audit } from '$lib/server/users/audit';
import { deleteSession, persistSession } from '$lib/server/users/sessionStore';
import { teamsMode, UPGRADED_ADMIN } from '$lib/server/users/teams';
import { UserStore } from '$lib/server/users/userStore';
import type { Actions, PageServerLoad } from './$types';

export const load = (({ locals, url }) => {
	if (!locals.passwordRequired || locals.authenticated)
		redirect(303, safeNext(url.searchParams.get('next')));
	// Sign-in through the team's identity provider (OIDC), when it is set up.
	const oidc = config().oidc?.name;
	return { next: safeNext(url.searchParams.get('next')), teams: locals.teams, oidc };
}) satisfies PageServerLoad;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export const actions = {
	login: async ({ request, cookies, getClientAddress }) => {
		const password = config().password;
		const teams = teamsMode();
		if (!password && !teams) redirect(303, '/');
		let form: FormData;
		try {
			form = await request.formData();
		} catch {
			return fail(400, { message: 'The login form could not be read.' });
		}
		const given = String(form.get('password') ?? '');
		// A blank name is the admin a GEXDECK_PASSWORD setup became: the old form still signs in.
		const typed = String(form.get('name') ?? '').trim();
		const name = typed || UPGRADED_ADMIN;
		const address = clientOf(getClientAddress);
		const db = teams ? appDatabase() : undefined;
		// The password is checked first: the right one always gets in, whatever the throttle says.
		const user = db ? await new UserStore(db).verify(name, given) : undefined;
		if (db && user) {
			await loginDelays().succeeded(address);
			const who = { id: user.id, name: user.name, role: user.role };
			const token = createSession(Date.now(), who);
			await persistSession(db, token, who, address);
			await audit(db, { actor: user.name, address, action: 'sign-in', detail: user.role });
			cookies.set(SESSION_COOKIE, token, {
				path: '/',
				httpOnly: true,
				sameSite: 'strict',
				secure: config().secureCookies,
				maxAge: SESSION_TTL_MS / 1000
			});
			redirect(303, safeNext(form.get('next')));
		}
		if (db) {
			await audit(db, {
				actor: 'anonymous',
				address,
				action: 'failed sign-in',
				detail: `as "${name.slice(0, 64)}"`
			});
		}
		if (!db && password && passwordMatches(given, password)) {
			await loginDelays().succeeded(address);
			cookies.set(SESSION_COOKIE, createSession(), {
				path: '/',
				httpOnly: true,
				sameSite: 'strict',
				secure: config().secureCookies,
				maxAge: SESSION_TTL_MS / 1000
			});
			redirect(303, safeNext(form.get('next')));
		}
		// A failed attempt re-renders the form at the action's URL, which has no `next`: hand it back.
		const next = safeNext(form.get('next'));
		const wrong = typed ? 'Wrong name or password.' : 'Wrong password.';
		const { delayMs, globalCapped } = await loginDelays().failed(address);
		if (delayMs > 0) {
			await sleep(delayMs);
			return fail(429, {
				next,
				message: globalCapped
					? `${wrong} Too many attempts on this dashboard: answers are slowed.`
					: `${wrong} Too many attempts: answers are slowed (${Math.ceil(delayMs / 1000)} s).`
			});
		}
		return fail(401, { next, message: wrong });
	},

	logout: async ({ cookies, request, locals }) => {
		const token = cookieValue(request.headers.get('cookie'), SESSION_COOKIE);
		if (token && locals.teams) await deleteSession(appDatabase(), token);
		endSession(token);
		cookies.delete(SESSION_COOKIE, { path: '/' });
		redirect(303, '/login');
	}
} satisfies Actions;

/** The client's address (ADDRESS_HEADER behind a proxy); one shared bucket when it is absent. */
function clientOf(getClientAddress: () => string): string {
	try {
		return getClientAddress();
	} catch {
		return 'unknown';
	}
}
