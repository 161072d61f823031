/** Response headers every dashboard answer carries (pages get their CSP from svelte.config.js). */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
	'x-content-type-options': 'nosniff',
	'referrer-policy': 'no-referrer',
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
