/**
 * Why the dashboard's /api proxy answered without (successfully) calling upstream: the `reason`
 * of its JSON error body (`{ error, reason, requires? }`), one word the browser can act on (ask
 * for a key, show the upgrade, wait out a backoff). The proxy writes these (src/lib/server) and
 * the pages read them (src/lib/cache/routeFetch.ts): one list, so neither side can drift.
 */
export const REFUSAL_REASONS = [
	'off-list',
	'invalid',
	'method',
	'locked',
	'no-key',
	'key-rejected',
	'backoff',
	'unreachable',
	/** The upstream failed (5xx) without a JSON error body of its own. */
	'upstream-error'
] as const;

export type RefusalReason = (typeof REFUSAL_REASONS)[number];

export function isRefusalReason(value: unknown): value is RefusalReason {
	return typeof value === 'string' && (REFUSAL_REASONS as readonly string[]).includes(value);
}
