/**
 * The upgrade from a data folder of the release before the database (a fixture made by that
 * release's code: tests/fixtures/data-before-db/), on both databases: the keys and the quota
 * ledger, the integration tokens, the recording settings and the alert rules and webhooks are
 * imported into the database (the old token still opens the feed, /alerts lists the rule), the
 * JSON files are kept as backups beside it (`<name>.imported`, byte for byte), and a second start
 * imports nothing again.
 */
import { copyFileSync, existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useDatabases } from '../support/databases';
import { openDatabase } from '../../src/lib/server/db/index';
import {
	rawRequest,
	startDashboard,
	startStubUpstream,
	type StubUpstream
} from './dashboard-support';

const FIXTURE = join(import.meta.dirname, '..', 'fixtures', 'data-before-db');
/** The token the fixture's tokens.json holds the hash of (printed once when it was made). */
const OLD_TOKEN = 'gxd_IP2rikZLd5rfr10nQrc3IwetjywcqFW0TnVcXlenILk';
const engines = useDatabases();
let stub: StubUpstream;

beforeAll(async () => {
	stub = await startStubUpstream();
});
afterAll(async () => {
	await stub?.close();
});

function fixtureCopy(): string {
	const dataDir = mkdtempSync(join(tmpdir(), 'gexdeck-upgrade-'));
	for (const f of readdirSync(FIXTURE).filter((n) => n.endsWith('.json'))) {
		copyFileSync(join(FIXTURE, f), join(dataDir, f));
	}
	return dataDir;
}

describe.each(engines)('upgrade to the database on $engine', ({ target }) => {
	it('imports keys and ledger, keeps the files as backups, loses nothing', async () => {
		const t = await target();
		const dataDir = fixtureCopy();
		const env = { ...stub.env, GEXDECK_DATA_DIR: dataDir, GEXDECK_DATABASE_URL: t.url };
		const first = await startDashboard(env);
		const feed = (token: string) =>
			rawRequest(first.port, 'GET', '/feed/v1/levels/SPX', { authorization: `Bearer ${token}` });
		try {
			// The old token is known (whatever the feed then answers, it is not a 401).
			expect((await feed(OLD_TOKEN)).status).not.toBe(401);
			expect((await feed(OLD_TOKEN.slice(0, -1) + 'x')).status).toBe(401);
			const alerts = await rawRequest(first.port, 'GET', '/alerts', { accept: 'text/html' });
			expect(alerts.status).toBe(200);
			expect(alerts.body).toContain('data-rule-id="zg-spx"');
		} finally {
			await first.stop();
		}
		expect(first.output()).toContain('settings.json imported into the database');

		for (const name of [
			'settings.json',
			'ledger.json',
			'tokens.json',
			'recording.json',
			'alerts.json'
		]) {
			expect(existsSync(join(dataDir, name)), name).toBe(false);
			expect(readFileSync(join(dataDir, `${name}.imported`), 'utf8'), name).toBe(
				readFileSync(join(FIXTURE, name), 'utf8')
			);
		}

		// A second start finds nothing to import and changes no backup.
		const second = await startDashboard(env);
		await second.stop();
		expect(second.output()).not.toContain('imported into the database');
		expect(
			readdirSync(dataDir)
				.filter((n) => n.includes('.imported'))
				.sort()
		).toEqual([
			'alerts.json.imported',
			'ledger.json.imported',
			'recording.json.imported',
			'settings.json.imported',
			'tokens.json.imported'
		]);

		const db = await openDatabase({ ...t, dataDir });
		try {
			const settings = JSON.parse(readFileSync(join(FIXTURE, 'settings.json'), 'utf8'));
			const rows = await db.all<{ name: string; value: string }>(
				`SELECT name, value FROM settings ORDER BY name`
			);
			expect(Object.fromEntries(rows.map((r) => [r.name, r.value]))).toEqual({
				customKey: settings.customKey,
				researchKey: settings.researchKey,
				demoAccountId: settings.demoAccountId,
				recording: JSON.stringify({
					alwaysRecord: ['SPX', 'QQQ'],
					retentionDays: 30,
					maxBytes: 2 * 1024 ** 3
				})
			});
			expect(
				await db.all(
					`SELECT account, pool, period, window_id, requests, rate_limited FROM quota_spend
					WHERE account = 'acct-1' ORDER BY pool, period`
				)
			).toEqual([
				{
					account: 'acct-1',
					pool: 'api_default',
					period: 'daily',
					window_id: '2026-11-20',
					requests: 7,
					rate_limited: 1
				},
				{
					account: 'acct-1',
					pool: 'api_default',
					period: 'monthly',
					window_id: '2026-11',
					requests: 7,
					rate_limited: 1
				},
				{
					account: 'acct-1',
					pool: 'api_majors',
					period: 'daily',
					window_id: '2026-11-20',
					requests: 3,
					rate_limited: 0
				},
				{
					account: 'acct-1',
					pool: 'api_majors',
					period: 'monthly',
					window_id: '2026-11',
					requests: 3,
					rate_limited: 0
				}
			]);
			const alerts = JSON.parse(readFileSync(join(FIXTURE, 'alerts.json'), 'utf8'));
			const entries = (table: string) =>
				db.all<{ body: string; owner: string }>(`SELECT owner, body FROM ${table}`);
			for (const [table, list] of [
				['alert_rules', alerts.rules],
				['alert_webhooks', alerts.webhooks]
			]) {
				const stored = await entries(table);
				expect(stored.map((r) => r.owner)).toEqual(list.map(() => ''));
				// Stored as the parser completes them: every field of the old file, as written.
				stored.forEach((r, i) => expect(JSON.parse(r.body)).toMatchObject(list[i]));
			}
			expect(await db.all(`SELECT id, name, scopes, last_used_from FROM tokens`)).toEqual([
				{ id: 'b9977ef8', name: 'ninja desk', scopes: 'feed', last_used_from: '127.0.0.1' }
			]);
		} finally {
			await db.close();
		}
	});
});
