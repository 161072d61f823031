/**
 * Sessions across replicas (issue 30): two built replicas on one real redis-server and one real
 * PostgreSQL, teams mode from GEXDECK_PASSWORD. A browser signed in on replica A opens its
 * `/stream` and `/alerts/events` connections on replica B at once (not after B's next read of
 * the sessions table, every 2 s), and once it signed out on A, B refuses those connections at
 * once and ends the one already open.
 */
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { startPostgres, type RunningPostgres } from '../support/postgres';
import type { RunningDashboard } from '../support/processes';
import { startCluster, type TestCluster } from './cluster.support';
import { rawRequest, setCookies, upgradeStatus } from './dashboard-support';

const PASSWORD = 'cluster sessions password';
let postgres: RunningPostgres;
let c: TestCluster;

beforeAll(async () => {
	postgres = await startPostgres();
	c = await startCluster({
		replicas: 2,
		tickers: ['SPX'],
		majorsDaily: 100,
		env: { GEXDECK_DATABASE_URL: await postgres.freshDatabase(), GEXDECK_PASSWORD: PASSWORD }
	});
}, 240_000);

afterAll(async () => {
	await c?.close();
	postgres?.stop();
});

/** Sign in on `d` as the admin GEXDECK_PASSWORD became; the cookie header to send anywhere. */
async function signIn(d: RunningDashboard): Promise<{ cookie: string; csrf: string }> {
	const page = await rawRequest(d.port, 'GET', '/login');
	const csrf = setCookies(page.headers).gexdeck_csrf;
	const answer = await rawRequest(
		d.port,
		'POST',
		'/login?/login',
		{
			origin: d.base,
			accept: 'text/html',
			cookie: `gexdeck_csrf=${csrf}`,
			'content-type': 'application/x-www-form-urlencoded'
		},
		new URLSearchParams({ csrf, name: 'admin', password: PASSWORD }).toString()
	);
	const session = setCookies(answer.headers).gexdeck_session;
	if (!session) throw new Error(`no session: ${answer.status} ${answer.body}`);
	return { cookie: `gexdeck_session=${session}; gexdeck_csrf=${csrf}`, csrf };
}

const streamStatus = (d: RunningDashboard, cookie: string) =>
	upgradeStatus(d.port, '/stream', { cookie, origin: d.base });

/** The status `/alerts/events` answers (an event stream stays open: closed once answered). */
function eventsStatus(d: RunningDashboard, cookie: string): Promise<number> {
	return new Promise((resolve, reject) => {
		const req = request(
			{ host: '127.0.0.1', port: d.port, path: '/alerts/events', headers: { cookie } },
			(res) => {
				resolve(res.statusCode ?? 0);
				res.destroy();
			}
		);
		req.on('error', reject);
		req.end();
	});
}

describe('two replicas on one database', () => {
	it('accept a session signed in on the other at once, on /stream and /alerts/events', async () => {
		const [a, b] = c.replicas;
		for (let round = 0; round < 5; round++) {
			const [from, to] = round % 2 ? [b, a] : [a, b];
			const first = await signIn(from);
			expect((await streamStatus(to, first.cookie)).status, `round ${round}`).toBe(101);
			const second = await signIn(from);
			expect(await eventsStatus(to, second.cookie), `round ${round}`).toBe(200);
		}
	}, 60_000);

	it('refuse a session signed out on the other at once, and end its open stream', async () => {
		const [a, b] = c.replicas;
		const { cookie, csrf } = await signIn(a);
		const ws = new WebSocket(`ws://127.0.0.1:${b.port}/stream`, {
			headers: { cookie, origin: b.base }
		});
		await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
		const closed = new Promise<number>((resolve) => ws.once('close', (code) => resolve(code)));
		expect(await eventsStatus(b, cookie)).toBe(200); // B holds the session now
		const out = await rawRequest(
			a.port,
			'POST',
			'/login?/logout',
			{
				origin: a.base,
				accept: 'text/html',
				cookie,
				'content-type': 'application/x-www-form-urlencoded'
			},
			new URLSearchParams({ csrf }).toString()
		);
		expect(out.status).toBe(303);
		expect((await streamStatus(b, cookie)).status).toBe(401);
		expect(await eventsStatus(b, cookie)).toBe(303); // to the login
		expect(await closed).toBe(1008);
	}, 60_000);
});
