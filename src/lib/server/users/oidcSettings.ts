/**
 * The OpenID Connect settings (sign-in through the team's identity provider), read from the
 * environment by config.ts, and the mapping of a claim to a role. Pure: a misconfiguration is
 * an Error naming the variable, which stops the start.
 *
 * - GEXDECK_OIDC_ISSUER: the provider's issuer URL (https; http only on loopback, for tests);
 * - GEXDECK_OIDC_CLIENT_ID, GEXDECK_OIDC_CLIENT_SECRET: the confidential client gexdeck is;
 * - GEXDECK_OIDC_ROLE_CLAIM: the claim carrying the user's groups or roles (default `groups`;
 *   a dotted path reaches into an object, e.g. Keycloak's `realm_access.roles`);
 * - GEXDECK_OIDC_ROLES: which claim value gives which role, `value=role,value=role`;
 * - GEXDECK_OIDC_NAME: the provider's name on the login button (default: the issuer's host).
 * The redirect URI is `<ORIGIN>/login/oidc/callback`, so ORIGIN is required.
 */
import { ROLES, isRole, type Role } from './roles';

export const OIDC_CALLBACK_PATH = '/login/oidc/callback';

export interface OidcSettings {
	issuer: URL;
	clientId: string;
	clientSecret: string;
	roleClaim: string;
	/** Claim value -> role. */
	roles: ReadonlyMap<string, Role>;
	/** The provider's name as the login button says it. */
	name: string;
	redirectUri: string;
}

type Env = Record<string, string | undefined>;

const VARIABLES = [
	'GEXDECK_OIDC_ISSUER',
	'GEXDECK_OIDC_CLIENT_ID',
	'GEXDECK_OIDC_CLIENT_SECRET',
	'GEXDECK_OIDC_ROLES'
] as const;

function value(env: Env, name: string): string | undefined {
	const v = env[name]?.trim();
	return v ? v : undefined;
}

function loopbackHost(hostname: string): boolean {
	const h = hostname.replace(/^\[|\]$/g, '');
	return h === 'localhost' || h === '::1' || /^127(\.\d{1,3}){3}$/.test(h);
}

/** `value=role,value=role` as a map; an error names GEXDECK_OIDC_ROLES and the bad part. */
export function parseRoleMap(raw: string): Map<string, Role> {
	const map = new Map<string, Role>();
	for (const part of raw.split(',')) {
		const item = part.trim();
		if (!item) continue;
		const eq = item.lastIndexOf('=');
		const claimValue = eq > 0 ? item.slice(0, eq).trim() : '';
		const role = eq > 0 ? item.slice(eq + 1).trim() : '';
		if (!claimValue || !isRole(role)) {
			throw new Error(
				`GEXDECK_OIDC_ROLES: "${item}" is not value=role (role one of ${ROLES.join(', ')}), ` +
					'e.g. GEXDECK_OIDC_ROLES=gexdeck-admins=admin,gexdeck-traders=trader'
			);
		}
		map.set(claimValue, role);
	}
	if (map.size === 0) throw new Error('GEXDECK_OIDC_ROLES maps no claim value to a role');
	return map;
}

/**
 * The OIDC settings, or undefined when none of the variables is set. Setting some but not all,
 * a malformed issuer or role map, or a missing ORIGIN throws an error naming the variable.
 */
export function parseOidcSettings(env: Env, origin: string | undefined): OidcSettings | undefined {
	const set = VARIABLES.filter((name) => value(env, name) !== undefined);
	if (set.length === 0 && !value(env, 'GEXDECK_OIDC_ROLE_CLAIM')) return undefined;
	const missing = VARIABLES.filter((name) => value(env, name) === undefined);
	if (missing.length > 0) {
		throw new Error(
			`OpenID Connect sign-in needs ${missing.join(', ')} (set beside ${set.join(', ') || 'GEXDECK_OIDC_ROLE_CLAIM'})`
		);
	}
	const rawIssuer = value(env, 'GEXDECK_OIDC_ISSUER')!;
	let issuer: URL;
	try {
		issuer = new URL(rawIssuer);
	} catch {
		throw new Error(`GEXDECK_OIDC_ISSUER is not a URL: ${rawIssuer}`);
	}
	if (issuer.username || issuer.password || issuer.search || issuer.hash) {
		throw new Error('GEXDECK_OIDC_ISSUER must not carry credentials, a query or a fragment');
	}
	if (
		issuer.protocol !== 'https:' &&
		!(issuer.protocol === 'http:' && loopbackHost(issuer.hostname))
	) {
		throw new Error(
			`GEXDECK_OIDC_ISSUER must be https (http only on this machine's loopback): ${rawIssuer}`
		);
	}
	if (!origin) {
		throw new Error(
			'OpenID Connect sign-in needs ORIGIN (the dashboard’s public URL): the redirect URI ' +
				`registered at the provider is <ORIGIN>${OIDC_CALLBACK_PATH}`
		);
	}
	const roleClaim = value(env, 'GEXDECK_OIDC_ROLE_CLAIM') ?? 'groups';
	if (!/^[A-Za-z0-9_:/-]+(\.[A-Za-z0-9_:/-]+)*$/.test(roleClaim)) {
		throw new Error(`GEXDECK_OIDC_ROLE_CLAIM is not a claim name or dotted path: ${roleClaim}`);
	}
	return {
		issuer,
		clientId: value(env, 'GEXDECK_OIDC_CLIENT_ID')!,
		clientSecret: value(env, 'GEXDECK_OIDC_CLIENT_SECRET')!,
		roleClaim,
		roles: parseRoleMap(value(env, 'GEXDECK_OIDC_ROLES')!),
		name: value(env, 'GEXDECK_OIDC_NAME') ?? issuer.host,
		redirectUri: `${origin}${OIDC_CALLBACK_PATH}`
	};
}

/** The order roles outrank each other in: a user in two mapped groups gets the higher role. */
const RANK: Readonly<Record<Role, number>> = { admin: 3, trader: 2, viewer: 1 };

/**
 * The role the claims give, or undefined when no value of the role claim is mapped (such a user
 * is refused: nobody gets a role by default). The claim may be a string or a list of strings.
 */
export function roleFromClaims(
	claims: Record<string, unknown>,
	settings: Pick<OidcSettings, 'roleClaim' | 'roles'>
): Role | undefined {
	let at: unknown = claims;
	for (const key of settings.roleClaim.split('.')) {
		at = at !== null && typeof at === 'object' ? (at as Record<string, unknown>)[key] : undefined;
	}
	const values = typeof at === 'string' ? [at] : Array.isArray(at) ? at : [];
	let best: Role | undefined;
	for (const v of values) {
		if (typeof v !== 'string') continue;
		const role = settings.roles.get(v);
		if (role && (!best || RANK[role] > RANK[best])) best = role;
	}
	return best;
}
