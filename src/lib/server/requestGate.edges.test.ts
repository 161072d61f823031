/**
 * The request gate at its edges (what `npm run mutate` found untested): loopback spellings, the
 * Host and Origin forms a browser may send, the policy read from the configuration, the client
 * address behind a proxy, the CSRF token's carriers, and the server guard's upgrade answers.
 */
import { request as httpRequest, createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createSession, SESSION_COOKIE } from './auth';
import {
	bindRefusal,
	checkRequest,
	csrfFailure,
	CSRF_COOKIE,
	guardHttpServer,
	guardProcess,
	isLoopbackAddress,
	isSafeMethod,
	newCsrfToken,
	PUBLIC_PATHS,
	refusalBody,
	type GatePolicy
} from './requestGate';
import { local, open } from './requestGate.test-support';

const session = () => `${SESSION_COOKIE}=${createSession()}`;
const errorOf = (v: ReturnType<typeof checkRequest>) => (v.ok ? '' : v.error);

afterEach(() => {
	vi.doUnmock('$env/dynamic/private');
	vi.resetModules();
	vi.restoreAllMocks();
});

/**
 * The gate over a given environment: the configuration is read once from SvelteKit's private
 * environment, so each gets a fresh module graph.
 */
async function gateWithEnv(env: Record<string, string>) {
	vi.resetModules();
	vi.doMock('$env/dynamic/private', () => ({ env }));
	return import('./requestGate');
}

describe('loopback', () => {
	it('knows loopback in every spelling, and nothing that merely contains it', () => {
		for (const a of ['127.0.0.1', ' 127.0.0.1 ', '127.255.0.10', 'LOCALHOST', '[::1]', '::1']) {
			expect(isLoopbackAddress(a), a).toBe(true);
		}
		expect(isLoopbackAddress('::ffff:127.0.0.1')).toBe(true);
		for (const a of [
			'x127.0.0.1',
			'127.0.0.1.evil.example',
			'127.0.0.1000',
			'127.0.0',
			'[localhostx',
			'localhost]',
			'10.0.0.1',
			'::2',
			''
		]) {
			expect(isLoopbackAddress(a), a).toBe(false);
		}
	});

	it('names the host it refuses to bind, and the way out', () => {
		expect(bindRefusal('', false)).toBe(
			"gexdeck: HOST=0.0.0.0 would expose the dashboard (and your API key's quota) to the network. Set GEXDECK_PASSWORD to require a login, or leave HOST unset to stay on 127.0.0.1."
		);
		expect(bindRefusal('192.168.1.5', false)).toMatch(/^gexdeck: HOST=192\.168\.1\.5 would/);
		expect(bindRefusal('192.168.1.5', true)).toBeUndefined();
		expect(bindRefusal('::1', false)).toBeUndefined();
	});
});

describe('Host and Origin forms', () => {
	it('accepts a default port left out, and refuses it on another port', () => {
		expect(checkRequest(local({ host: 'localhost', localPort: 80 }), open).ok).toBe(true);
		expect(checkRequest(local({ host: 'localhost:80', localPort: 80 }), open).ok).toBe(true);
		expect(checkRequest(local({ host: 'localhost' }), open).ok).toBe(false);
		expect(
			checkRequest(
				local({ origin: 'https://localhost', localPort: 443, host: 'localhost:443' }),
				open
			).ok
		).toBe(true);
		expect(
			checkRequest(local({ origin: 'https://localhost', localPort: 80, host: 'localhost' }), open)
				.ok
		).toBe(false);
		// No local port known (a test server without one): any port of a loopback name.
		expect(checkRequest(local({ host: 'localhost:8123', localPort: undefined }), open).ok).toBe(
			true
		);
		expect(checkRequest(local({ host: ' LocalHost:3000 ' }), open).ok).toBe(true);
		expect(checkRequest(local({ host: 'localhost:3000#x' }), open).ok).toBe(false);
		expect(checkRequest(local({ host: 'local host:3000' }), open).ok).toBe(false);
		expect(checkRequest(local({ host: '[::1:3000' }), open).ok).toBe(false);
		// Spellings a URL parser would normalise to loopback are not this dashboard's names.
		for (const host of ['127.0.0.1:03000', '0x7f.1:3000', '2130706433:3000', '127.1:3000']) {
			expect(checkRequest(local({ host }), open).ok, host).toBe(false);
		}
		// No local address known: only names, never a crash.
		expect(
			checkRequest(local({ localAddress: undefined, host: '10.0.0.5:3000', cookie: session() }), {
				passwordRequired: true
			})
		).toMatchObject({ status: 421 });
	});

	it('the ORIGIN host alone does not open the door to others', () => {
		const proxied: GatePolicy = { passwordRequired: true, originHost: 'dash.example.com' };
		const req = (host: string) => local({ host, cookie: session(), clientAddress: '203.0.113.9' });
		expect(checkRequest(req('dash.example.com'), proxied).ok).toBe(true);
		expect(checkRequest(req('evil.example:3000'), proxied)).toMatchObject({ status: 421 });
		expect(checkRequest(req('evil.example:3000'), { passwordRequired: true })).toMatchObject({
			status: 421
		});
		expect(checkRequest(req('dash.example.com:3000'), proxied)).toMatchObject({ status: 421 });
	});

	it('accepts a bound IPv6 name and the literal address arrived on, brackets or not', () => {
		const locked: GatePolicy = { passwordRequired: true, bindHost: 'fe80::1' };
		const lan = { cookie: session(), clientAddress: 'fe80::2', localAddress: 'fe80::9' };
		expect(checkRequest(local({ ...lan, host: '[fe80::1]:3000' }), locked).ok).toBe(true);
		expect(checkRequest(local({ ...lan, host: '[fe80::9]:3000' }), locked).ok).toBe(true);
		expect(checkRequest(local({ ...lan, host: '[fe80::3]:3000' }), locked).ok).toBe(false);
		const v4 = { cookie: session(), clientAddress: '10.0.0.7', localAddress: '::FFFF:10.0.0.5' };
		expect(
			checkRequest(local({ ...v4, host: '10.0.0.5:3000' }), { passwordRequired: true }).ok
		).toBe(true);
		expect(
			checkRequest(local({ ...v4, host: '10.0.0.6:3000' }), { passwordRequired: true }).ok
		).toBe(false);
	});

	it('says why, with the header shown printable and short', () => {
		expect(errorOf(checkRequest(local({ clientAddress: '203.0.113.1' }), open))).toBe(
			'gexdeck answers only on this machine (loopback) unless GEXDECK_PASSWORD is set; this request came over the network.'
		);
		expect(
			errorOf(checkRequest(local({ host: 'evil\u0001.example', localPort: undefined }), open))
		).toBe(
			'Misdirected request: this dashboard does not answer to the host "evil?.example". Open it as http://127.0.0.1:3000/, or set ORIGIN to the URL it is served under.'
		);
		const long = `${'a'.repeat(100)}.example`;
		expect(errorOf(checkRequest(local({ host: long, localPort: 4000 }), open))).toContain(
			`"${'a'.repeat(80)}…". Open it as http://127.0.0.1:4000/`
		);
		expect(errorOf(checkRequest(local({ host: 'a'.repeat(80) }), open))).toContain(
			`"${'a'.repeat(80)}"`
		);
		expect(errorOf(checkRequest(local({ origin: 'ftp://127.0.0.1:3000' }), open))).toBe(
			'Cross-origin request refused: Origin "ftp://127.0.0.1:3000" is not this dashboard.'
		);
		expect(errorOf(checkRequest(local(), { passwordRequired: true }))).toBe('Log in first.');
		expect(refusalBody({ error: 'Log in first.' })).toBe('{"error":"Log in first."}');
		expect([...PUBLIC_PATHS].sort()).toEqual([
			'/healthz',
			'/login',
			'/login/oidc',
			'/login/oidc/callback',
			'/readyz'
		]);
		for (const pathname of PUBLIC_PATHS) {
			expect(checkRequest(local({ pathname }), { passwordRequired: true }).ok).toBe(true);
		}
	});
});

describe('policy and client address from the configuration', () => {
	const gateWith = gateWithEnv;
	const incoming = (headers: Record<string, string>, remoteAddress = '127.0.0.1') =>
		({
			method: 'GET',
			headers,
			socket: { remoteAddress, localAddress: '127.0.0.1', localPort: 3000 }
		}) as unknown as IncomingMessage;

	it('reads HOST (wildcards mean none), the password and the ORIGIN host', async () => {
		let gate = await gateWith({
			HOST: ' 0.0.0.0 ',
			GEXDECK_PASSWORD: 'pw',
			ORIGIN: 'https://Dash.Example.com'
		});
		expect(gate.currentPolicy()).toEqual({
			passwordRequired: true,
			teams: false,
			originHost: 'dash.example.com',
			bindHost: undefined
		});
		for (const host of ['::', '[::]']) {
			gate = await gateWith({ HOST: host, GEXDECK_PASSWORD: 'pw' });
			expect(gate.currentPolicy().bindHost, host).toBeUndefined();
		}
		gate = await gateWith({ HOST: ' Gex.LAN ', GEXDECK_PASSWORD: '' });
		expect(gate.currentPolicy()).toEqual({
			passwordRequired: false,
			teams: false,
			originHost: undefined,
			bindHost: 'gex.lan'
		});
	});

	it('takes the client address from ADDRESS_HEADER at XFF_DEPTH from the right, else the socket', async () => {
		let gate = await gateWith({ ADDRESS_HEADER: 'X-Forwarded-For', XFF_DEPTH: '2' });
		const xff = { 'x-forwarded-for': ' 198.51.100.1 , 203.0.113.5 , 127.0.0.1 ' };
		expect(gate.clientAddressOf(incoming(xff))).toBe('203.0.113.5');
		// Fewer entries than the depth: the leftmost.
		expect(gate.clientAddressOf(incoming({ 'x-forwarded-for': ' 203.0.113.6 ' }))).toBe(
			'203.0.113.6'
		);
		expect(gate.clientAddressOf(incoming({}, '10.1.1.1'))).toBe('10.1.1.1');
		gate = await gateWith({ ADDRESS_HEADER: 'x-real-ip' });
		expect(gate.clientAddressOf(incoming({ 'x-real-ip': ' 203.0.113.8 ' }))).toBe('203.0.113.8');
		// Only X-Forwarded-For is a list; another header is taken whole.
		expect(gate.clientAddressOf(incoming({ 'x-real-ip': '203.0.113.8, 10.0.0.1' }))).toBe(
			'203.0.113.8, 10.0.0.1'
		);
		gate = await gateWith({});
		expect(gate.clientAddressOf(incoming({ 'x-forwarded-for': '203.0.113.9' }))).toBe('127.0.0.1');
	});

	it('checks a raw node request with its own headers and socket', async () => {
		const gate = await gateWith({ ADDRESS_HEADER: 'x-forwarded-for' });
		const ok = gate.checkNodeRequest(incoming({ host: '127.0.0.1:3000' }), '/api/tickers');
		expect(ok.ok).toBe(true);
		const forwarded = gate.checkNodeRequest(
			incoming({ host: '127.0.0.1:3000', 'x-forwarded-for': '203.0.113.5' }),
			'/api/tickers'
		);
		expect(forwarded).toMatchObject({ ok: false, status: 403 });
		expect(gate.checkNodeRequest(incoming({ host: 'evil.example:3000' }), '/stream')).toMatchObject(
			{ ok: false, status: 421 }
		);
		expect(
			gate.checkNodeRequest(
				incoming({ host: '127.0.0.1:3000', origin: 'http://evil.example' }),
				'/stream'
			)
		).toMatchObject({ ok: false, status: 403 });
		const cookies = gate.checkNodeRequest(
			incoming({ host: '127.0.0.1:3000', cookie: 'a=1' }),
			'/'
		).cookies;
		expect(cookies.get('a')).toBe('1');
	});
});

describe('CSRF', () => {
	const post = (headers: Record<string, string>, body?: BodyInit, method = 'POST') =>
		new Request('http://127.0.0.1:3000/alerts', { method, headers, body });
	let token = '';

	it('makes fresh url-safe tokens; safe methods need none', async () => {
		token = newCsrfToken();
		expect(token).toMatch(/^[A-Za-z0-9_-]{32}$/);
		expect(newCsrfToken()).not.toBe(token);
		expect(CSRF_COOKIE).toBe('gexdeck_csrf');
		for (const m of ['GET', 'HEAD', 'OPTIONS']) expect(isSafeMethod(m)).toBe(true);
		for (const m of ['POST', 'PUT', 'DELETE', 'PATCH', 'get']) expect(isSafeMethod(m)).toBe(false);
		expect(await csrfFailure(post({}, undefined, 'OPTIONS'), undefined)).toBeUndefined();
		expect(await csrfFailure(post({}, undefined, 'PUT'), token)).toBe(
			'cross-origin request refused'
		);
	});

	it('reads the token from urlencoded and multipart forms, not from other bodies', async () => {
		const origin = { origin: 'http://127.0.0.1:3000' };
		const urlencoded = post(
			{ ...origin, 'content-type': 'application/x-www-form-urlencoded;charset=UTF-8' },
			`csrf=${token}`
		);
		expect(await csrfFailure(urlencoded, token)).toBeUndefined();
		const form = new FormData();
		form.set('csrf', token);
		expect(await csrfFailure(post(origin, form), token)).toBeUndefined();
		// A file named csrf is no token.
		const file = new FormData();
		file.set('csrf', new Blob([token]), 'csrf.txt');
		expect(await csrfFailure(post(origin, file), token)).toBe('missing or wrong CSRF token');
		const json = post(
			{ ...origin, 'content-type': 'application/json' },
			JSON.stringify({ csrf: token })
		);
		expect(await csrfFailure(json, token)).toBe('missing or wrong CSRF token');
		const plain = post({ ...origin, 'content-type': 'text/plain' }, `csrf=${token}`);
		expect(await csrfFailure(plain, token)).toBe('missing or wrong CSRF token');
		const untyped = post(origin, `csrf=${token}`);
		expect(await csrfFailure(untyped, token)).toBe('missing or wrong CSRF token');
	});
});

describe('the http.Server guard', () => {
	it('answers an unclaimed upgrade 404 and leaves a claimed one to its endpoint', async () => {
		const server = createServer();
		const claimed: string[] = [];
		server.on('upgrade', (req: IncomingMessage, socket: Socket) => {
			if (req.url?.split('?')[0] === '/stream') {
				claimed.push(req.url);
				socket.end('HTTP/1.1 418 Claimed\r\nconnection: close\r\n\r\n');
			}
		});
		await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
		guardHttpServer(server, ['/stream']);
		const port = (server.address() as AddressInfo).port;
		const upgrade = (path: string) =>
			new Promise<number>((resolve, reject) => {
				const req = httpRequest({
					host: '127.0.0.1',
					port,
					path,
					headers: { connection: 'Upgrade', upgrade: 'websocket' }
				});
				req.on('response', (res) => resolve(res.statusCode ?? 0));
				req.on('upgrade', (res) => resolve(res.statusCode ?? 0));
				req.on('error', reject);
				req.end();
			});
		try {
			expect(await upgrade('/nope')).toBe(404);
			expect(await upgrade('/stream?x=1')).toBe(418);
			expect(await upgrade('/streams')).toBe(404);
			expect(claimed).toEqual(['/stream?x=1']);
		} finally {
			await new Promise<void>((r) => server.close(() => r()));
		}
	});

	it('stops the process when the server turns out bound to the network without a password', async () => {
		const gate = await gateWithEnv({});
		const exit = vi.spyOn(process, 'exit').mockImplementation((() => undefined) as never);
		const error = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
		// Server stand-ins: only what the guard reads (no socket is bound).
		const fake = (address: unknown, listening: boolean) => {
			const listeners: (() => void)[] = [];
			return {
				listening,
				address: () => address,
				prependListener: () => undefined,
				on: (_event: string, fn: () => void) => listeners.push(fn),
				emitListening: () => listeners.forEach((fn) => fn())
			};
		};
		const asServer = (f: ReturnType<typeof fake>) => f as unknown as Server;
		gate.guardHttpServer(asServer(fake({ address: '127.0.0.1', port: 1 }, true)), []);
		gate.guardHttpServer(asServer(fake('/tmp/gexdeck.sock', true)), []);
		gate.guardHttpServer(asServer(fake(null, true)), []);
		expect(exit).not.toHaveBeenCalled();
		const later = fake({ address: '0.0.0.0', port: 1 }, false);
		gate.guardHttpServer(asServer(later), []);
		expect(exit).not.toHaveBeenCalled();
		later.emitListening();
		expect(exit).toHaveBeenCalledWith(1);
		gate.guardHttpServer(asServer(fake({ address: '192.168.1.5', port: 1 }, true)), []);
		expect(exit).toHaveBeenCalledTimes(2);
		expect(error.mock.calls.flat().join(' ')).toContain('HOST=0.0.0.0 would expose');
	});

	it('installs one unhandled-rejection logger however often it is called', () => {
		const before = process.listenerCount('unhandledRejection');
		guardProcess();
		guardProcess();
		expect(process.listenerCount('unhandledRejection')).toBe(before + 1);
	});
});
