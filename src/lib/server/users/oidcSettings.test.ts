import { describe, expect, it } from 'vitest';
import { nameFromClaims } from './oidcSignIn';
import { parseOidcSettings, parseRoleMap, roleFromClaims } from './oidcSettings';

const ORIGIN = 'https://gex.example.test';
const FULL = {
	GEXDECK_OIDC_ISSUER: 'https://sso.example.test/realms/desk',
	GEXDECK_OIDC_CLIENT_ID: 'gexdeck',
	GEXDECK_OIDC_CLIENT_SECRET: 's3cret',
	GEXDECK_OIDC_ROLES: 'desk-admins=admin, desk-traders=trader'
};

describe('the OIDC settings', () => {
	it('are off with none of the variables, and read whole when all are set', () => {
		expect(parseOidcSettings({}, ORIGIN)).toBeUndefined();
		expect(parseOidcSettings({ GEXDECK_OIDC_ISSUER: '  ' }, ORIGIN)).toBeUndefined();
		const s = parseOidcSettings(FULL, ORIGIN)!;
		expect(s.issuer.href).toBe('https://sso.example.test/realms/desk');
		expect(s.clientId).toBe('gexdeck');
		expect(s.clientSecret).toBe('s3cret');
		expect(s.roleClaim).toBe('groups');
		expect([...s.roles]).toEqual([
			['desk-admins', 'admin'],
			['desk-traders', 'trader']
		]);
		expect(s.name).toBe('sso.example.test');
		expect(s.redirectUri).toBe('https://gex.example.test/login/oidc/callback');
		const named = parseOidcSettings(
			{ ...FULL, GEXDECK_OIDC_NAME: 'Keycloak', GEXDECK_OIDC_ROLE_CLAIM: 'realm_access.roles' },
			ORIGIN
		)!;
		expect(named.name).toBe('Keycloak');
		expect(named.roleClaim).toBe('realm_access.roles');
	});

	it('name the variable that is missing or wrong', () => {
		const without = (name: keyof typeof FULL) => ({ ...FULL, [name]: undefined });
		for (const name of Object.keys(FULL) as (keyof typeof FULL)[]) {
			expect(() => parseOidcSettings(without(name), ORIGIN)).toThrow(
				new RegExp(`needs ${name} \\(set beside`)
			);
		}
		expect(() => parseOidcSettings({ GEXDECK_OIDC_ROLE_CLAIM: 'groups' }, ORIGIN)).toThrow(
			/needs GEXDECK_OIDC_ISSUER, GEXDECK_OIDC_CLIENT_ID, GEXDECK_OIDC_CLIENT_SECRET, GEXDECK_OIDC_ROLES/
		);
		const bad = (over: Record<string, string>) => () =>
			parseOidcSettings({ ...FULL, ...over }, ORIGIN);
		expect(bad({ GEXDECK_OIDC_ISSUER: 'not a url' })).toThrow('GEXDECK_OIDC_ISSUER is not a URL');
		expect(bad({ GEXDECK_OIDC_ISSUER: 'http://sso.example.test' })).toThrow(
			'GEXDECK_OIDC_ISSUER must be https'
		);
		expect(bad({ GEXDECK_OIDC_ISSUER: 'https://u:p@sso.example.test' })).toThrow(
			'GEXDECK_OIDC_ISSUER must not carry credentials'
		);
		expect(bad({ GEXDECK_OIDC_ROLE_CLAIM: 'a..b' })).toThrow('GEXDECK_OIDC_ROLE_CLAIM');
		expect(bad({ GEXDECK_OIDC_ROLES: 'desk=owner' })).toThrow(
			'GEXDECK_OIDC_ROLES: "desk=owner" is not value=role'
		);
		expect(bad({ GEXDECK_OIDC_ROLES: '=admin' })).toThrow('GEXDECK_OIDC_ROLES: "=admin"');
		expect(bad({ GEXDECK_OIDC_ROLES: ' , ' })).toThrow('GEXDECK_OIDC_ROLES maps no claim value');
		expect(() => parseOidcSettings(FULL, undefined)).toThrow('OpenID Connect sign-in needs ORIGIN');
	});

	it('take http only for a loopback issuer (a provider on this machine)', () => {
		for (const host of ['127.0.0.1:8080', 'localhost:8080', '[::1]:8080']) {
			const s = parseOidcSettings({ ...FULL, GEXDECK_OIDC_ISSUER: `http://${host}` }, ORIGIN);
			expect(s?.issuer.protocol).toBe('http:');
		}
		expect(() =>
			parseOidcSettings({ ...FULL, GEXDECK_OIDC_ISSUER: 'http://10.0.0.1' }, ORIGIN)
		).toThrow('must be https');
	});

	it('read a role map whose values may hold = (the last one splits)', () => {
		expect([...parseRoleMap('team=a=admin')]).toEqual([['team=a', 'admin']]);
	});
});

describe('the role a claim gives', () => {
	const roles = parseRoleMap('desk-admins=admin,desk-traders=trader,desk-viewers=viewer');
	const of = (claims: Record<string, unknown>, roleClaim = 'groups') =>
		roleFromClaims(claims, { roleClaim, roles });

	it('is the highest mapped value; none mapped is no role at all', () => {
		expect(of({ groups: ['desk-viewers', 'desk-traders'] })).toBe('trader');
		expect(of({ groups: ['desk-traders', 'desk-admins', 'x'] })).toBe('admin');
		expect(of({ groups: 'desk-viewers' })).toBe('viewer');
		expect(of({ groups: ['staff', 42, null] })).toBeUndefined();
		expect(of({ groups: [] })).toBeUndefined();
		expect(of({})).toBeUndefined();
		expect(of({ groups: { 'desk-admins': true } })).toBeUndefined();
	});

	it('reaches into an object by a dotted path (Keycloak realm roles)', () => {
		const claims = { realm_access: { roles: ['offline_access', 'desk-admins'] } };
		expect(of(claims, 'realm_access.roles')).toBe('admin');
		expect(of(claims, 'realm_access.other')).toBeUndefined();
		expect(of({ realm_access: 'desk-admins' }, 'realm_access.roles')).toBeUndefined();
	});
});

describe('the user name of a first sign-in', () => {
	it('is the preferred name, else the email, name or subject, cleaned', () => {
		expect(nameFromClaims({ preferred_username: 'ann', email: 'a@x.test', sub: '1' })).toBe('ann');
		expect(nameFromClaims({ email: 'ann@x.test', sub: '1' })).toBe('ann@x.test');
		expect(nameFromClaims({ name: 'Ann Lee', sub: '1' })).toBe('Ann-Lee');
		expect(nameFromClaims({ preferred_username: '!!!', sub: 'abc' })).toBe('abc');
		expect(nameFromClaims({ sub: 'x'.repeat(80) })).toBe('x'.repeat(64));
		expect(nameFromClaims({})).toBe('oidc-user');
	});
});
