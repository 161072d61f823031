/**
 * Applies the contract's access rules (src/lib/contract/access.ts, the seed's Authentication
 * section) to a request: User-Agent first, then the key, its account and the route's rule.
 */
import type { IncomingMessage } from 'node:http';
import { canAccess, type AccessRule, type KeyState } from '../../lib/contract/access';
import { parseBearer } from '../../lib/contract/keys';
import type { AccountRegistry, Principal } from '../accounts/registry';
import { HttpError } from './respond';

/** Throws 400 when the request has no User-Agent (every route, public ones included). */
export function requireUserAgent(req: IncomingMessage): void {
	const ua = req.headers['user-agent'];
	if (typeof ua !== 'string' || ua.trim() === '') {
		throw new HttpError(400, 'User-Agent header is required (e.g. my-app/1.0).');
	}
}

/**
 * The key's principal when it may use a route under `rule` (undefined for public routes);
 * throws the matching HttpError otherwise.
 */
export function authorize(
	req: IncomingMessage,
	registry: AccountRegistry,
	rule: AccessRule
): Principal | undefined {
	if (rule.kind === 'public') return undefined;
	const bearer = parseBearer(req.headers.authorization);
	let state: KeyState;
	let principal: Principal | undefined;
	if (!bearer.ok) state = bearer.reason;
	else {
		const check = registry.check(bearer.key);
		if (check.ok) {
			principal = check.principal;
			state = principal.keyKind;
		} else state = check.reason;
	}
	const decision = canAccess({ access: rule }, state, principal?.account);
	if (!decision.ok) throw new HttpError(decision.status, decision.error);
	if (!principal) throw new HttpError(401, 'Invalid API key.');
	// The permission flags of the account resource gate the REST data routes as a whole.
	if (rule.kind !== 'whoami' && !principal.account.permissions.includes('api_rest_access')) {
		throw new HttpError(403, 'REST API access is not enabled for this account.');
	}
	return principal;
}
