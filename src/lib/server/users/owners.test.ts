/**
 * Issue 29: what the single-user mode made (owner '') becomes the first admin's when teams mode
 * starts, through the CLI (`npm run user -- add --admin`) on both engines: alert rules, webhooks,
 * firings, integration tokens, the always-record list and workspace layouts; a trader added first
 * changes nothing; a layout whose name the admin already uses stays where it was; audited once.
 */
import { describe, expect, it } from 'vitest';
import { useDatabases } from '../../../../tests/support/databases';
import { openDatabase, type Database } from '../db/index';
import { TokenStore } from '../tokens/tokenStore';
import { main } from './cli';
import { adoptImplicitRecords } from './owners';
import { UserStore } from './userStore';

const engines = useDatabases();

async function singleUserRecords(db: Database) {
	await db.run(`INSERT INTO alert_rules (id, owner, position, body) VALUES ('r1', '', 1, '{}')`);
	await db.run(`INSERT INTO alert_webhooks (id, owner, position, body) VALUES ('w1', '', 1, '{}')`);
	await db.run(
		`INSERT INTO alert_firings (idem_key, rule_id, owner, at, fired_at, test, body)
		VALUES ('r1@1', 'r1', '', 1, 1, 0, '{}')`
	);
	await db.run(`INSERT INTO user_recording (owner, always_record) VALUES ('', '["SPX"]')`);
	for (const name of ['mine', 'clash']) {
		await db.run(
			`INSERT INTO workspace_layouts (owner, name, query, updated_at) VALUES ('', ?, 'q', 1)`,
			[name]
		);
	}
	return new TokenStore(db).create('desk', ['feed']);
}

const owners = async (db: Database) =>
	Object.fromEntries(
		await Promise.all(
			['alert_rules', 'alert_webhooks', 'alert_firings', 'tokens', 'user_recording'].map(
				async (table) => [
					table,
					(await db.all<{ owner: string }>(`SELECT owner FROM ${table}`)).map((r) => r.owner)
				]
			)
		)
	);

describe.each(engines)('the implicit admin’s records on $engine', ({ target }) => {
	it('become the first admin’s when the CLI adds them', async () => {
		const t = await target();
		const db = await openDatabase(t);
		const { token } = await singleUserRecords(db);
		const env = { ...process.env };
		process.env.GEXDECK_DATA_DIR = t.dataDir;
		if (t.url) process.env.GEXDECK_DATABASE_URL = t.url;
		else delete process.env.GEXDECK_DATABASE_URL;
		const run = (argv: string[]) =>
			main(
				argv,
				async () => 'typed password',
				() => undefined,
				() => undefined
			);
		try {
			// A trader first: teams mode begins, but nothing is theirs.
			expect(await run(['add', '--trader', 'tom'])).toBe(0);
			expect(Object.values(await owners(db)).flat()).toEqual(['', '', '', '', '']);
			expect(await run(['add', '--admin', 'ann'])).toBe(0);
		} finally {
			process.env = env;
		}
		const ann = (await new UserStore(db).byName('ann'))!;
		expect(await owners(db)).toEqual({
			alert_rules: [ann.id],
			alert_webhooks: [ann.id],
			alert_firings: [ann.id],
			tokens: [ann.id],
			user_recording: [ann.id]
		});
		// The token works again, as the admin's.
		expect(await new TokenStore(db).check(token, 'feed')).toMatchObject({
			ok: true,
			role: 'admin'
		});
		const audit = await db.all<{ actor: string; detail: string }>(
			`SELECT actor, detail FROM audit_log WHERE action = 'records reassigned'`
		);
		expect(audit).toEqual([{ actor: 'cli', detail: expect.stringMatching(/^7 .* to ann$/) }]);
		// Nothing left to move: a second admin changes nothing.
		expect(await adoptImplicitRecords(db)).toBe(0);
		await db.close();
	});

	it('leaves a layout whose name the admin already uses', async () => {
		const db = await openDatabase(await target());
		await singleUserRecords(db);
		const ann = await new UserStore(db).add('ann', 'admin', 'a long password');
		await db.run(
			`INSERT INTO workspace_layouts (owner, name, query, updated_at) VALUES (?, 'clash', 'x', 1)`,
			[ann.id]
		);
		expect(await adoptImplicitRecords(db)).toBe(6);
		const layouts = await db.all<{ owner: string; name: string; query: string }>(
			`SELECT owner, name, query FROM workspace_layouts ORDER BY name, owner`
		);
		expect(layouts).toEqual([
			{ owner: '', name: 'clash', query: 'q' },
			{ owner: ann.id, name: 'clash', query: 'x' },
			{ owner: ann.id, name: 'mine', query: 'q' }
		]);
		await db.close();
	});
});
