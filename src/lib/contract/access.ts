/**
 * Access rules of the routes (the seed's "Authentication" section) as one pure function, so
 * the embedded service enforces them and the dashboard's proxy refuses, before spending a
 * request, what the upstream would refuse.
 *
 * Status codes: a missing (or non-Bearer) Authorization header is 400 on data routes, as
 * observed on the live service, but 401 on /whoami as its status table says; an unknown,
 * expired or revoked key is 401; a key of the wrong product or level is 403; a commercial
 * child seat suspended by its parent is 403 everywhere a key is needed.
 */

import type { KeyKind } from './keys';
import type { Failure } from './outcome';
import { levelIncludes, levelRank, type Level } from './subscriptionLevels';

/** Who may call a route. */
export type AccessRule =
	| { kind: 'public' }
	/** An active subscription including the package (max_level >= package). */
	| { kind: 'package'; level: Exclude<Level, 'quant'> }
	/** Any paid tier (classic, state, orderflow, quant) product key; research keys refused. */
	| { kind: 'paid' }
	/** Quant tier. */
	| { kind: 'quant' }
	/** Research keys only (and the account still holding the Research add-on). */
	| { kind: 'research' }
	/** Any product key, research included (GET /whoami). */
	| { kind: 'whoami' };

/** The state of the credential a request carried, as the caller resolved it. */
export type KeyState = KeyKind | 'missing' | 'malformed' | 'unknown' | 'expired' | 'revoked';

/** What access decisions need to know about the key's account. */
export interface AccountAccess {
	max_level: string | null;
	addons: readonly string[];
	account?: { child?: boolean; suspended?: boolean };
}

export type AccessDecision = { ok: true } | (Failure & { status: 400 | 401 | 403 });

export const RESEARCH_ADDON = 'research';

const DENY_MESSAGES = {
	missing: 'Missing Authorization header.',
	malformed: 'Authorization header must be "Bearer <API key>".',
	unknown: 'Invalid API key.',
	expired: 'API key has expired.',
	revoked: 'API key has been revoked.'
} as const;

/**
 * Decides whether a request may proceed. `account` is required when `key` is a valid key kind.
 */
export function canAccess(
	route: { access: AccessRule },
	key: KeyState,
	account?: AccountAccess
): AccessDecision {
	const rule = route.access;
	if (rule.kind === 'public') return { ok: true };

	if (key === 'missing' || key === 'malformed') {
		return { ok: false, status: rule.kind === 'whoami' ? 401 : 400, error: DENY_MESSAGES[key] };
	}
	if (key === 'unknown' || key === 'expired' || key === 'revoked') {
		return { ok: false, status: 401, error: DENY_MESSAGES[key] };
	}
	if (!account) return { ok: false, status: 401, error: DENY_MESSAGES.unknown };
	if (account.account?.child && account.account.suspended) {
		return {
			ok: false,
			status: 403,
			error: 'This commercial child seat has been suspended by its parent account.'
		};
	}

	switch (rule.kind) {
		case 'whoami':
			return { ok: true };
		case 'research':
			if (key !== 'research') {
				return {
					ok: false,
					status: 403,
					error: 'Research endpoints accept only a Research API key.'
				};
			}
			if (!account.addons.some((a) => a.toLowerCase() === RESEARCH_ADDON)) {
				return {
					ok: false,
					status: 403,
					error: 'The Research add-on is not active on this account.'
				};
			}
			return { ok: true };
		default:
			break;
	}

	if (key === 'research') {
		return {
			ok: false,
			status: 403,
			error: 'Research API keys are accepted only by /research endpoints.'
		};
	}
	switch (rule.kind) {
		case 'paid':
			return levelRank(account.max_level) > 0
				? { ok: true }
				: { ok: false, status: 403, error: 'This endpoint requires a paid subscription.' };
		case 'quant':
			return levelIncludes(account.max_level, 'quant')
				? { ok: true }
				: { ok: false, status: 403, error: 'This endpoint requires a Quant subscription.' };
		case 'package':
			return levelIncludes(account.max_level, rule.level)
				? { ok: true }
				: {
						ok: false,
						status: 403,
						error: `Your subscription does not include the ${capitalize(rule.level)} package.`
					};
	}
}

function capitalize(s: string): string {
	return s.charAt(0).toUpperCase() + s.slice(1);
}
