import { fail, redirect } from '@sveltejs/kit';
import {
	createSession,
	endSession,
	loginThrottle,
	passwordMatches,
	safeNext,
	SESSION_COOKIE,
	SESSION_TTL_MS
} from '$lib/server/auth';
import { config } from '$lib/server/config';
import { cookieValue } from '$lib/server/cookies';
import type { Actions, PageServerLoad } from './$types';

export const load = (({ locals, url }) => {
	if (!locals.passwordRequired || locals.authenticated)
		redirect(303, safeNext(url.searchParams.get('next')));
	return { next: safeNext(url.searchParams.get('next')) };
}) satisfies PageServerLoad;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export const actions = {
	login: async ({ request, cookies, getClientAddress }) => {
		const password = config().password;
		if (!password) redirect(303, '/');
		let form: FormData;
		try {
			form = await request.formData();
		} catch {
			return fail(400, { message: 'The login form could not be read.' });
		}
		// The password is checked first: the right one always gets in, whatever the throttle says.
		if (passwordMatches(String(form.get('password') ?? ''), password)) {
			loginThrottle.succeeded(clientOf(getClientAddress));
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
		const { delayMs, globalCapped } = loginThrottle.failed(clientOf(getClientAddress));
		if (delayMs > 0) {
			await sleep(delayMs);
			return fail(429, {
				next,
				message: globalCapped
					? 'Wrong password. Too many attempts on this dashboard: answers are slowed.'
					: `Wrong password. Too many attempts: answers are slowed (${Math.ceil(delayMs / 1000)} s).`
			});
		}
		return fail(401, { next, message: 'Wrong password.' });
	},

	logout: async ({ cookies, request }) => {
		endSession(cookieValue(request.headers.get('cookie'), SESSION_COOKIE));
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
