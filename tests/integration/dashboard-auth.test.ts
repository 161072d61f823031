/**
 * The built dashboard (`node scripts/start.js`) with a password: every page and /api answer needs
 * a session, the login is CSRF-protected and rate limited, the session cookie is httpOnly and
 * SameSite=Strict; a non-loopback HOST without a password refuses to start. The upstream is a
 * stub (GEXDECK_UPSTREAM), which also proves the two-variable configuration.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
	runToExit,
	setCookies,
	startDashboard,
	startStubUpstream,
	type RunningDashboard,
	type StubUpstream
} from './dashboard-support';

let stub: StubUpstream;
let app: RunningDashboard;
let base: string;

beforeAll(async () => {
	stub = await startStubUpstream();
	app = await startDashboard({
		GEXDECK_PASSWORD: 'correct horse',
		...stub.env
	});
	base = app.base;
}, 240_000);

afterAll(async () => {
	await app?.stop();
	await stub?.close();
});

const cookiesOf = (res: Response) => setCookies(res.headers);

describe('password-protected dashboard', () => {
	it('requires a session for pages and the proxy', async () => {
		const api = await fetch(`${base}/api/tickers`);
		expect(api.status).toBe(401);
		const page = await fetch(`${base}/account`, { redirect: 'manual' });
		expect(page.status).toBe(303);
		expect(page.headers.get('location')).toMatch(/^\/login\?next=/);
	});

	it('logs in with the password (CSRF-checked), then serves the proxy', async () => {
		const loginPage = await fetch(`${base}/login`);
		expect(loginPage.status).toBe(200);
		const csrf = cookiesOf(loginPage).gexdeck_csrf;
		expect(csrf).toBeTruthy();
		const post = (password: string, token = csrf, origin = base) =>
			fetch(`${base}/login?/login`, {
				method: 'POST',
				redirect: 'manual',
				headers: {
					origin,
					accept: 'text/html',
					cookie: `gexdeck_csrf=${csrf}`,
					'content-type': 'application/x-www-form-urlencoded'
				},
				body: new URLSearchParams({ csrf: token, password, next: '/account' })
			});
		expect((await post('correct horse', 'wrong-token')).status).toBe(403);
		expect((await post('correct horse', csrf, 'http://evil.example')).status).toBe(403);
		// A refused login renders the form again with the reason (SvelteKit answers the page itself).
		expect(await (await post('wrong')).text()).toContain('Wrong password');

		const ok = await post('correct horse');
		expect(ok.status).toBe(303);
		expect(ok.headers.get('location')).toBe('/account');
		const raw = ok.headers.getSetCookie().find((c) => c.startsWith('gexdeck_session='))!;
		expect(raw).toMatch(/HttpOnly/i);
		expect(raw).toMatch(/SameSite=Strict/i);
		const session = cookiesOf(ok).gexdeck_session;
		const api = await fetch(`${base}/api/tickers`, {
			headers: { cookie: `gexdeck_session=${session}` }
		});
		expect(api.status).toBe(200);
		expect(await api.json()).toEqual({ stocks: [], indexes: ['SPX'], futures: [] });
		expect(stub.userAgents.at(-1)).toMatch(/^gexdeck\/\d+\.\d+\.\d+$/);
	});

	it('slows repeated wrong passwords but never locks out the right one', async () => {
		const loginPage = await fetch(`${base}/login`);
		const csrf = cookiesOf(loginPage).gexdeck_csrf;
		const post = (password: string) =>
			fetch(`${base}/login?/login`, {
				method: 'POST',
				redirect: 'manual',
				headers: {
					origin: base,
					accept: 'text/html',
					cookie: `gexdeck_csrf=${csrf}`,
					'content-type': 'application/x-www-form-urlencoded'
				},
				body: new URLSearchParams({ csrf, password, next: '/account' })
			});
		const answers: string[] = [];
		for (let i = 0; i < 7; i++) answers.push(await (await post(`guess-${i}`)).text());
		expect(answers.some((a) => a.includes('Too many attempts'))).toBe(true);
		// Same address, right after: the right password is checked first and gets in.
		const ok = await post('correct horse');
		expect(ok.status).toBe(303);
		expect(cookiesOf(ok).gexdeck_session).toBeTruthy();
	});
});

describe('binding beyond loopback', () => {
	it('refuses to start without a password', async () => {
		const run = await runToExit(['scripts/start.js'], {
			HOST: '0.0.0.0',
			PORT: '0',
			GEXDECK_PASSWORD: '',
			GEXDECK_UPSTREAM: stub.url
		});
		expect(run.code).toBe(1);
		expect(run.output).toContain('GEXDECK_PASSWORD');
	});
});
