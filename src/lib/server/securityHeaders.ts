import type { ServerResponse } from 'node:http';

/** Response headers every dashboard answer carries (pages get their CSP from svelte.config.js). */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
	'x-content-type-options': 'nosniff',
	// Not no-referrer: under it Chromium sends `Origin: null` with every form post, so a form
	// submitted natively (login, logout, any form before hydration) was refused as cross-origin.
	// same-origin keeps the referrer from other sites and sends this origin to itself.
	'referrer-policy': 'same-origin',
	'x-frame-options': 'DENY',
	'cross-origin-opener-policy': 'same-origin',
	'permissions-policy': 'camera=(), microphone=(), geolocation=(), payment=()'
};

/** Served over https (ORIGIN is https): browsers must never fall back to plain http. */
const HTTPS_HEADERS: Readonly<Record<string, string>> = {
	...SECURITY_HEADERS,
	'strict-transport-security': 'max-age=31536000'
};

/** The security headers for a dashboard served over https or not. */
export function securityHeaders(https: boolean): Readonly<Record<string, string>> {
	return https ? HTTPS_HEADERS : SECURITY_HEADERS;
}

/** The CSP of non-page answers (API JSON, downloads): nothing may run or embed them. */
export const API_CSP =
	"default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

/**
 * Writes a whole non-page answer (API_CSP, not cached, `extra` over both) with `body`, or no body
 * (a HEAD), unless an answer has been started already or the socket is gone.
 */
export function sendApiAnswer(
	res: ServerResponse,
	https: boolean,
	status: number,
	type: string,
	body: string | undefined,
	extra: Record<string, string> = {}
): void {
	if (res.headersSent || res.destroyed) return;
	res.writeHead(status, {
		...securityHeaders(https),
		'content-security-policy': API_CSP,
		'content-type': type,
		'cache-control': 'no-store',
		...extra
	});
	res.end(body);
}
