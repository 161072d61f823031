/**
 * The request gate's decisions (pure: policy + request in, verdict out), the one cookie parser
 * and the CSRF check. The same gate over real sockets: tests/integration/dashboard-gate.test.ts.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createSession, SESSION_COOKIE } from './auth';
import { parseCookies } from './cookies';
import {
	bindRefusal,
	checkRequest,
	csrfFailure,
	isLoopbackAddress,
	proxyRefusal,
	type GatePolicy
} from './requestGate';
import { local, open } from './requestGate.test-support';

const locked: GatePolicy = { passwordRequired: true };

describe('cookie parser', () => {
	it('reads cookies and survives malformed percent-encodings', () => {
		expect(parseCookies('a=1; b=%41%42; c="q"').get('b')).toBe('AB');
		expect(parseCookies('gexdeck_session=%').get('gexdeck_session')).toBe('%');
		expect(parseCookies('x=%E0%A4%A').get('x')).toBe('%E0%A4%A');
		expect(parseCookies('a=1; a=2').get('a')).toBe('1');
		expect(parseCookies(undefined).size).toBe(0);
		expect(parseCookies(['a=1', 'b=2']).get('b')).toBe('2');
	});

	it('never throws on arbitrary bytes (fast-check)', () => {
		fc.assert(
			fc.property(fc.string({ unit: 'binary' }), fc.string({ unit: 'binary' }), (a, b) => {
				const header = `${a}; gexdeck_session=${b}; ${b}=${a}`;
				const cookies = parseCookies(header);
				for (const v of cookies.values()) expect(typeof v).toBe('string');
			}),
			{ numRuns: 3000 }
		);
	});
});

describe('request gate', () => {
	it('answers loopback requests to loopback names on the bound port', () => {
		for (const host of ['127.0.0.1:3000', 'localhost:3000', 'LOCALHOST:3000']) {
			expect(checkRequest(local({ host }), open).ok).toBe(true);
		}
		expect(
			checkRequest(local({ host: '[::1]:3000', localAddress: '::1', clientAddress: '::1' }), open)
				.ok
		).toBe(true);
		// A dual-stack socket reports IPv4 loopback as ::ffff:127.0.0.1.
		expect(checkRequest(local({ localAddress: '::ffff:127.0.0.1' }), open).ok).toBe(true);
	});

	it('refuses a DNS-rebinding Host with 421 and a foreign Origin with 403', () => {
		const rebound = checkRequest(local({ host: 'evil.example:3000' }), open);
		expect(rebound).toMatchObject({ ok: false, status: 421 });
		expect(!rebound.ok && rebound.error).toMatch(/does not answer to the host "evil.example:3000"/);
		for (const host of [
			'127.0.0.1:3001',
			'evil.example@127.0.0.1:3000',
			'127.0.0.1:3000/x',
			'',
			undefined
		]) {
			expect(checkRequest(local({ host }), open)).toMatchObject({ ok: false, status: 421 });
		}
		for (const origin of [
			'http://evil.example:3000',
			'null',
			'file://',
			'%',
			'http://127.0.0.1:9'
		]) {
			expect(checkRequest(local({ origin }), open)).toMatchObject({ ok: false, status: 403 });
		}
		expect(checkRequest(local({ origin: 'http://localhost:3000' }), open).ok).toBe(true);
	});

	it('accepts the ORIGIN host, the bound HOST name and the literal address arrived on', () => {
		const behindProxy: GatePolicy = { passwordRequired: true, originHost: 'dash.example.com' };
		const session = createSession();
		const req = local({
			host: 'dash.example.com',
			origin: 'https://dash.example.com',
			cookie: `${SESSION_COOKIE}=${session}`,
			clientAddress: '203.0.113.9'
		});
		expect(checkRequest(req, behindProxy).ok).toBe(true);
		const lan = { localAddress: '192.168.1.5', clientAddress: '192.168.1.7' };
		expect(checkRequest(local({ ...lan, host: '192.168.1.5:3000' }), locked).ok).toBe(false);
		expect(
			checkRequest(
				local({ ...lan, host: '192.168.1.5:3000', cookie: `${SESSION_COOKIE}=${session}` }),
				locked
			).ok
		).toBe(true);
		expect(
			checkRequest(
				local({ ...lan, host: 'gex.lan:3000', cookie: `${SESSION_COOKIE}=${session}` }),
				{ passwordRequired: true, bindHost: 'gex.lan' }
			).ok
		).toBe(true);
	});

	it('refuses network requests without a password, whatever HOST said', () => {
		const viaNetwork = checkRequest(
			local({ localAddress: '10.0.0.2', clientAddress: '10.0.0.3', host: '10.0.0.2:3000' }),
			open
		);
		expect(viaNetwork).toMatchObject({ ok: false, status: 403 });
		// Behind a reverse proxy on this machine, the forwarded client address tells.
		expect(checkRequest(local({ clientAddress: '198.51.100.4' }), open)).toMatchObject({
			ok: false,
			status: 403
		});
	});

	it('needs a session when a password is set; only /login itself is public', () => {
		expect(checkRequest(local(), locked)).toMatchObject({ ok: false, status: 401 });
		expect(checkRequest(local({ pathname: '/login' }), locked)).toMatchObject({
			ok: true,
			authenticated: false
		});
		for (const pathname of ['/login/classic/gex_full', '/login/', '/loginx', '/api/login']) {
			expect(checkRequest(local({ pathname }), locked)).toMatchObject({ ok: false, status: 401 });
		}
		const cookie = `${SESSION_COOKIE}=${createSession()}`;
		expect(checkRequest(local({ cookie }), locked)).toMatchObject({
			ok: true,
			authenticated: true
		});
		for (const bad of ['%', '%E0%A4%A', '"', '=;=;', `${'%'.repeat(5000)}`]) {
			expect(checkRequest(local({ cookie: `${SESSION_COOKIE}=${bad}` }), locked)).toMatchObject({
				ok: false,
				status: 401
			});
		}
	});

	it('never throws on arbitrary headers (fast-check)', () => {
		const text = fc.option(fc.string({ unit: 'binary' }), { nil: undefined });
		fc.assert(
			fc.property(text, text, text, fc.string({ unit: 'binary' }), (host, origin, cookie, path) => {
				for (const policy of [open, locked]) {
					const v = checkRequest(local({ host, origin, cookie, pathname: path }), policy);
					if (!v.ok) expect([401, 403, 421]).toContain(v.status);
				}
			}),
			{ numRuns: 3000 }
		);
	});

	it('tells which binds need a password', () => {
		expect(bindRefusal('127.0.0.1', false)).toBeUndefined();
		expect(bindRefusal('localhost', false)).toBeUndefined();
		expect(bindRefusal('::1', false)).toBeUndefined();
		expect(bindRefusal('0.0.0.0', false)).toMatch(/GEXDECK_PASSWORD/);
		expect(bindRefusal('::', false)).toMatch(/GEXDECK_PASSWORD/);
		expect(bindRefusal('0.0.0.0', true)).toBeUndefined();
		expect(isLoopbackAddress('[::1]')).toBe(true);
		expect(isLoopbackAddress('127.1.2.3')).toBe(true);
		expect(isLoopbackAddress('128.0.0.1')).toBe(false);
	});

	it('tells which proxy settings need a password: a public ORIGIN or ADDRESS_HEADER', () => {
		expect(proxyRefusal({ origin: 'https://gex.example.test' })).toMatch(
			/ORIGIN=https:\/\/gex\.example\.test .*GEXDECK_PASSWORD is not set/
		);
		expect(proxyRefusal({ addressHeader: 'x-forwarded-for' })).toMatch(/ADDRESS_HEADER=/);
		expect(proxyRefusal({ origin: 'http://127.0.0.1:3000' })).toBeUndefined();
		expect(proxyRefusal({ origin: 'http://localhost:3000' })).toBeUndefined();
		expect(proxyRefusal({})).toBeUndefined();
		expect(
			proxyRefusal({ password: 'pw', origin: 'https://gex.example.test', addressHeader: 'x' })
		).toBeUndefined();
	});
});

describe('CSRF', () => {
	const post = (headers: Record<string, string>, body?: string) =>
		new Request('http://127.0.0.1:3000/account?/saveKeys', {
			method: 'POST',
			headers: { host: '127.0.0.1:3000', ...headers },
			body
		});
	const form = { 'content-type': 'application/x-www-form-urlencoded' };
	const origin = { origin: 'http://127.0.0.1:3000' };

	it('lets safe methods through', async () => {
		expect(await csrfFailure(new Request('http://x/'), undefined)).toBeUndefined();
	});

	it('needs the origin named and the token in a header or form field', async () => {
		expect(await csrfFailure(post({ ...origin, 'x-csrf-token': 'tok' }), 'tok')).toBeUndefined();
		expect(await csrfFailure(post({ ...origin, ...form }, 'csrf=tok&a=1'), 'tok')).toBeUndefined();
		expect(await csrfFailure(post({ ...origin, ...form }, 'csrf=nope'), 'tok')).toMatch(/token/);
		expect(await csrfFailure(post({ ...origin }), 'tok')).toMatch(/token/);
		expect(await csrfFailure(post({ 'x-csrf-token': 'tok' }), 'tok')).toMatch(/cross-origin/);
		expect(
			await csrfFailure(
				post({ 'sec-fetch-site': 'cross-site', ...origin, 'x-csrf-token': 'tok' }),
				'tok'
			)
		).toMatch(/cross-origin/);
		expect(
			await csrfFailure(post({ 'sec-fetch-site': 'same-origin', 'x-csrf-token': 'tok' }), 'tok')
		).toBeUndefined();
		expect(await csrfFailure(post({ ...origin, 'x-csrf-token': 'tok' }), undefined)).toMatch(
			/token/
		);
	});

	it('treats a malformed multipart body as carrying no token (403, not 500)', async () => {
		const bad = post(
			{ ...origin, 'content-type': 'multipart/form-data; boundary=x' },
			'--y\r\ngarbage'
		);
		expect(await csrfFailure(bad, 'tok')).toMatch(/token/);
	});

	it('the gate refuses a cross-origin form before CSRF is even asked', () => {
		expect(
			checkRequest(local({ method: 'POST', origin: 'http://evil.example' }), open)
		).toMatchObject({ ok: false, status: 403 });
	});
});
