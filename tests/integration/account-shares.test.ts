/**
 * Issue 29's "each user's share of the account", over real sockets: the built dashboard in teams
 * mode (users made in its database before it starts) against a loopback upstream. Two users each
 * sign in (two sessions), open their own /stream with distinct groups and make their own /api
 * calls; then both ask for the same route while the first call is in flight. The Account page's
 * data (/account/__data.json) shows each user's memberships and calls: the coalesced call once,
 * for the user whose request sent it, shared for the other, the rows adding up to the account's
 * total; a trader sees their own row and the totals, a viewer their own row only.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { unflatten } from 'devalue';
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openRecords } from '../../src/lib/server/db/legacyImport';
import { UserStore } from '../../src/lib/server/users/userStore';
import type { UsageShares } from '../../src/lib/server/usage/shareTable';
import { membershipsOf } from '../../src/lib/server/usage/memberships';
import {
	freePort,
	rawRequest,
	setCookies,
	startDashboard,
	TEST_KEY,
	type RunningDashboard
} from './dashboard-support';

const PASSWORD = 'shares password';
let upstream: Server;
/** Data calls the upstream received, by path. */
const received: string[] = [];
let app: RunningDashboard;
let csrf = '';
const sessions: Record<string, string> = {};
const sockets: WebSocket[] = [];

beforeAll(async () => {
	upstream = createServer((req, res) => {
		res.setHeader('content-type', 'application/json');
		if (req.url === '/v2/tickers') return res.end('{"stocks":[],"indexes":["SPX"],"futures":[]}');
		if (req.url === '/v2/whoami') {
			return res.end(
				JSON.stringify({
					_id: 'acct',
					role: 'user',
					max_level: 'quant',
					level: ['classic', 'state', 'orderflow', 'quant'],
					addons: [],
					permissions: [],
					entitlements: {},
					// A whole whoami: the Account page reads the account's id from it.
					account: {
						commercial: false,
						commercial_delegate: false,
						display_use: false,
						child: false,
						managed: false,
						delegated: false
					},
					api_key: {
						id: 'gexbot_custom_…BBBB',
						label: 'test',
						product: 'quant',
						integration: 'custom',
						created_at: '2026-01-01T00:00:00Z'
					},
					created: null
				})
			);
		}
		if (req.url?.includes('/classic/')) {
			received.push(req.url);
			// Slow, so the second user's identical request arrives while this one is in flight.
			setTimeout(() => res.end(JSON.stringify({ ticker: 'SPX', strikes: [] })), 600);
			return;
		}
		res.writeHead(404).end('{"error":"not found"}');
	});
	await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', r));
	const dataDir = mkdtempSync(join(tmpdir(), 'gexdeck-shares-'));
	const db = await openRecords({ dataDir });
	const users = new UserStore(db);
	await users.add('root', 'admin', PASSWORD);
	await users.add('alice', 'trader', PASSWORD);
	await users.add('bob', 'trader', PASSWORD);
	await users.add('vic', 'viewer', PASSWORD);
	await db.close();
	const port = await freePort();
	app = await startDashboard({
		GEXDECK_DATA_DIR: dataDir,
		PORT: String(port),
		ORIGIN: `http://127.0.0.1:${port}`,
		GEXDECK_UPSTREAM: `http://127.0.0.1:${(upstream.address() as AddressInfo).port}/v2`,
		GEXDECK_API_KEY: TEST_KEY
	});
	csrf = setCookies((await rawRequest(app.port, 'GET', '/login')).headers).gexdeck_csrf;
	for (const name of ['root', 'alice', 'bob', 'vic']) sessions[name] = await signIn(name);
}, 240_000);

afterAll(async () => {
	for (const ws of sockets) ws.terminate();
	await app?.stop();
	await new Promise<void>((r) => upstream?.close(() => r()));
});

async function signIn(name: string): Promise<string> {
	const answer = await rawRequest(
		app.port,
		'POST',
		'/login?/login',
		{
			origin: app.base,
			accept: 'text/html',
			cookie: `gexdeck_csrf=${csrf}`,
			'content-type': 'application/x-www-form-urlencoded'
		},
		new URLSearchParams({ csrf, name, password: PASSWORD }).toString()
	);
	const session = setCookies(answer.headers).gexdeck_session;
	if (!session) throw new Error(`${name} could not sign in: ${answer.status}`);
	return session;
}

const cookie = (name: string) => `gexdeck_csrf=${csrf}; gexdeck_session=${sessions[name]}`;

/** Opens `name`'s /stream and subscribes to `groups`; resolves once the relay accepted them. */
function openStream(name: string, groups: string[]): Promise<void> {
	const ws = new WebSocket(`${app.base.replace('http:', 'ws:')}/stream`, {
		headers: { cookie: cookie(name), origin: app.base }
	});
	sockets.push(ws);
	return new Promise<void>((resolve, reject) => {
		ws.on('open', () => ws.send(JSON.stringify({ type: 'subscribe', id: 1, groups })));
		ws.on('message', (data, binary) => {
			if (binary) return;
			const m = JSON.parse(String(data)) as { type: string; accepted?: string[] };
			if (m.type !== 'subscribed') return;
			if (m.accepted?.length === groups.length) resolve();
			else reject(new Error(`${name}'s groups refused: ${String(data)}`));
		});
		ws.on('error', reject);
	});
}

function api(name: string, path: string) {
	return rawRequest(app.port, 'GET', `/api/${path}`, { cookie: cookie(name), origin: app.base });
}

/** The Account page's data for `name`: its "each user's share" card. */
async function sharesSeenBy(name: string): Promise<UsageShares> {
	const res = await rawRequest(app.port, 'GET', '/account/__data.json', { cookie: cookie(name) });
	expect(res.status).toBe(200);
	const nodes = (JSON.parse(res.body) as { nodes: { type: string; data?: unknown[] }[] }).nodes;
	const page = nodes[nodes.length - 1];
	return (unflatten(page.data as unknown[]) as { shares: UsageShares }).shares;
}

describe("each user's share on the Account page", () => {
	it('splits memberships and calls between two signed-in users, a coalesced call once', async () => {
		// Distinct streams: alice SPX; bob SPX (shared with alice) and NDX.
		await openStream('alice', ['SPX_classic_gex_full']);
		await openStream('bob', ['SPX_classic_gex_full', 'NDX_classic_gex_full']);
		// Distinct REST calls.
		expect((await api('alice', 'SPX/classic/gex_full')).status).toBe(200);
		expect((await api('bob', 'NDX/classic/gex_full/majors')).status).toBe(200);
		// The same route: alice's request goes upstream, bob's arrives while it is in flight.
		const first = api('alice', 'QQQ/classic/gex_zero');
		await new Promise((r) => setTimeout(r, 150));
		const second = api('bob', 'QQQ/classic/gex_zero');
		const [a, b] = await Promise.all([first, second]);
		expect([a.status, b.status]).toEqual([200, 200]);
		expect(b.headers['x-gexdeck-coalesced']).not.toBe('miss');
		expect(received.filter((p) => p.startsWith('/v2/QQQ/'))).toHaveLength(1);

		const seen = await sharesSeenBy('root');
		expect(seen.store).toBe('memory');
		const row = (n: string) => seen.rows.find((r) => r.name === n)!;
		expect(row('alice').memberships).toBe(2);
		expect(row('alice').groups).toEqual(['SPX_classic_gex_full']);
		expect(row('bob').memberships).toBe(4);
		// The slot holds the union of every row's groups (the dashboard's own recorder list too),
		// alice's and bob's SPX counted once.
		const union = new Set(seen.rows.flatMap((r) => r.groups));
		expect(seen.totals?.memberships).toBe(membershipsOf([...union]));
		const sum = seen.rows.reduce((n, r) => n + r.memberships, 0);
		expect(seen.totals?.memberships).toBeLessThan(sum);
		expect(row('alice').pools).toEqual([
			{ pool: 'api_default', today: 2, month: 2, sharedToday: 0, share: 1 }
		]);
		expect(row('bob').pools).toEqual([
			{ pool: 'api_default', today: 0, month: 0, sharedToday: 1, share: 0 },
			{ pool: 'api_majors', today: 1, month: 1, sharedToday: 0, share: 1 }
		]);
		// Root and vic made no call and hold no stream; they are listed for the admin all the same.
		expect(row('root')).toMatchObject({ you: true, memberships: 0, pools: [] });
		expect(row('vic')).toMatchObject({ memberships: 0, pools: [] });
		// Never double counted: the account's totals are the calls upstream received.
		expect(seen.totals?.pools).toEqual([
			{ pool: 'api_default', today: 2, month: 2 },
			{ pool: 'api_majors', today: 1, month: 1 }
		]);
		expect(received).toHaveLength(3);
	});

	it('shows a trader their own row and the totals, a viewer their own row only', async () => {
		const bob = await sharesSeenBy('bob');
		expect(bob.rows.map((r) => [r.name, r.you])).toEqual([['bob', true]]);
		expect(bob.totals?.memberships).toBe((await sharesSeenBy('root')).totals?.memberships);
		const vic = await sharesSeenBy('vic');
		expect(vic.rows.map((r) => r.name)).toEqual(['vic']);
		expect(vic.totals).toBeNull();
	});

	it('renders the table in the page', async () => {
		const page = await rawRequest(app.port, 'GET', '/account', {
			cookie: cookie('alice'),
			accept: 'text/html'
		});
		expect(page.status).toBe(200);
		expect(page.body).toContain('data-testid="shares-table"');
		expect(page.body).toMatch(/alice \(you\)/);
		expect(page.body).not.toMatch(/data-name="bob"/);
	});
});
