/**
 * The built dashboard (`node scripts/start.js`) with a password: every page and /api answer needs
 * a session, the login is CSRF-protected and rate limited, the session cookie is httpOnly and
 * SameSite=Strict; a non-loopback HOST without a password refuses to start. The upstream is a
 * stub (GEXDECK_UPSTREAM), which also proves the two-variable configuration.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..', '..');
let stub: Server;
let app: ChildProcess;
let base: string;
const seenUserAgents: string[] = [];

function freePort(): Promise<number> {
	return new Promise((resolve) => {
		const s = createServer();
		s.listen(0, '127.0.0.1', () => {
			const { port } = s.address() as AddressInfo;
			s.close(() => resolve(port));
		});
	});
}

beforeAll(async () => {
	stub = createServer((req, res) => {
		seenUserAgents.push(String(req.headers['user-agent']));
		res.setHeader('content-type', 'application/json');
		if (req.url === '/v2/tickers') return res.end('{"stocks":[],"indexes":["SPX"],"futures":[]}');
		res.writeHead(404).end('{"error":"not found"}');
	});
	await new Promise<void>((r) => stub.listen(0, '127.0.0.1', r));
	const port = await freePort();
	base = `http://127.0.0.1:${port}`;
	app = spawn(process.execPath, ['scripts/start.js'], {
		cwd: root,
		env: {
			...process.env,
			HOST: '127.0.0.1',
			PORT: String(port),
			GEXDECK_PASSWORD: 'correct horse',
			GEXDECK_UPSTREAM: `http://127.0.0.1:${(stub.address() as AddressInfo).port}/v2`,
			GEXDECK_API_KEY: `gexbot_custom_${'B'.repeat(43)}`,
			GEXDECK_DATA_DIR: mkdtempSync(join(tmpdir(), 'gexdeck-auth-'))
		},
		stdio: ['ignore', 'pipe', 'inherit']
	});
	await new Promise<void>((resolve, reject) => {
		let out = '';
		app.stdout!.on('data', (d: Buffer) => {
			out += d.toString();
			if (out.includes('Listening on')) resolve();
		});
		app.once('exit', (code) => reject(new Error(`dashboard exited ${code}: ${out}`)));
	});
}, 240_000);

afterAll(async () => {
	app?.kill('SIGTERM');
	await new Promise<void>((r) => stub.close(() => r()));
});

function cookiesOf(res: Response): Record<string, string> {
	const out: Record<string, string> = {};
	for (const c of res.headers.getSetCookie()) {
		const [pair] = c.split(';');
		const i = pair.indexOf('=');
		out[pair.slice(0, i)] = pair.slice(i + 1);
	}
	return out;
}

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
		expect(seenUserAgents.at(-1)).toMatch(/^gexdeck\/\d+\.\d+\.\d+$/);
	});

	it('rate limits repeated failed logins', async () => {
		const loginPage = await fetch(`${base}/login`);
		const csrf = cookiesOf(loginPage).gexdeck_csrf;
		const answers: string[] = [];
		for (let i = 0; i < 7; i++) {
			const res = await fetch(`${base}/login?/login`, {
				method: 'POST',
				redirect: 'manual',
				headers: {
					origin: base,
					accept: 'text/html',
					cookie: `gexdeck_csrf=${csrf}`,
					'content-type': 'application/x-www-form-urlencoded'
				},
				body: new URLSearchParams({ csrf, password: `guess-${i}` })
			});
			answers.push(await res.text());
		}
		expect(answers.some((a) => a.includes('Too many attempts'))).toBe(true);
	});
});

describe('binding beyond loopback', () => {
	it('refuses to start without a password', () => {
		const run = spawnSync(process.execPath, ['scripts/start.js'], {
			cwd: root,
			env: { ...process.env, HOST: '0.0.0.0', PORT: '0', GEXDECK_PASSWORD: '' },
			encoding: 'utf8',
			timeout: 60_000
		});
		expect(run.status).toBe(1);
		expect(run.stderr).toContain('GEXDECK_PASSWORD');
	});
});
