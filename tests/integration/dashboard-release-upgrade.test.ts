/**
 * The upgrade from a data folder of the release before this one (a fixture made by that
 * release's own code at 3d9a57c: tests/fixtures/data-release-3d9a57c/, see its README): its
 * SQLite database at schema version 3 (keys, quota ledger, a feed token, the recording settings,
 * the admin user GEXDECK_PASSWORD became), its alerts.json and alerts-firings.json, and one
 * recorded day. The current dashboard migrates the database, imports the alert files (kept
 * byte for byte as backups) and loses nothing: the password signs in, the token opens the feed,
 * the rule and its five firings are on /alerts, the recorded day is served, the keys and the
 * ledger are as they were. (The fixture is an embedded database: an upgrade on PostgreSQL starts
 * from PostgreSQL and is covered by dashboard-upgrade.test.ts.)
 */
import { cpSync, existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LATEST_VERSION, openDatabase, schemaVersion } from '../../src/lib/server/db/index';
import {
	rawRequest,
	setCookies,
	startDashboard,
	startStubUpstream,
	type StubUpstream
} from './dashboard-support';

const FIXTURE = join(import.meta.dirname, '..', 'fixtures', 'data-release-3d9a57c');
/** What the fixture was made with (make-fixture.ts.txt printed the token once). */
const PASSWORD = 'release fixture password';
const TOKEN = 'gxd_wRAEEKSbOV5T8_vdA-l27c_MXCh-0fQnjA-Vu9Q1seA';
const T0 = Date.UTC(2026, 10, 20, 15, 0, 0) / 1000;
let stub: StubUpstream;

beforeAll(async () => {
	stub = await startStubUpstream();
});
afterAll(async () => {
	await stub?.close();
});

describe('upgrade from the release before (3d9a57c)', () => {
	it('migrates the database, imports the alert files, loses nothing', async () => {
		const dataDir = mkdtempSync(join(tmpdir(), 'gexdeck-release-upgrade-'));
		cpSync(FIXTURE, dataDir, { recursive: true });
		const app = await startDashboard({ ...stub.env, GEXDECK_DATA_DIR: dataDir });
		try {
			const csrf = setCookies((await rawRequest(app.port, 'GET', '/login')).headers).gexdeck_csrf;
			const login = await rawRequest(
				app.port,
				'POST',
				'/login?/login',
				{
					origin: app.base,
					accept: 'text/html',
					cookie: `gexdeck_csrf=${csrf}`,
					'content-type': 'application/x-www-form-urlencoded'
				},
				new URLSearchParams({ csrf, name: 'admin', password: PASSWORD }).toString()
			);
			const session = setCookies(login.headers).gexdeck_session;
			expect(session, `sign-in answered ${login.status}`).toBeTruthy();
			const get = (path: string, headers: Record<string, string> = {}) =>
				rawRequest(app.port, 'GET', path, { cookie: `gexdeck_session=${session}`, ...headers });

			const alerts = await get('/alerts', { accept: 'text/html' });
			expect(alerts.status).toBe(200);
			expect(alerts.body).toContain('data-rule-id="zg-release"');
			const firings = JSON.parse(readFileSync(join(FIXTURE, 'alerts-firings.json'), 'utf8'));
			expect(firings).toHaveLength(5);
			for (const f of firings) expect(alerts.body).toContain(f.message);

			const feed = await rawRequest(app.port, 'GET', '/feed/v1/levels/SPX', {
				authorization: `Bearer ${TOKEN}`
			});
			expect(feed.status).not.toBe(401);
			const day = await get('/history/SPX/classic_gex_full?day=2026-11-20');
			expect(day.status).toBe(200);
			expect(day.headers['x-gexdeck-records']).toBe('6');
		} finally {
			await app.stop();
		}
		expect(app.output()).toContain(`schema version ${LATEST_VERSION}`);
		for (const name of ['alerts.json', 'alerts-firings.json']) {
			expect(existsSync(join(dataDir, name)), name).toBe(false);
			expect(readFileSync(join(dataDir, `${name}.imported`), 'utf8'), name).toBe(
				readFileSync(join(FIXTURE, name), 'utf8')
			);
		}

		const db = await openDatabase({ dataDir });
		try {
			expect(await schemaVersion(db)).toBe(LATEST_VERSION);
			expect(
				await db.all(`SELECT name, value FROM settings WHERE name IN (?, ?) ORDER BY name`, [
					'customKey',
					'demoAccountId'
				])
			).toEqual([
				{ name: 'customKey', value: 'gexbot_custom_release_fixture' },
				{ name: 'demoAccountId', value: 'demo-classic' }
			]);
			expect(
				await db.all(
					`SELECT pool, period, requests, rate_limited FROM quota_spend
					WHERE account = 'acct-1' ORDER BY period`
				)
			).toEqual([
				{ pool: 'api_default', period: 'daily', requests: 5, rate_limited: 1 },
				{ pool: 'api_default', period: 'monthly', requests: 5, rate_limited: 1 }
			]);
			expect(await db.get(`SELECT value FROM settings WHERE name = 'recording'`)).toEqual({
				value: JSON.stringify({ alwaysRecord: ['SPX'], retentionDays: 25, maxBytes: 3 * 1024 ** 3 })
			});
			const keys = await db.all<{ idem_key: string }>(
				`SELECT idem_key FROM alert_firings ORDER BY at`
			);
			expect(keys.map((k) => k.idem_key)).toEqual(
				[1, 2, 3, 4, 5].map((i) => `zg-release@${T0 + i}`)
			);
			// The single-user release's records are the admin's that its password became: no rule,
			// firing, token or always-record list is left to the implicit admin of no users.
			const admin = await db.get<{ id: string }>(`SELECT id FROM users WHERE name = 'admin'`);
			expect(admin?.id).toBeTruthy();
			for (const table of ['alert_rules', 'alert_firings', 'tokens', 'user_recording']) {
				expect(await db.all(`SELECT DISTINCT owner FROM ${table}`), table).toEqual([
					{ owner: admin!.id }
				]);
			}
			expect(
				await db.get(`SELECT always_record FROM user_recording WHERE owner = ?`, [admin!.id])
			).toEqual({ always_record: JSON.stringify(['SPX']) });
		} finally {
			await db.close();
		}
	}, 120_000);
});
