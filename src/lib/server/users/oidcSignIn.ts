/**
 * Who a verified OIDC sign-in is in gexdeck (the protocol is oidcClient.ts's part). The provider's
 * role claim decides the role at every sign-in (GEXDECK_OIDC_ROLE_CLAIM through
 * GEXDECK_OIDC_ROLES): a user none of whose values is mapped is refused, never given a role by
 * default. A user is made at their first sign-in, marked by the provider's subject and with no
 * local password; a disabled user is refused; a claim that now maps to another role changes the
 * stored one (audited). An admin's role change on /admin ends the user's sessions at once and
 * stands until the user's next sign-in, when the provider's claim decides again.
 */
import type { Database } from '../db';
import { audit } from './audit';
import { adoptImplicitRecords } from './owners';
import { OidcRefusal, type VerifiedSignIn } from './oidcClient';
import { roleFromClaims, type OidcSettings } from './oidcSettings';
import { UserStore, type User } from './userStore';

/** A user name gexdeck accepts, from the claims people are known by. */
export function nameFromClaims(claims: Record<string, unknown>): string {
	for (const key of ['preferred_username', 'email', 'name', 'sub']) {
		const v = claims[key];
		if (typeof v !== 'string') continue;
		const name = v
			.trim()
			.replace(/[^A-Za-z0-9._@-]+/g, '-')
			.slice(0, 64);
		if (name && name !== '-') return name;
	}
	return 'oidc-user';
}

export async function oidcUser(
	db: Database,
	settings: OidcSettings,
	verified: VerifiedSignIn,
	address: string | null
): Promise<User> {
	const users = new UserStore(db);
	const role = roleFromClaims(verified.claims, settings);
	const known = await users.byOidcSubject(verified.subject);
	const name = known?.name ?? nameFromClaims(verified.claims);
	if (!role) {
		throw new OidcRefusal(
			`Your account at ${settings.name} (${name}) has no gexdeck role: none of its ` +
				`"${settings.roleClaim}" values is one this dashboard maps to a role. Your team's ` +
				`admin at ${settings.name} can add you to a group that gives one.`,
			`"${name}" via OIDC: no mapped role`
		);
	}
	if (!known) {
		if (await users.byName(name)) {
			throw new OidcRefusal(
				`A gexdeck user named "${name}" already signs in with a password, so your ` +
					`${settings.name} account is not joined to it. An admin of this dashboard can rename ` +
					'or remove that user.',
				`"${name}" via OIDC: the name is a local user's`
			);
		}
		const user = await users.addOidc(name, role, verified.subject);
		await audit(db, {
			actor: 'oidc',
			address,
			action: 'user added',
			detail: `${name} (${role}) at first sign-in through ${settings.name}`
		});
		if (role === 'admin') await adoptImplicitRecords(db, 'oidc');
		return user;
	}
	if (known.disabled) {
		throw new OidcRefusal(
			`Your gexdeck user "${name}" is disabled. An admin of this dashboard can enable it on /admin.`,
			`"${name}" via OIDC: disabled`
		);
	}
	if (known.role !== role) {
		// The provider decides at sign-in (the last-admin rule is /admin's and the CLI's).
		await db.run(`UPDATE users SET role = ? WHERE id = ?`, [role, known.id]);
		await audit(db, {
			actor: 'oidc',
			address,
			action: 'role changed',
			detail: `${name}: ${known.role} -> ${role} (${settings.roleClaim} at sign-in)`
		});
	}
	return { ...known, role };
}
