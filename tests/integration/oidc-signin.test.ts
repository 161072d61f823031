/**
 * OpenID Connect sign-in over real sockets (issue 29 item 2): the built dashboard against a real
 * provider (tests/support/oidcProvider.ts) on loopback. A browser's part is played by hand, so a
 * test can change what a browser would carry: another sign-in's state, a changed nonce or PKCE
 * challenge in the provider's URL, a foreign `next`. Each must be refused without a session.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOidcProvider, type TestOidcProvider } from '../support/oidcProvider';
import {
	freePort,
	rawRequest,
	runToExit,
	root,
	setCookies,
	startDashboard,
	startStubUpstream,
	type RunningDashboard,
	type StubUpstream
} from './dashboard-support';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

let idp: TestOidcProvider;
let stub: StubUpstream;
let app: RunningDashboard;

beforeAll(async () => {
	const port = await freePort();
	const origin = `http://127.0.0.1:${port}`;
	idp = await startOidcProvider(`${origin}/login/oidc/callback`);
	idp.accounts.set('ann', { groups: ['desk-admins'] });
	idp.accounts.set('carl', { groups: ['desk-traders', 'staff'] });
	idp.accounts.set('olga', { groups: ['staff'] });
	stub = await startStubUpstream();
	app = await startDashboard({ PORT: String(port), ORIGIN: origin, ...stub.env, ...idp.env });
}, 240_000);

afterAll(async () => {
	await app?.stop();
	await stub?.close();
	await idp?.close();
});

/** The provider's cookies (one host) carried along its redirects, as a browser would. */
class ProviderBrowser {
	private jar = new Map<string, string>();
	async get(url: string): Promise<Response> {
		const res = await fetch(url, { redirect: 'manual', headers: this.headers() });
		this.keep(res);
		return res;
	}
	async post(url: string, form: Record<string, string>): Promise<Response> {
		const res = await fetch(url, {
			method: 'POST',
			redirect: 'manual',
			headers: { ...this.headers(), 'content-type': 'application/x-www-form-urlencoded' },
			body: new URLSearchParams(form).toString()
		});
		this.keep(res);
		return res;
	}
	private headers(): Record<string, string> {
		const cookie = [...this.jar].map(([k, v]) => `${k}=${v}`).join('; ');
		return cookie ? { cookie } : {};
	}
	private keep(res: Response) {
		for (const [k, v] of Object.entries(setCookies(res.headers))) this.jar.set(k, v);
	}
}

/** Starts a sign-in at the dashboard: the provider's URL and the state cookie it set. */
async function begin(next = '/alerts'): Promise<{ authUrl: URL; stateCookie: string }> {
	const res = await rawRequest(app.port, 'GET', `/login/oidc?next=${encodeURIComponent(next)}`);
	expect(res.status).toBe(303);
	const cookie = setCookies(res.headers).gexdeck_oidc;
	expect(res.headers['set-cookie']?.join(';')).toMatch(/gexdeck_oidc=[^;]+;.*SameSite=Lax/i);
	return { authUrl: new URL(res.headers.location!), stateCookie: cookie };
}

/** Signs `account` in at the provider; resolves with the callback URL it sends the browser to. */
async function atProvider(authUrl: URL, account: string): Promise<URL> {
	const browser = new ProviderBrowser();
	let res = await browser.get(authUrl.href);
	for (let hops = 0; hops < 10; hops++) {
		const location = res.headers.get('location');
		if (location) {
			const next = new URL(location, authUrl);
			if (next.origin === app.base) return next;
			res = await browser.get(next.href);
			continue;
		}
		const html = await res.text();
		const action = /<form[^>]*action="([^"]+)"/.exec(html)?.[1];
		if (!action) throw new Error(`no form at the provider: ${res.status} ${html.slice(0, 300)}`);
		const fields: Record<string, string> = html.includes('name="login"')
			? { prompt: 'login', login: account, password: 'anything' }
			: { prompt: 'consent' };
		res = await browser.post(new URL(action, authUrl).href, fields);
	}
	throw new Error('the provider never sent the browser back');
}

/** The callback as the dashboard answers it, with this state cookie. */
async function callback(url: URL, stateCookie: string | undefined) {
	const res = await rawRequest(app.port, 'GET', `${url.pathname}${url.search}`, {
		accept: 'text/html',
		...(stateCookie ? { cookie: `gexdeck_oidc=${stateCookie}` } : {})
	});
	return { ...res, session: setCookies(res.headers).gexdeck_session };
}

async function signIn(account: string, next = '/alerts') {
	const { authUrl, stateCookie } = await begin(next);
	return callback(await atProvider(authUrl, account), stateCookie);
}

const asUser = (session: string, path: string) =>
	rawRequest(app.port, 'GET', path, { cookie: `gexdeck_session=${session}` });

async function auditLog(adminSession: string): Promise<Record<string, string>[]> {
	const log = await asUser(adminSession, '/admin/audit.jsonl');
	expect(log.status).toBe(200);
	return log.body
		.trim()
		.split('\n')
		.map((l) => JSON.parse(l));
}

describe('OIDC sign-in against a real provider', () => {
	it('signs a mapped user in with the role the claim gives, made at first sign-in', async () => {
		const carl = await signIn('carl');
		expect(carl.status).toBe(200);
		expect(carl.session).toBeTruthy();
		expect(carl.body).toContain('Welcome, carl (trader)');
		// The page moves on by itself to the local `next` (the cookie is SameSite=Strict).
		expect(carl.body).toMatch(/http-equiv="refresh" content="0;url=\/alerts"/);
		expect(carl.headers['set-cookie']?.join(';')).toMatch(/gexdeck_session=.*SameSite=Strict/i);
		expect((await asUser(carl.session, '/api/tickers')).status).toBe(200);
		expect((await asUser(carl.session, '/admin')).status).toBe(403);

		const ann = await signIn('ann', '/admin');
		expect(ann.body).toContain('Welcome, ann (admin)');
		const admin = await asUser(ann.session, '/admin');
		expect(admin.status).toBe(200);
		expect(admin.body).toMatch(/data-user="carl"[\s\S]*?trader[\s\S]*?OIDC/);
		// An OIDC user has no password: the password form never signs carl in.
		const page = await rawRequest(app.port, 'GET', '/login');
		expect(page.body).toContain('Sign in with Test IdP');
		const csrf = setCookies(page.headers).gexdeck_csrf;
		for (const password of ['', 'anything at all']) {
			const form = await rawRequest(
				app.port,
				'POST',
				'/login?/login',
				{
					origin: app.base,
					accept: 'text/html',
					cookie: `gexdeck_csrf=${csrf}`,
					'content-type': 'application/x-www-form-urlencoded'
				},
				new URLSearchParams({ csrf, name: 'carl', password }).toString()
			);
			expect(form.status).toBe(401);
			expect(setCookies(form.headers).gexdeck_session).toBeUndefined();
		}
	});

	it('follows only a local next: a foreign one becomes /', async () => {
		const res = await signIn('carl', '//evil.example/x');
		expect(res.status).toBe(200);
		expect(res.body).toMatch(/content="0;url=\/"/);
		expect(res.body).not.toContain('evil.example');
	});

	it('refuses a callback with another sign-in’s state, or none', async () => {
		const mine = await begin();
		const theirs = await begin();
		const back = await atProvider(theirs.authUrl, 'carl');
		const crossed = await callback(back, mine.stateCookie);
		expect(crossed.status).toBe(403);
		expect(crossed.session).toBeUndefined();
		expect(crossed.body).toContain('could not be matched');
		const none = await callback(back, undefined);
		expect(none.status).toBe(403);
		expect(none.session).toBeUndefined();
	});

	it('refuses an ID token whose nonce is not the sign-in’s, and a changed PKCE challenge', async () => {
		const a = await begin();
		a.authUrl.searchParams.set('nonce', 'a-nonce-of-someone-else');
		const nonce = await callback(await atProvider(a.authUrl, 'carl'), a.stateCookie);
		expect(nonce.status).toBe(403);
		expect(nonce.session).toBeUndefined();
		expect(nonce.body).toMatch(/did not verify[^<]*nonce/i);

		const b = await begin();
		b.authUrl.searchParams.set('code_challenge', 'A'.repeat(43));
		const pkce = await callback(await atProvider(b.authUrl, 'carl'), b.stateCookie);
		expect(pkce.status).toBe(403);
		expect(pkce.session).toBeUndefined();
		expect(pkce.body).toContain('did not verify');
	});

	it('refuses a user whose claim maps to no role, with a page saying who can grant one', async () => {
		const olga = await signIn('olga');
		expect(olga.status).toBe(403);
		expect(olga.session).toBeUndefined();
		expect(olga.body).toContain('has no gexdeck role');
		expect(olga.body).toContain('admin at Test IdP');
		const ann = (await signIn('ann')).session!;
		expect((await asUser(ann, '/admin')).body).not.toContain('data-user="olga"');
		const log = await auditLog(ann);
		expect(log).toEqual(
			expect.arrayContaining([
				expect.objectContaining({
					action: 'failed sign-in',
					detail: 'through Test IdP: "olga" via OIDC: no mapped role'
				}),
				expect.objectContaining({
					action: 'failed sign-in',
					detail: 'through Test IdP: state mismatch'
				})
			])
		);
		expect(JSON.stringify(log)).not.toContain(idp.clientSecret);
	});

	it('takes the role the claim gives at each sign-in, and refuses a disabled user', async () => {
		idp.accounts.set('dora', { groups: ['desk-viewers'] });
		expect((await signIn('dora')).body).toContain('(viewer)');
		idp.accounts.set('dora', { groups: ['desk-viewers', 'desk-traders'] });
		expect((await signIn('dora')).body).toContain('(trader)');

		const ann = (await signIn('ann')).session!;
		const csrf = 'csrf-token-of-this-test';
		const off = await rawRequest(
			app.port,
			'POST',
			'/admin?/setDisabled',
			{
				origin: app.base,
				accept: 'text/html',
				cookie: `gexdeck_csrf=${csrf}; gexdeck_session=${ann}`,
				'content-type': 'application/x-www-form-urlencoded'
			},
			new URLSearchParams({ csrf, name: 'dora', disabled: 'true' }).toString()
		);
		expect(off.status).toBe(200);
		const refused = await signIn('dora');
		expect(refused.status).toBe(403);
		expect(refused.session).toBeUndefined();
		expect(refused.body).toContain('is disabled');
		expect(await auditLog(ann)).toEqual(
			expect.arrayContaining([
				expect.objectContaining({
					actor: 'oidc',
					action: 'role changed',
					detail: 'dora: viewer -> trader (groups at sign-in)'
				})
			])
		);
	});
});

describe('an OIDC misconfiguration stops the start, naming the variable', () => {
	const build = [join(root, 'build', 'index.js')];
	const base = () => ({
		HOST: '127.0.0.1',
		PORT: '0',
		ORIGIN: 'http://127.0.0.1:3999',
		GEXDECK_DATA_DIR: mkdtempSync(join(tmpdir(), 'gexdeck-oidc-')),
		...stub.env
	});

	it('a role map that is not value=role', async () => {
		const { code, output } = await runToExit(build, {
			...base(),
			...idp.env,
			GEXDECK_OIDC_ROLES: 'desk-admins=root'
		});
		expect(code).not.toBe(0);
		expect(output).toContain('GEXDECK_OIDC_ROLES: "desk-admins=root" is not value=role');
	});

	it('an issuer whose discovery document cannot be read', async () => {
		const { code, output } = await runToExit(build, {
			...base(),
			...idp.env,
			GEXDECK_OIDC_ISSUER: `${idp.issuer}/no-such-realm`
		});
		expect(code).not.toBe(0);
		expect(output).toContain(`GEXDECK_OIDC_ISSUER=${idp.issuer}/no-such-realm`);
	});
});
