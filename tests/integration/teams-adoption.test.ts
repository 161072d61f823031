/**
 * Issue 29: when teams mode starts from /admin (the implicit admin on loopback adds the first
 * admin), what the single-user mode made becomes that admin's, over real sockets on the built
 * dashboard: an alert rule, a webhook, an integration token (which keeps working, now acting as
 * the admin's) and the always-record list. (The CLI path: src/lib/server/users/owners.test.ts.)
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { parseRule, parseWebhook } from '../../src/lib/alerts/rules';
import { writeAlertRows } from '../../src/lib/server/alerts/store';
import { openRecords } from '../../src/lib/server/db/legacyImport';
import { TokenStore } from '../../src/lib/server/tokens/tokenStore';
import { UserStore } from '../../src/lib/server/users/userStore';
import {
	rawRequest,
	setCookies,
	startDashboard,
	startStubUpstream,
	type RunningDashboard,
	type StubUpstream
} from './dashboard-support';

let stub: StubUpstream | undefined;
let app: RunningDashboard | undefined;
afterAll(async () => {
	await app?.stop();
	await stub?.close();
});

it('the first admin added on /admin gets the single-user mode’s rules, webhooks, tokens and list', async () => {
	const dataDir = mkdtempSync(join(tmpdir(), 'gexdeck-adopt-'));
	const db = await openRecords({ dataDir });
	const hook = parseWebhook({ id: 'w1', name: 'desk hook', url: 'http://127.0.0.1:9/h' });
	const rule = parseRule({
		id: 'r1',
		name: 'single-user rule',
		ticker: 'SPX',
		kind: 'gex_sign',
		package: 'classic',
		category: 'gex_full',
		basis: 'vol',
		webhooks: ['w1']
	});
	if (!hook.ok || !rule.ok) throw new Error('fixture rule or webhook does not parse');
	await db.transaction((tx) =>
		writeAlertRows(tx, '', { rules: [rule.value], webhooks: [hook.value] })
	);
	const { token } = await new TokenStore(db).create('desk', ['feed']);
	await db.run(`INSERT INTO user_recording (owner, always_record) VALUES ('', '["SPX","RUT"]')`);
	await db.close();

	stub = await startStubUpstream();
	app = await startDashboard({
		GEXDECK_DATA_DIR: dataDir,
		GEXDECK_WEBHOOK_ALLOW: '127.0.0.1',
		...stub.env
	});
	const feed = async () =>
		(await rawRequest(app!.port, 'GET', `/feed/v1/levels/SPX?token=${token}`)).status;
	expect(await feed()).not.toBe(401);
	const csrf = setCookies((await rawRequest(app.port, 'GET', '/account')).headers).gexdeck_csrf;
	expect(csrf).toBeTruthy();
	const added = await rawRequest(
		app.port,
		'POST',
		'/admin?/addUser',
		{
			origin: app.base,
			accept: 'text/html',
			cookie: `gexdeck_csrf=${csrf}`,
			'content-type': 'application/x-www-form-urlencoded'
		},
		new URLSearchParams({
			csrf,
			name: 'ann',
			role: 'admin',
			password: 'a long password'
		}).toString()
	);
	expect(added.status).toBe(200);
	expect(added.body).toContain('Teams mode is on');
	// The token works on, as the admin's.
	expect(await feed()).not.toBe(401);
	await app.stop();
	app = undefined;

	const after = await openRecords({ dataDir });
	const ann = (await new UserStore(after).byName('ann'))!;
	for (const table of ['alert_rules', 'alert_webhooks', 'tokens', 'user_recording']) {
		const rows = await after.all<{ owner: string }>(`SELECT owner FROM ${table}`);
		expect(rows, table).toEqual([{ owner: ann.id }]);
	}
	expect(
		await after.all(`SELECT actor FROM audit_log WHERE action = 'records reassigned'`)
	).toEqual([{ actor: 'owner' }]);
	await after.close();
}, 240_000);
