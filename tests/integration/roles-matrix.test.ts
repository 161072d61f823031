/**
 * Issue 29's role x entry-point matrix, over real sockets: the built dashboard in teams mode
 * (three users made in its database before it starts: admin, trader, viewer) answers every page,
 * form action, /api, /stream, /history, /alerts/events, /feed, /mcp and admin route for each role
 * and for no session. The expected answer of every cell is in MATRIX below:
 *   a status the route itself answers (the gate let the request through: 200, or 400 for an
 *   empty form, 404 for a rule or file that does not exist, 405 for a method /api lacks);
 *   403 refused for the role; 401 no session; 'login' a page's 303 to /login.
 * The dashboard signs in through a real OIDC provider too (tests/support/oidcProvider.ts), so its
 * sign-in start and callback are cells of the table. Then the cross-user cells (CROSS): a
 * trader's alert rule and webhook are not seen, changed, tested or deleted by another trader
 * (404, as for an id that does not exist, so ids do not leak), an admin sees and changes them and
 * whose they are, and the rule's firings reach only its owner's /alerts/events. And the flows the
 * table cannot show: a role change and a disable end the user's session, its open /stream and its
 * /alerts/events at once; a page a role may not open is a page saying what it needs; the menu's
 * Admin item.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openRecords } from '../../src/lib/server/db/legacyImport';
import { UserStore } from '../../src/lib/server/users/userStore';
import { startOidcProvider, type TestOidcProvider } from '../support/oidcProvider';
import {
	freePort,
	rawRequest,
	setCookies,
	startDashboard,
	startStubUpstream,
	upgradeStatus,
	type RunningDashboard,
	type StubUpstream
} from './dashboard-support';

type Who = 'admin' | 'trader' | 'viewer' | 'none';
type Expect = number | 'login';
/** [method, path (with a form action's ?/name), admin, trader, viewer, no session] */
type Row = [string, string, Expect, Expect, Expect, Expect];

/** Columns by kind of entry point, given what the route answers when it is let through. */
const V = (s: number): Expect[] => [s, s, s, 'login']; // a view: every role
const A = (s: number): Expect[] => [s, 403, 403, 'login']; // an admin page
const FA = (s: number): Expect[] => [s, 403, 403, 401]; // an admin's form action or POST
const FT = (s: number): Expect[] => [s, s, 403, 401]; // a trader's form action or POST
const FV = (s: number): Expect[] => [s, s, s, 401]; // a form action that only reads
const row = (method: string, path: string, e: Expect[]): Row =>
	[method, path, ...e] as unknown as Row;

const MATRIX: Row[] = [
	// signing in: public (the OIDC start redirects to the provider; a callback without this
	// browser's state is refused)
	['GET', '/login', 303, 303, 303, 200],
	['GET', '/login/oidc', 303, 303, 303, 303],
	['GET', '/login/oidc/callback', 403, 403, 403, 403],
	['POST', '/login/oidc', 405, 405, 405, 405],
	// pages
	row('GET', '/', V(307)),
	row('GET', '/SPX/classic/gex_full', V(200)),
	row('GET', '/SPX/heatmap/gex_full', V(200)),
	row('GET', '/SPX/price/gex_full', V(200)),
	row('GET', '/SPX/state/delta_zero', V(200)),
	row('GET', '/SPX/orderflow', V(200)),
	row('GET', '/SPX/research/gex', V(200)),
	row('GET', '/SPX/eod', V(200)),
	row('GET', '/levels/SPX', V(200)),
	row('GET', '/watchlist', V(200)),
	row('GET', '/workspace', V(200)),
	row('GET', '/chain', V(200)),
	row('GET', '/account', V(200)),
	row('GET', '/alerts', V(200)),
	row('GET', '/alerts/export', V(200)),
	row('GET', '/integrations', V(200)),
	row('GET', '/admin', A(200)),
	row('GET', '/admin/audit.jsonl', A(200)),
	// form actions
	row('POST', '/account?/saveKeys', FA(400)),
	row('POST', '/account?/clearKeys', FA(200)),
	row('POST', '/account?/saveRecording', FT(400)),
	row('POST', '/account?/createToken', FT(400)),
	// no id: no such token among the asker's
	row('POST', '/account?/revokeToken', FT(404)),
	row('POST', '/account?/switchAccount', FA(400)),
	row('POST', '/alerts?/saveRule', FT(400)),
	row('POST', '/alerts?/pauseRule', FT(404)),
	row('POST', '/alerts?/deleteRule', FT(404)),
	row('POST', '/alerts?/testRule', FT(404)),
	row('POST', '/alerts?/saveWebhook', FT(400)),
	row('POST', '/alerts?/deleteWebhook', FT(404)),
	row('POST', '/alerts?/testWebhook', FT(404)),
	row('POST', '/alerts?/importRules', FT(400)),
	row('POST', '/SPX/eod?/open', FV(404)),
	row('POST', '/recording/watchlist', FT(400)),
	// each user's own workspace layouts: a viewer's too (a form body is not the JSON it takes)
	row('POST', '/workspace/layouts', FV(400)),
	['DELETE', '/workspace/layouts?name=none', 404, 404, 404, 401],
	row('POST', '/admin?/addUser', FA(400)),
	row('POST', '/admin?/setRole', FA(400)),
	row('POST', '/admin?/setDisabled', FA(400)),
	row('POST', '/admin?/signOut', FA(400)),
	// data endpoints
	['GET', '/api/tickers', 200, 200, 200, 401],
	['POST', '/api/tickers', 405, 403, 403, 401],
	['GET', '/history/SPX', 200, 200, 200, 'login'],
	// Nothing recorded yet for this stream: the route's own 404.
	['GET', '/history/SPX/classic_gex_full', 404, 404, 404, 'login'],
	['GET', '/history/SPX/classic_gex_full/moment', 404, 404, 404, 'login'],
	['GET', '/alerts/events', 200, 200, 200, 'login'],
	['GET', '/workspace/layouts', 200, 200, 200, 'login'],
	['UPGRADE', '/stream', 101, 101, 101, 401],
	// the feed and MCP take integration tokens, never a session
	['GET', '/feed/v1/levels/SPX', 401, 401, 401, 401],
	['POST', '/mcp', 401, 401, 401, 401]
];

let stub: StubUpstream;
let idp: TestOidcProvider;
let app: RunningDashboard;
const sessions: Record<Who, string | undefined> = {
	admin: undefined,
	trader: undefined,
	viewer: undefined,
	none: undefined
};
let csrf = '';
const PASSWORD = 'matrix password';

async function signIn(name: string): Promise<string> {
	const form = {
		origin: app.base,
		accept: 'text/html',
		cookie: `gexdeck_csrf=${csrf}`,
		'content-type': 'application/x-www-form-urlencoded'
	};
	const answer = await rawRequest(
		app.port,
		'POST',
		'/login?/login',
		form,
		new URLSearchParams({ csrf, name, password: PASSWORD }).toString()
	);
	const session = setCookies(answer.headers).gexdeck_session;
	if (!session) throw new Error(`${name} could not sign in: ${answer.status} ${answer.body}`);
	return session;
}

beforeAll(async () => {
	const dataDir = mkdtempSync(join(tmpdir(), 'gexdeck-roles-'));
	const db = await openRecords({ dataDir });
	const users = new UserStore(db);
	for (const role of ['admin', 'trader', 'viewer'] as const) await users.add(role, role, PASSWORD);
	await users.add('bob', 'trader', PASSWORD);
	await users.add('carol', 'trader', PASSWORD);
	await db.close();
	stub = await startStubUpstream();
	const port = await freePort();
	idp = await startOidcProvider(`http://127.0.0.1:${port}/login/oidc/callback`);
	app = await startDashboard({
		GEXDECK_DATA_DIR: dataDir,
		PORT: String(port),
		ORIGIN: `http://127.0.0.1:${port}`,
		// The cross-user webhook points at a closed loopback port (never posted to).
		GEXDECK_WEBHOOK_ALLOW: '127.0.0.1',
		...stub.env,
		...idp.env
	});
	csrf = setCookies((await rawRequest(app.port, 'GET', '/login')).headers).gexdeck_csrf;
	for (const who of ['admin', 'trader', 'viewer'] as const) sessions[who] = await signIn(who);
}, 240_000);

afterAll(async () => {
	await app?.stop();
	await stub?.close();
	await idp?.close();
});

/** What the dashboard answered, as a cell of the table. */
async function answer(method: string, path: string, session?: string): Promise<Expect> {
	const cookie = [`gexdeck_csrf=${csrf}`, session ? `gexdeck_session=${session}` : '']
		.filter(Boolean)
		.join('; ');
	let status: number;
	let location: string | undefined;
	if (method === 'UPGRADE') {
		status = (await upgradeStatus(app.port, path, { cookie, origin: app.base })).status;
	} else if (path === '/alerts/events') {
		// An event stream never ends: its status is enough.
		const ctl = new AbortController();
		const res = await fetch(`${app.base}${path}`, {
			headers: { cookie },
			redirect: 'manual',
			signal: ctl.signal
		});
		status = res.status;
		location = res.headers.get('location') ?? undefined;
		ctl.abort();
	} else {
		const headers: Record<string, string> = { cookie, origin: app.base, accept: 'text/html' };
		let body: string | undefined;
		if (method === 'POST') {
			headers['content-type'] = 'application/x-www-form-urlencoded';
			headers['x-csrf-token'] = csrf;
			body = new URLSearchParams({ csrf }).toString();
		} else if (method === 'DELETE') {
			headers['x-csrf-token'] = csrf;
		}
		const res = await rawRequest(app.port, method, path, headers, body);
		status = res.status;
		location = res.headers.location;
	}
	if (status === 303 && location?.startsWith('/login')) return 'login';
	return status;
}

describe(`role x entry point (${MATRIX.length} entry points x 4 = ${MATRIX.length * 4} cells)`, () => {
	it('answers every cell as the table says', async () => {
		const wrong: string[] = [];
		for (const [method, path, ...expected] of MATRIX) {
			const whos: Who[] = ['admin', 'trader', 'viewer', 'none'];
			for (let i = 0; i < whos.length; i++) {
				const got = await answer(method, path, sessions[whos[i]]);
				if (got !== expected[i]) {
					wrong.push(`${method} ${path} as ${whos[i]}: expected ${expected[i]}, got ${got}`);
				}
			}
		}
		expect(wrong).toEqual([]);
	}, 180_000);
});

/** A form action of /alerts under `session`; resolves to the status and the page's HTML. */
async function alertsAct(session: string, action: string, fields: Record<string, string>) {
	const res = await rawRequest(
		app.port,
		'POST',
		`/alerts?/${action}`,
		{
			origin: app.base,
			accept: 'text/html',
			cookie: `gexdeck_csrf=${csrf}; gexdeck_session=${session}`,
			'content-type': 'application/x-www-form-urlencoded'
		},
		new URLSearchParams({ csrf, ...fields }).toString()
	);
	return res.status;
}

const RULE = {
	id: 'r-trader',
	name: 'trader rule',
	ticker: 'SPX',
	kind: 'gex_sign',
	package: 'classic',
	category: 'gex_full',
	basis: 'vol',
	hysteresis: '0',
	cooldownSeconds: '300',
	webhooks: 'w-trader'
};
const HOOK = {
	id: 'w-trader',
	name: 'trader hook',
	url: 'http://127.0.0.1:9/hook',
	format: 'json'
};

/** [action, fields, another trader, admin]: what each answers on the trader's rule or webhook. */
const CROSS: [string, Record<string, string>, number, number][] = [
	['saveRule', { ...RULE, name: 'taken over' }, 404, 200],
	['pauseRule', { id: RULE.id, paused: 'true' }, 404, 200],
	['testRule', { id: RULE.id }, 404, 200],
	['saveWebhook', { ...HOOK, name: 'taken over' }, 404, 200],
	['testWebhook', { id: HOOK.id }, 404, 200],
	['deleteRule', { id: RULE.id }, 404, 200],
	['deleteWebhook', { id: HOOK.id }, 404, 200]
];

describe(`one trader's alerts and another's (${CROSS.length} actions + reads)`, () => {
	it('another trader gets 404 for each, reads nothing of them; an admin may', async () => {
		const trader = sessions.trader!;
		const carol = await signIn('carol');
		const page = async (session: string, path = '/alerts') =>
			(await rawRequest(app.port, 'GET', path, { cookie: `gexdeck_session=${session}` })).body;
		expect(await alertsAct(trader, 'saveWebhook', HOOK)).toBe(200);
		expect(await alertsAct(trader, 'saveRule', RULE)).toBe(200);
		expect(await page(trader)).toContain('data-rule-id="r-trader"');

		// Reads: the other trader's page, export and firings hold nothing of them.
		for (const path of ['/alerts', '/alerts/export']) {
			const body = await page(carol, path);
			expect(body, path).not.toContain('r-trader');
			expect(body, path).not.toContain('127.0.0.1:9');
		}
		const adminPage = await page(sessions.admin!);
		expect(adminPage).toContain('data-rule-id="r-trader"');
		expect(adminPage).toMatch(/data-testid="rule-owner">trader</);

		// Firings reach the owner's event stream only.
		const streams = await Promise.all([trader, carol, sessions.admin!].map(eventsOf));
		expect(await alertsAct(trader, 'testRule', { id: RULE.id })).toBe(200);
		await within(streams[0].firing('r-trader'));
		await new Promise((r) => setTimeout(r, 500));
		expect(streams[1].text() + streams[2].text()).not.toContain('r-trader');
		for (const s of streams) s.close();
		expect(await page(carol)).not.toContain('Test: ');

		const wrong: string[] = [];
		for (const [action, fields, other] of CROSS) {
			const got = await alertsAct(carol, action, fields);
			if (got !== other) wrong.push(`${action} as another trader: expected ${other}, got ${got}`);
		}
		expect(wrong).toEqual([]);
		// Nothing of the trader's changed.
		const exported = JSON.parse(await page(trader, '/alerts/export'));
		expect(exported.rules).toMatchObject([{ id: RULE.id, name: RULE.name, paused: false }]);
		expect(exported.webhooks).toMatchObject([{ id: HOOK.id, name: HOOK.name }]);

		for (const [action, fields, , admin] of CROSS) {
			const got = await alertsAct(sessions.admin!, action, fields);
			if (got !== admin) wrong.push(`${action} as admin: expected ${admin}, got ${got}`);
		}
		expect(wrong).toEqual([]);
		expect(await page(trader)).not.toContain('data-rule-id="r-trader"');
	}, 60_000);
});

/** The /alerts/events stream of `session`, read as it comes. */
async function eventsOf(session: string) {
	const ctl = new AbortController();
	const res = await fetch(`${app.base}/alerts/events`, {
		headers: { cookie: `gexdeck_session=${session}` },
		signal: ctl.signal
	});
	let text = '';
	const waiters: (() => void)[] = [];
	void (async () => {
		const reader = res.body!.getReader();
		const decoder = new TextDecoder();
		try {
			for (;;) {
				const { done, value } = await reader.read();
				if (done) return;
				text += decoder.decode(value, { stream: true });
				for (const w of waiters.splice(0)) w();
			}
		} catch {
			// aborted
		}
	})();
	return {
		text: () => text,
		firing: (ruleId: string) =>
			new Promise<void>((resolve) => {
				const check = () =>
					text.includes(`"ruleId":"${ruleId}"`) ? resolve() : waiters.push(check);
				check();
			}),
		close: () => ctl.abort()
	};
}

/** Opens /stream and /alerts/events under `session`; resolves when each has ended. */
async function openStreams(session: string) {
	const cookie = `gexdeck_session=${session}`;
	const ws = new WebSocket(`${app.base.replace('http:', 'ws:')}/stream`, {
		headers: { cookie, origin: app.base }
	});
	const wsClosed = new Promise<number>((resolve) => ws.once('close', (code) => resolve(code)));
	await new Promise<void>((resolve, reject) => {
		ws.once('open', () => resolve());
		ws.once('error', reject);
	});
	const sse = await fetch(`${app.base}/alerts/events`, { headers: { cookie } });
	expect(sse.status).toBe(200);
	const sseEnded = (async () => {
		const reader = sse.body!.getReader();
		for (;;) if ((await reader.read()).done) return true;
	})();
	return { wsClosed, sseEnded, close: () => ws.close() };
}

async function adminAct(action: string, fields: Record<string, string>) {
	const res = await rawRequest(
		app.port,
		'POST',
		`/admin?/${action}`,
		{
			origin: app.base,
			accept: 'text/html',
			cookie: `gexdeck_csrf=${csrf}; gexdeck_session=${sessions.admin}`,
			'content-type': 'application/x-www-form-urlencoded'
		},
		new URLSearchParams({ csrf, ...fields }).toString()
	);
	expect(res.status).toBe(200);
}

const within = <T>(p: Promise<T>, ms = 5_000) =>
	Promise.race([p, new Promise<never>((_, r) => setTimeout(() => r(new Error('timed out')), ms))]);

describe('a role change and a disable end the user’s sessions at once', () => {
	it('closes the session, its /stream and its /alerts/events; the audit log says who did it', async () => {
		const api = (session: string) =>
			rawRequest(app.port, 'GET', '/api/tickers', { cookie: `gexdeck_session=${session}` });
		const bob = await signIn('bob');
		const open = await openStreams(bob);
		await adminAct('setRole', { name: 'bob', role: 'viewer' });
		expect(await within(open.wsClosed)).toBe(1008);
		expect(await within(open.sseEnded)).toBe(true);
		expect((await api(bob)).status).toBe(401);

		const again = await signIn('bob');
		expect((await api(again)).status).toBe(200);
		const second = await openStreams(again);
		await adminAct('setDisabled', { name: 'bob', disabled: 'true' });
		expect(await within(second.wsClosed)).toBe(1008);
		expect(await within(second.sseEnded)).toBe(true);
		expect((await api(again)).status).toBe(401);
		await expect(signIn('bob')).rejects.toThrow(/could not sign in/);

		const log = await rawRequest(app.port, 'GET', '/admin/audit.jsonl', {
			cookie: `gexdeck_session=${sessions.admin}`
		});
		const entries = log.body
			.trim()
			.split('\n')
			.map((l) => JSON.parse(l));
		expect(entries).toEqual(
			expect.arrayContaining([
				expect.objectContaining({ actor: 'admin', action: 'role changed', address: '127.0.0.1' }),
				expect.objectContaining({ actor: 'admin', action: 'user disabled', detail: 'bob' }),
				expect.objectContaining({ actor: 'bob', action: 'sign-in' }),
				expect.objectContaining({ actor: 'anonymous', action: 'failed sign-in' })
			])
		);
		expect(log.body).not.toContain(PASSWORD);
	}, 60_000);
});

describe('a page a role may not open', () => {
	const get = (who: Who, path: string, accept: string) =>
		rawRequest(app.port, 'GET', path, {
			accept,
			cookie: `gexdeck_session=${sessions[who]}`
		});

	it('is a page saying what it needs and who can grant it; data requests keep JSON', async () => {
		const page = await get('trader', '/admin', 'text/html,application/xhtml+xml');
		expect(page.status).toBe(403);
		expect(page.headers['content-type']).toMatch(/^text\/html/);
		expect(page.headers['content-security-policy']).toMatch(/style-src 'sha256-[^']+'/);
		expect(page.body).toContain('This page needs the admin role');
		expect(page.body).toContain('signed in as <strong>trader</strong> with the trader role');
		expect(page.body).toContain('An admin of this dashboard (<strong>admin</strong>)');
		const viewer = await get('viewer', '/admin/audit.jsonl', 'text/html');
		expect(viewer.status).toBe(403);
		expect(viewer.body).toContain('with the viewer role');
		expect(viewer.body).not.toContain('"action"');
		for (const [path, accept] of [
			['/admin', 'application/json'],
			['/admin/__data.json', 'text/html'],
			['/api/tickers?x=1', 'text/html']
		]) {
			const data = await rawRequest(app.port, 'POST', path, {
				accept,
				origin: app.base,
				cookie: `gexdeck_session=${sessions.trader}`
			});
			expect(data.status, path).toBe(403);
			expect(data.headers['content-type'], path).toMatch(/^application\/json/);
		}
		const json = await get('trader', '/admin', 'application/json');
		expect(JSON.parse(json.body)).toEqual({ error: 'Forbidden: the trader role may not do this.' });
	});

	it('is left out of the menu: only an admin sees the Admin item', async () => {
		const menu = async (who: Who) =>
			/<a[^>]*>Admin(<!--[^>]*-->)*<\/a>/.test((await get(who, '/watchlist', 'text/html')).body);
		expect(await menu('admin')).toBe(true);
		expect(await menu('trader')).toBe(false);
		expect(await menu('viewer')).toBe(false);
	});
});

/** A form action of /account under `session`; resolves to the status and the page's HTML. */
async function accountAct(session: string, action: string, fields: [string, string][]) {
	const body = new URLSearchParams([['csrf', csrf], ...fields]).toString();
	return rawRequest(
		app.port,
		'POST',
		`/account?/${action}`,
		{
			origin: app.base,
			accept: 'text/html',
			cookie: `gexdeck_csrf=${csrf}; gexdeck_session=${session}`,
			'content-type': 'application/x-www-form-urlencoded'
		},
		body
	);
}

describe('one trader’s integration tokens and another’s', () => {
	it('another trader gets 404 and sees none; an admin sees the owner and revokes; a disabled owner’s token stops', async () => {
		const carol = await signIn('carol');
		const feed = async (token: string) =>
			(await rawRequest(app.port, 'GET', `/feed/v1/levels/SPX?token=${token}`)).status;
		const accountPage = async (session: string) =>
			(await rawRequest(app.port, 'GET', '/account', { cookie: `gexdeck_session=${session}` }))
				.body;
		const create = async (session: string, name: string) => {
			const res = await accountAct(session, 'createToken', [
				['name', name],
				['scope', 'feed']
			]);
			expect(res.status, name).toBe(200);
			return /gxd_[A-Za-z0-9_-]{43}/.exec(res.body)![0];
		};
		const traders = await create(sessions.trader!, 'trader desk');
		const carols = await create(carol, 'carol desk');
		expect((await accountAct(sessions.viewer!, 'createToken', [['scope', 'feed']])).status).toBe(
			403
		);
		const traderPage = await accountPage(sessions.trader!);
		const id = /name="id" value="([^"]+)"/.exec(traderPage)![1];
		expect(traderPage).toContain('trader desk');
		expect(traderPage).not.toContain('carol desk');
		expect(await accountPage(carol)).not.toContain('trader desk');
		expect(await feed(traders)).not.toBe(401);

		// Another trader: the id is unknown; the token keeps working.
		expect((await accountAct(carol, 'revokeToken', [['id', id]])).status).toBe(404);
		expect((await accountAct(carol, 'revokeToken', [['id', 'trader desk']])).status).toBe(404);
		expect(await feed(traders)).not.toBe(401);
		// The admin sees both with their owners and revokes the trader's.
		const adminPage = await accountPage(sessions.admin!);
		expect(adminPage).toMatch(
			/trader desk<\/td>(<!--[^>]*-->)*<td data-testid="token-owner"[^>]*>trader</
		);
		expect(adminPage).toMatch(
			/carol desk<\/td>(<!--[^>]*-->)*<td data-testid="token-owner"[^>]*>carol</
		);
		expect((await accountAct(sessions.admin!, 'revokeToken', [['id', id]])).status).toBe(200);
		expect(await feed(traders)).toBe(401);

		// A disabled owner's token stops at once.
		expect(await feed(carols)).not.toBe(401);
		await adminAct('setDisabled', { name: 'carol', disabled: 'true' });
		expect(await feed(carols)).toBe(401);

		const log = await rawRequest(app.port, 'GET', '/admin/audit.jsonl', {
			cookie: `gexdeck_session=${sessions.admin}`
		});
		expect(log.body).toMatch(
			/"action":"token created","detail":"[^"]+ \\"trader desk\\" \(feed\) of trader"/
		);
		expect(log.body).toMatch(
			/"actor":"admin"[^\n]*"action":"token revoked","detail":"[^\n]*? of trader"/
		);
	}, 90_000);
});

describe('each user’s “record even when no tab is open” list', () => {
	it('a trader keeps their own; an admin sees every user’s and the union; a disabled user’s stops counting', async () => {
		const page = async (session: string) =>
			(await rawRequest(app.port, 'GET', '/account', { cookie: `gexdeck_session=${session}` }))
				.body;
		const save = (session: string, fields: [string, string][]) =>
			accountAct(session, 'saveRecording', fields);
		expect((await save(sessions.trader!, [['alwaysRecord', 'TSLA, IWM']])).status).toBe(200);
		// The retention is the team's: a trader's form that carries it is refused.
		const retention = await save(sessions.trader!, [
			['alwaysRecord', 'TSLA'],
			['retentionDays', '1'],
			['maxGb', '1']
		]);
		expect(retention.status).toBe(403);
		expect((await save(sessions.viewer!, [['alwaysRecord', 'TSLA']])).status).toBe(403);
		await adminAct('setDisabled', { name: 'carol', disabled: 'false' });
		const carol = await signIn('carol');
		expect((await save(carol, [['alwaysRecord', 'NVDA']])).status).toBe(200);

		const own =
			/data-testid="always-record"[^>]*>(?:<!--[^>]*-->|\s)*<span class="num[^"]*">([^<]*)</;
		expect(own.exec(await page(sessions.trader!))?.[1]).toBe('TSLA, IWM');
		expect(own.exec(await page(carol))?.[1]).toBe('NVDA');
		expect(await page(carol)).not.toContain('TSLA, IWM');
		const union = /data-testid="always-record-union"[^>]*>\s*([^<]*?)\s*</;
		const adminPage = await page(sessions.admin!);
		expect(adminPage).toContain('data-testid="always-record-users"');
		expect(union.exec(adminPage)?.[1]).toBe('NVDA, TSLA, IWM');

		await adminAct('setDisabled', { name: 'carol', disabled: 'true' });
		const after = await page(sessions.admin!);
		expect(union.exec(after)?.[1]).toBe('TSLA, IWM');
		expect(after).toMatch(/<td[^>]*>carol<\/td>[^]*?disabled: not recorded/);
	}, 60_000);
});
