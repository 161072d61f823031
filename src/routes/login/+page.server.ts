import { fail, redirect } from '@sveltejs/kit';
import {
	createSession,
	endSession,
	loginThrottle,
	passwordMatches,
	SESSION_COOKIE,
	SESSION_TTL_MS
} from '$lib/server/auth';
import { config } from '$lib/server/config';
import type { Actions, PageServerLoad } from './$types';

/** Only same-site paths are followed after login (no open redirect). */
function safeNext(next: string | null): string {
	return next && next.startsWith('/') && !next.startsWith('//') && !next.startsWith('/\\')
		? next
		: '/';
}

export const load = (({ locals, url }) => {
	if (!locals.passwordRequired || locals.authenticated)
		redirect(303, safeNext(url.searchParams.get('next')));
	return { next: safeNext(url.searchParams.get('next')) };
}) satisfies PageServerLoad;

export const actions = {
	login: async ({ request, cookies, getClientAddress }) => {
		const password = config().password;
		if (!password) redirect(303, '/');
		const client = getClientAddress();
		const wait = loginThrottle.waitMs(client);
		if (wait > 0) {
			return fail(429, { message: `Too many attempts: wait ${Math.ceil(wait / 1000)} s.` });
		}
		const form = await request.formData();
		if (!passwordMatches(String(form.get('password') ?? ''), password)) {
			loginThrottle.fail(client);
			return fail(401, { message: 'Wrong password.' });
		}
		loginThrottle.succeed(client);
		cookies.set(SESSION_COOKIE, createSession(), {
			path: '/',
			httpOnly: true,
			sameSite: 'strict',
			secure: config().secureCookies,
			maxAge: SESSION_TTL_MS / 1000
		});
		redirect(303, safeNext(String(form.get('next') ?? '/')));
	},

	logout: async ({ cookies }) => {
		endSession(cookies.get(SESSION_COOKIE));
		cookies.delete(SESSION_COOKIE, { path: '/' });
		redirect(303, '/login');
	}
} satisfies Actions;
