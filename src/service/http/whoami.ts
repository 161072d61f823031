/**
 * GET /v2/whoami: the account identity resource. The key is masked (prefix, ellipsis, last
 * four) and the secret never leaves the server; the answer must not be cached by anyone.
 */
import { maskKey } from '../../lib/contract/keys';
import type { AccountFlags } from '../accounts/file';
import type { Principal } from '../accounts/registry';

export interface WhoamiResponse {
	_id: string;
	role: string;
	level: string[];
	max_level: string;
	addons: string[];
	entitlements: Record<string, unknown>;
	permissions: string[];
	/** The file's account flags but `suspended`, which the whoami body does not carry. */
	account: Omit<AccountFlags, 'suspended'>;
	api_key: { id: string; label: string; product: string; integration: string; created_at: string };
	created: string | null;
}

/**
 * The file's entitlements when it gives any; otherwise one member per product family derived
 * from the subscription: the main data product (level, addons) and research (active, tier).
 */
function entitlementsOf(p: Principal): Record<string, unknown> {
	const a = p.account;
	if (Object.keys(a.entitlements).length > 0) return a.entitlements;
	const research = a.addons.includes('research');
	return {
		gexbot: { level: a.max_level, addons: [...a.addons] },
		research: { active: research, tier: research ? 'api' : null }
	};
}

export function whoamiBody(p: Principal): WhoamiResponse {
	const a = p.account;
	const f = a.account;
	return {
		_id: a._id,
		role: a.role,
		level: [...a.level],
		max_level: a.max_level,
		addons: [...a.addons],
		entitlements: entitlementsOf(p),
		permissions: [...a.permissions],
		account: {
			commercial: f.commercial,
			commercial_delegate: f.commercial_delegate,
			display_use: f.display_use,
			child: f.child,
			managed: f.managed,
			delegated: f.delegated
		},
		api_key: {
			id: maskKey(p.key.key),
			label: p.key.label,
			product: p.key.product,
			integration: p.key.integration,
			created_at: p.key.created_at
		},
		created: a.created
	};
}
