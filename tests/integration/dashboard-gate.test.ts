/**
 * The request gate over real sockets, on the built dashboard: DNS rebinding (a foreign Host gets
 * 421, a foreign Origin 403) on every entry point (pages, forms, the /api fast path, the /stream
 * upgrade); only /login is public; `next` after login stays on this site; HSTS under an https
 * ORIGIN; a proxy setting (ORIGIN, ADDRESS_HEADER) without a password refuses to start; and safe
 * defaults however the server is started (`npm start`, `node build`).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
	logIn,
	rawRequest,
	runToExit,
	setCookies,
	startDashboard,
	startStubUpstream,
	upgradeStatus,
	type RawAnswer,
	type RunningDashboard,
	type StubUpstream
} from './dashboard-support';

let stub: StubUpstream;
const running: RunningDashboard[] = [];

beforeAll(async () => {
	stub = await startStubUpstream();
}, 60_000);

afterAll(async () => {
	await Promise.all(running.map((d) => d.stop()));
	await stub?.close();
});

/** The lower-cased attributes (`secure`, `samesite=strict`, ...) of the cookie `name` set by an answer. */
function cookieAttributes(headers: RawAnswer['headers'], name: string): string[] {
	const line = ([] as string[])
		.concat(headers['set-cookie'] ?? [])
		.find((c) => c.startsWith(`${name}=`));
	expect(line, `Set-Cookie ${name}`).toBeDefined();
	return line!
		.split(';')
		.slice(1)
		.map((a) => a.trim().toLowerCase());
}

async function dashboard(
	env: Record<string, string | undefined> = {},
	entry: 'start' | 'build' | 'preview' = 'start'
): Promise<RunningDashboard> {
	const d = await startDashboard({ ...stub.env, ...env }, entry);
	running.push(d);
	return d;
}

describe('loopback dashboard without a password (DNS rebinding)', () => {
	let d: RunningDashboard;
	beforeAll(async () => {
		d = await dashboard();
	}, 240_000);

	it('answers its own names', async () => {
		for (const host of [`127.0.0.1:${d.port}`, `localhost:${d.port}`]) {
			expect((await rawRequest(d.port, 'GET', '/api/tickers', { host })).status).toBe(200);
			expect((await rawRequest(d.port, 'GET', '/account', { host })).status).toBe(200);
		}
		expect(
			(await upgradeStatus(d.port, '/stream', { origin: `http://localhost:${d.port}` })).status
		).toBe(101);
	});

	it('refuses a foreign Host with 421 on pages, forms, /api and /stream', async () => {
		const host = `evil.example:${d.port}`;
		for (const [method, path] of [
			['GET', '/api/whoami'],
			['GET', '/api/tickers'],
			['GET', '/account'],
			['GET', '/'],
			['POST', '/account?/switchAccount']
		]) {
			const res = await rawRequest(d.port, method, path, { host });
			expect(res.status, `${method} ${path}`).toBe(421);
			expect(JSON.parse(res.body).error).toMatch(/does not answer to the host "evil.example/);
			// The CSRF token of /account is never handed to the rebinding page.
			expect(res.body).not.toMatch(/name="csrf"/);
		}
		expect((await upgradeStatus(d.port, '/stream', { host })).status).toBe(421);
	});

	it('refuses a foreign Origin with 403, also on the /stream upgrade', async () => {
		const origin = `http://evil.example:${d.port}`;
		expect((await rawRequest(d.port, 'GET', '/api/tickers', { origin })).status).toBe(403);
		const page = await rawRequest(d.port, 'GET', '/account');
		const csrf = setCookies(page.headers).gexdeck_csrf;
		const form = await rawRequest(
			d.port,
			'POST',
			'/account?/switchAccount',
			{
				origin,
				cookie: `gexdeck_csrf=${csrf}`,
				'content-type': 'application/x-www-form-urlencoded'
			},
			`csrf=${csrf}&account=x`
		);
		expect(form.status).toBe(403);
		expect(JSON.parse(form.body).error).toMatch(/Cross-origin request refused/);
		expect((await upgradeStatus(d.port, '/stream', { origin })).status).toBe(403);
	});

	it('sends no HSTS over plain http', async () => {
		const res = await rawRequest(d.port, 'GET', '/api/tickers');
		expect(res.headers['strict-transport-security']).toBeUndefined();
	});
});

describe('password-protected dashboard', () => {
	let d: RunningDashboard;
	let session: string;
	beforeAll(async () => {
		d = await dashboard({ GEXDECK_PASSWORD: 'correct horse' });
		session = (await logIn(d, 'correct horse', '/')).session as string;
	}, 240_000);

	it('makes only /login itself public', async () => {
		expect((await rawRequest(d.port, 'GET', '/login')).status).toBe(200);
		const page = await rawRequest(d.port, 'GET', '/login/classic/gex_full');
		expect(page.status).toBe(303);
		expect(page.headers.location).toBe('/login?next=%2Flogin%2Fclassic%2Fgex_full');
		expect((await rawRequest(d.port, 'GET', '/api/tickers')).status).toBe(401);
		// A client-side navigation gets SvelteKit's JSON redirect to the login, and no data.
		const data = await rawRequest(d.port, 'GET', '/login/classic/gex_full/__data.json');
		expect(JSON.parse(data.body)).toEqual({
			type: 'redirect',
			location: '/login?next=%2Flogin%2Fclassic%2Fgex_full'
		});
	});

	it('answers a malformed session cookie with 401 and stays up', async () => {
		for (const cookie of ['gexdeck_session=%', 'gexdeck_session=%E0%A4%A', 'gexdeck_session="']) {
			expect((await rawRequest(d.port, 'GET', '/api/tickers', { cookie })).status).toBe(401);
			expect((await upgradeStatus(d.port, '/stream', { cookie })).status).toBe(401);
			expect((await rawRequest(d.port, 'GET', '/account', { cookie })).status).toBe(303);
		}
		expect(d.proc.exitCode).toBeNull();
		expect(
			(await rawRequest(d.port, 'GET', '/api/tickers', { cookie: `gexdeck_session=${session}` }))
				.status
		).toBe(200);
	});

	it('sets its cookies HttpOnly and SameSite=Strict, not Secure on plain http', async () => {
		const { answer, headers } = await logIn(d, 'correct horse');
		for (const [h, name] of [
			[answer.headers, 'gexdeck_session'],
			[(await rawRequest(d.port, 'GET', '/login')).headers, 'gexdeck_csrf']
		] as const) {
			const attrs = cookieAttributes(h, name);
			expect(attrs, name).toEqual(expect.arrayContaining(['httponly', 'samesite=strict']));
			expect(attrs, name).not.toContain('secure');
		}
		expect(headers.origin).toBe(d.base);
	});

	it('logging out ends the session', async () => {
		const { csrf, headers: form, session: own } = await logIn(d, 'correct horse');
		const cookie = `gexdeck_session=${own}; gexdeck_csrf=${csrf}`;
		expect((await rawRequest(d.port, 'GET', '/api/tickers', { cookie })).status).toBe(200);
		const out = await rawRequest(
			d.port,
			'POST',
			'/login?/logout',
			{ ...form, cookie },
			new URLSearchParams({ csrf }).toString()
		);
		expect(out.status).toBe(303);
		expect((await rawRequest(d.port, 'GET', '/api/tickers', { cookie })).status).toBe(401);
	});

	it('after login goes only to a path of this site', async () => {
		const login = async (next: string) => (await logIn(d, 'correct horse', next)).answer;
		for (const next of ['/\t/evil.example', '/\r\n/evil.example', '//evil.example', '/\\evil']) {
			const res = await login(next);
			expect(res.status, JSON.stringify(next)).toBe(303);
			expect(res.headers.location).toBe('/');
		}
		expect((await login('/account?tab=keys')).headers.location).toBe('/account?tab=keys');
		// Already signed in, /login forwards to `next` at once: the same rule applies.
		const cookie = `gexdeck_session=${session}`;
		for (const q of ['next=/%09/evil.example', 'next=/%0d%0aSet-Cookie:x=1', 'next=%5C%5Cevil']) {
			const res = await rawRequest(d.port, 'GET', `/login?${q}`, { cookie });
			expect(res.status, q).toBe(303);
			expect(res.headers.location, q).toBe('/');
		}
		// Not signed in: the page renders with a safe hidden `next`.
		const anon = await rawRequest(d.port, 'GET', '/login?next=/%09/evil.example');
		expect(anon.status).toBe(200);
		expect(anon.body).toContain('name="next" value="/"');
	});
});

describe('https ORIGIN behind a reverse proxy', () => {
	it('accepts the public host, sends HSTS, refuses other hosts', async () => {
		const d = await dashboard({
			ORIGIN: 'https://dash.example.com',
			GEXDECK_PASSWORD: 'pw',
			ADDRESS_HEADER: 'x-forwarded-for',
			XFF_DEPTH: '1'
		});
		const api = await rawRequest(d.port, 'GET', '/login', {
			host: 'dash.example.com',
			origin: 'https://dash.example.com',
			'x-forwarded-for': '203.0.113.7'
		});
		expect(api.status).toBe(200);
		expect(api.headers['strict-transport-security']).toMatch(/max-age=\d+/);
		expect((await rawRequest(d.port, 'GET', '/login', { host: 'evil.example' })).status).toBe(421);

		// Both cookies are Secure (and HttpOnly, SameSite=Strict) under the https ORIGIN.
		const csrfCookie = cookieAttributes(api.headers, 'gexdeck_csrf');
		expect(csrfCookie).toEqual(expect.arrayContaining(['secure', 'httponly', 'samesite=strict']));
		const csrf = setCookies(api.headers).gexdeck_csrf;
		const login = await rawRequest(
			d.port,
			'POST',
			'/login?/login',
			{
				host: 'dash.example.com',
				origin: 'https://dash.example.com',
				'x-forwarded-for': '203.0.113.7',
				accept: 'text/html',
				cookie: `gexdeck_csrf=${csrf}`,
				'content-type': 'application/x-www-form-urlencoded'
			},
			new URLSearchParams({ csrf, password: 'pw' }).toString()
		);
		expect(login.status).toBe(303);
		expect(cookieAttributes(login.headers, 'gexdeck_session')).toEqual(
			expect.arrayContaining(['secure', 'httponly', 'samesite=strict', 'path=/'])
		);
	});
});

describe('reverse proxy on this machine without a password', () => {
	it('ORIGIN (a public host) or ADDRESS_HEADER without GEXDECK_PASSWORD refuses to start, saying why', async () => {
		for (const env of [
			{ ORIGIN: 'https://gex.example.test' },
			{ ADDRESS_HEADER: 'x-forwarded-for', XFF_DEPTH: '1' }
		]) {
			for (const args of [['build'], ['scripts/start.js']]) {
				const run = await runToExit(args, {
					HOST: '127.0.0.1',
					PORT: '0',
					GEXDECK_PASSWORD: undefined,
					GEXDECK_UPSTREAM: stub.url,
					...env
				});
				const name = `${Object.keys(env)[0]} ${args[0]}`;
				expect(run.code, name).not.toBe(0);
				expect(run.output, name).toContain(`${Object.keys(env)[0]}=`);
				expect(run.output, name).toMatch(/GEXDECK_PASSWORD is not set: a proxy on this machine/);
			}
		}
	});

	it('a loopback ORIGIN without a password still starts (nothing is published)', async () => {
		const d = await dashboard({ ORIGIN: 'http://127.0.0.1:3000' }, 'build');
		expect(
			(await rawRequest(d.port, 'GET', '/api/tickers', { host: '127.0.0.1:3000' })).status
		).toBe(200);
	});
});

describe('safe by default however started', () => {
	it('`node build` with no HOST binds loopback and serves', async () => {
		const d = await dashboard({ HOST: undefined }, 'build');
		expect(d.output()).toContain(`Listening on http://127.0.0.1:${d.port}`);
		expect((await rawRequest(d.port, 'GET', '/api/tickers')).status).toBe(200);
		expect(
			(await rawRequest(d.port, 'GET', '/api/tickers', { host: `evil.example:${d.port}` })).status
		).toBe(421);
	});

	it('`node build` and `npm start` refuse a public HOST without a password', async () => {
		for (const args of [['build'], ['scripts/start.js']]) {
			const run = await runToExit(args, {
				HOST: '0.0.0.0',
				PORT: '0',
				GEXDECK_PASSWORD: undefined,
				GEXDECK_UPSTREAM: stub.url
			});
			expect(run.code, args[0]).not.toBe(0);
			expect(run.output, args[0]).toContain('GEXDECK_PASSWORD');
		}
	});

	it('`node build` on 0.0.0.0 with a password serves loopback and needs a login', async () => {
		const d = await dashboard({ HOST: '0.0.0.0', GEXDECK_PASSWORD: 'pw' }, 'build');
		expect((await rawRequest(d.port, 'GET', '/login')).status).toBe(200);
		expect((await rawRequest(d.port, 'GET', '/api/tickers')).status).toBe(401);
	});

	it('`npm run preview` passes the same gate', async () => {
		const d = await dashboard({ HOST: undefined }, 'preview');
		expect((await rawRequest(d.port, 'GET', '/api/tickers')).status).toBe(200);
		expect((await rawRequest(d.port, 'GET', '/account')).status).toBe(200);
		// Vite's own host check or the gate's: refused either way.
		const rebound = await rawRequest(d.port, 'GET', '/account', { host: `evil.example:${d.port}` });
		expect([403, 421]).toContain(rebound.status);
		const origin = await rawRequest(d.port, 'GET', '/api/tickers', {
			origin: `http://evil.example:${d.port}`
		});
		expect(origin.status).toBe(403);
	});
});
