/**
 * Workspace layouts per user on the server (issue 28 item 3), over real sockets: the built
 * dashboard in teams mode (admin, trader, viewer and a second trader made in its database before
 * it starts). Each user lists, saves and deletes only their own layouts at /workspace/layouts, a
 * viewer too; a layout over the size or count bound, or a query that is no workspace, is refused
 * with an error that says which.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openRecords } from '../../src/lib/server/db/legacyImport';
import { MAX_LAYOUTS, MAX_QUERY } from '../../src/lib/server/users/layoutStore';
import { UserStore } from '../../src/lib/server/users/userStore';
import {
	rawRequest,
	setCookies,
	startDashboard,
	startStubUpstream,
	type RunningDashboard,
	type StubUpstream
} from './dashboard-support';

type Who = 'admin' | 'trader' | 'viewer' | 'bob';
const PASSWORD = 'layouts password';
const TRIO = 'p=classic.gex_full.red.2x1&p=heatmap.gex_full.blue.2x1&g=red.SPX&g=blue.NDX';

let stub: StubUpstream;
let app: RunningDashboard;
let csrf = '';
const sessions: Partial<Record<Who, string>> = {};

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
	if (!session) throw new Error(`${name} could not sign in: ${answer.status} ${answer.body}`);
	return session;
}

/** One call to /workspace/layouts as `who` (the page's way: JSON, the CSRF header). */
async function call(who: Who, method: string, body?: unknown, query = '') {
	const answer = await rawRequest(
		app.port,
		method,
		`/workspace/layouts${query}`,
		{
			origin: app.base,
			cookie: `gexdeck_csrf=${csrf}; gexdeck_session=${sessions[who]}`,
			'x-csrf-token': csrf,
			'content-type': 'application/json'
		},
		body === undefined ? undefined : JSON.stringify(body)
	);
	return {
		status: answer.status,
		json: JSON.parse(answer.body || '{}') as Record<string, unknown>
	};
}

const names = async (who: Who) =>
	((await call(who, 'GET')).json.layouts as { name: string }[]).map((l) => l.name);

beforeAll(async () => {
	const dataDir = mkdtempSync(join(tmpdir(), 'gexdeck-layouts-'));
	const db = await openRecords({ dataDir });
	const users = new UserStore(db);
	for (const [name, role] of [
		['admin', 'admin'],
		['trader', 'trader'],
		['viewer', 'viewer'],
		['bob', 'trader']
	] as const) {
		await users.add(name, role, PASSWORD);
	}
	await db.close();
	stub = await startStubUpstream();
	app = await startDashboard({ GEXDECK_DATA_DIR: dataDir, ...stub.env });
	csrf = setCookies((await rawRequest(app.port, 'GET', '/login')).headers).gexdeck_csrf;
	for (const who of ['admin', 'trader', 'viewer', 'bob'] as const) {
		sessions[who] = await signIn(who);
	}
}, 240_000);

afterAll(async () => {
	await app?.stop();
	await stub?.close();
});

describe('workspace layouts per user', () => {
	it('each user, a viewer too, sees and changes only their own', async () => {
		for (const who of ['admin', 'trader', 'viewer', 'bob'] as const) {
			const saved = await call(who, 'POST', { name: `${who}'s desk`, query: TRIO });
			expect(saved.status, who).toBe(200);
		}
		// The same name in two accounts is two layouts.
		expect((await call('bob', 'POST', { name: 'desk', query: TRIO })).status).toBe(200);
		expect(
			(await call('trader', 'POST', { name: 'desk', query: `${TRIO}&p=levels.-.red.2x1` })).status
		).toBe(200);
		expect(await names('admin')).toEqual(["admin's desk"]);
		expect(await names('viewer')).toEqual(["viewer's desk"]);
		expect(await names('trader')).toEqual(['desk', "trader's desk"]);
		expect(await names('bob')).toEqual(["bob's desk", 'desk']);
		const bobs = (await call('bob', 'GET')).json.layouts as { name: string; query: string }[];
		expect(bobs.find((l) => l.name === 'desk')?.query).toBe(TRIO);

		// Deleting is of one's own: bob's "desk" goes, the trader's stays.
		expect((await call('bob', 'DELETE', undefined, '?name=desk')).status).toBe(200);
		expect((await call('bob', 'DELETE', undefined, '?name=desk')).status).toBe(404);
		expect(
			(await call('viewer', 'DELETE', undefined, `?name=${encodeURIComponent("trader's desk")}`))
				.status
		).toBe(404);
		expect(await names('trader')).toEqual(['desk', "trader's desk"]);
		expect(await names('bob')).toEqual(["bob's desk"]);
	});

	it('refuses a layout over the bounds or that is no workspace, saying which', async () => {
		const big = `${TRIO}&${'p=classic.gex_full.red.1x1&'.repeat(200)}`.slice(0, MAX_QUERY + 10);
		const tooBig = await call('viewer', 'POST', { name: 'big', query: big });
		expect(tooBig.status).toBe(400);
		expect(tooBig.json.error).toMatch(new RegExp(`at most ${MAX_QUERY} characters`));
		const notOne = await call('viewer', 'POST', { name: 'bad', query: 'p=chart.x.red.1x1' });
		expect(notOne.status).toBe(400);
		expect(notOne.json.error).toMatch(/Not a workspace: unknown panel view 'chart'/);
		expect((await call('viewer', 'POST', { name: '', query: TRIO })).json.error).toMatch(/name/);
		expect((await call('viewer', 'POST', 'not an object')).status).toBe(400);

		// The count: up to MAX_LAYOUTS, then a clear refusal; replacing one by name still works.
		const have = (await names('viewer')).length;
		for (let i = have; i < MAX_LAYOUTS; i++) {
			expect((await call('viewer', 'POST', { name: `n${i}`, query: TRIO })).status).toBe(200);
		}
		const over = await call('viewer', 'POST', { name: 'one more', query: TRIO });
		expect(over.status).toBe(409);
		expect(over.json.error).toMatch(new RegExp(`${MAX_LAYOUTS} layouts saved.*delete one first`));
		expect((await call('viewer', 'POST', { name: 'n10', query: TRIO })).status).toBe(200);
		expect(await names('viewer')).toHaveLength(MAX_LAYOUTS);
		// Another user's count is their own.
		expect((await call('bob', 'POST', { name: 'still fine', query: TRIO })).status).toBe(200);
	}, 60_000);
});
