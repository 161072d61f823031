import { error, redirect, type Handle, type ServerInit } from '@sveltejs/kit';
import { SESSION_COOKIE, sessionValid } from '$lib/server/auth';
import { config, isLoopbackHost } from '$lib/server/config';
import { CSRF_COOKIE, csrfFailure, newCsrfToken } from '$lib/server/csrf';
import { FAST_API, handleFastApi } from '$lib/server/fastApi';
import { API_CSP, SECURITY_HEADERS } from '$lib/server/securityHeaders';
import { mountAlerts } from '$lib/server/alerts/mount';
import { mountRecorder } from '$lib/server/recorder/mount';
import { mountStreamRelay } from '$lib/server/stream/mount';
import { warmUp } from '$lib/server/upstream';

export const init: ServerInit = async () => {
	const cfg = config();
	if (!isLoopbackHost(cfg.host) && !cfg.password) {
		console.error(
			`gexdeck: HOST=${cfg.host} is not a loopback address; set GEXDECK_PASSWORD to allow access.`
		);
	}
	// Offer the proxy's node:http fast path to scripts/start.js (see $lib/server/fastApi).
	(globalThis as Record<symbol, unknown>)[FAST_API] = handleFastApi;
	// The account's single WebSocket slot is held here and shared by every tab (/stream).
	mountStreamRelay();
	// Everything relayed or polled is recorded per ticker, stream and day (/history backfills).
	mountRecorder();
	// Alert rules run on every update the server receives, with or without a tab (/alerts).
	mountAlerts();
	try {
		await warmUp();
	} catch (err) {
		// The pages show the error; the server itself stays up so the Account page can help.
		console.error(`gexdeck: ${(err as Error).message}`);
	}
};

const THEME_COOKIE = 'gexdeck_theme';

function themeOf(value: string | undefined | null): 'dark' | 'light' {
	return value === 'light' ? 'light' : 'dark';
}

/** Paths reachable without a session (the login page itself). */
function isPublicPath(pathname: string): boolean {
	return pathname === '/login' || pathname.startsWith('/login/');
}

export const handle: Handle = async ({ event, resolve }) => {
	const cfg = config();
	const passwordRequired = Boolean(cfg.password);
	if (!isLoopbackHost(cfg.host) && !cfg.password) {
		error(
			503,
			'gexdeck is bound to a non-loopback address without GEXDECK_PASSWORD; refusing access.'
		);
	}

	let csrf = event.cookies.get(CSRF_COOKIE);
	if (!csrf) {
		csrf = newCsrfToken();
		event.cookies.set(CSRF_COOKIE, csrf, {
			path: '/',
			httpOnly: true,
			sameSite: 'strict',
			secure: cfg.secureCookies
		});
	}
	const authenticated =
		!passwordRequired || sessionValid(event.cookies.get(SESSION_COOKIE) ?? undefined);
	event.locals.csrf = csrf;
	event.locals.authenticated = authenticated;
	event.locals.passwordRequired = passwordRequired;

	const { pathname } = event.url;
	if (!authenticated && !isPublicPath(pathname)) {
		if (pathname.startsWith('/api/') || event.request.method !== 'GET') {
			return new Response(JSON.stringify({ error: 'Log in first.' }), {
				status: 401,
				headers: { 'content-type': 'application/json', ...SECURITY_HEADERS }
			});
		}
		redirect(303, `/login?next=${encodeURIComponent(pathname + event.url.search)}`);
	}

	const refused = await csrfFailure(event.request, event.cookies.get(CSRF_COOKIE));
	if (refused) {
		return new Response(JSON.stringify({ error: `Forbidden: ${refused}.` }), {
			status: 403,
			headers: { 'content-type': 'application/json', ...SECURITY_HEADERS }
		});
	}

	// The theme is applied in the server's HTML, so a light-theme user never sees a dark flash.
	const theme = themeOf(event.url.searchParams.get('theme') ?? event.cookies.get(THEME_COOKIE));
	const response = await resolve(event, {
		transformPageChunk: ({ html }) => html.replace('data-theme="dark"', `data-theme="${theme}"`)
	});
	for (const [name, value] of Object.entries(SECURITY_HEADERS)) {
		if (!response.headers.has(name)) response.headers.set(name, value);
	}
	// Pages get SvelteKit's hashed CSP from svelte.config.js; API answers get the strictest one.
	if (!response.headers.has('content-security-policy')) {
		response.headers.set('content-security-policy', API_CSP);
	}
	return response;
};
