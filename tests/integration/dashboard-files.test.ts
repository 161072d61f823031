/**
 * The dashboard's records over a real start: a corrupt database, or a corrupt settings or ledger
 * file of an older release (imported at start), stops the start with an error naming it, and
 * nothing is reset; the data folder is created owner-only (0700), the database file 0600; a
 * ledger the database refuses keeps counting and says so on the Account page.
 */
import { mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { startPostgres, type RunningPostgres } from '../support/postgres';
import {
	rawRequest,
	runToExit,
	startDashboard,
	startStubUpstream,
	type StubUpstream
} from './dashboard-support';

let stub: StubUpstream;
let postgres: RunningPostgres;

beforeAll(async () => {
	stub = await startStubUpstream();
	postgres = await startPostgres();
});

afterAll(async () => {
	await stub?.close();
	postgres?.stop();
});

describe('state files at start', () => {
	for (const file of ['settings.json', 'ledger.json']) {
		it(`a corrupt ${file} stops the start, naming the file, and keeps a copy`, async () => {
			const dataDir = mkdtempSync(join(tmpdir(), 'gexdeck-corrupt-'));
			const garbage = '{"version":1,"customKey":"gexbot_custom_';
			writeFileSync(join(dataDir, file), garbage);
			const run = await runToExit(['scripts/start.js'], {
				HOST: '127.0.0.1',
				PORT: '0',
				GEXDECK_DATA_DIR: dataDir,
				...stub.env
			});
			expect(run.code).toBe(1);
			expect(run.output).toContain(join(dataDir, file));
			expect(run.output).toMatch(/is corrupt/);
			expect(readFileSync(join(dataDir, file), 'utf8')).toBe(garbage);
			const copies = readdirSync(dataDir).filter((f) => f.startsWith(`${file}.corrupt-`));
			expect(copies).toHaveLength(1);
			expect(readFileSync(join(dataDir, copies[0]), 'utf8')).toBe(garbage);
		});
	}

	it('a corrupt database file stops the start, naming it, and is left as it was', async () => {
		const dataDir = mkdtempSync(join(tmpdir(), 'gexdeck-corrupt-db-'));
		const garbage = 'not a database '.repeat(500);
		writeFileSync(join(dataDir, 'gexdeck.db'), garbage);
		const run = await runToExit(['scripts/start.js'], {
			HOST: '127.0.0.1',
			PORT: '0',
			GEXDECK_DATA_DIR: dataDir,
			...stub.env
		});
		expect(run.code).toBe(1);
		expect(run.output).toContain(join(dataDir, 'gexdeck.db'));
		expect(run.output).toMatch(/is corrupt or not a gexdeck database/);
		expect(readFileSync(join(dataDir, 'gexdeck.db'), 'utf8')).toBe(garbage);
	});

	it('creates the data folder 0700 and the database file 0600', async () => {
		const parent = mkdtempSync(join(tmpdir(), 'gexdeck-mode-'));
		const dataDir = join(parent, 'state', 'dashboard');
		const d = await startDashboard({
			GEXDECK_DATA_DIR: dataDir,
			...stub.env
		});
		try {
			expect(statSync(dataDir).mode & 0o777).toBe(0o700);
			expect(statSync(join(parent, 'state')).mode & 0o777).toBe(0o700);
			expect(statSync(join(dataDir, 'gexdeck.db')).mode & 0o777).toBe(0o600);
		} finally {
			await d.stop();
		}
	});

	it('a ledger the database refuses keeps the process up and says so on the Account page', async () => {
		const url = await postgres.freshDatabase();
		const d = await startDashboard({ GEXDECK_DATABASE_URL: url, ...stub.env });
		const db = new pg.Client({ connectionString: url });
		await db.connect();
		const waitFor = async (check: () => boolean | Promise<boolean>) => {
			for (let i = 0; i < 50 && !(await check()); i++) await new Promise((r) => setTimeout(r, 100));
		};
		const daily = async () =>
			(
				await db.query(
					`SELECT requests FROM quota_spend WHERE pool = 'api_default' AND period = 'daily'`
				)
			).rows[0]?.requests as string | undefined;
		const accountPage = async () => (await rawRequest(d.port, 'GET', '/account')).body;
		try {
			await rawRequest(d.port, 'GET', '/api/SPX/classic/gex_full');
			await waitFor(async () => (await daily()) === '1');
			expect(await daily()).toBe('1');
			// The table is gone from under the dashboard, as when a database refuses writes.
			await db.query(`ALTER TABLE quota_spend RENAME TO quota_spend_away`);
			await rawRequest(d.port, 'GET', '/api/SPX/classic/gex_zero');
			await waitFor(async () => (await accountPage()).includes('ledger-write-error'));
			const page = await accountPage();
			expect(page).toContain('the quota ledger is not being saved');
			expect(page).toContain('the quota ledger could not be saved in postgres://');
			expect(d.proc.exitCode).toBeNull();
			expect((await rawRequest(d.port, 'GET', '/api/tickers')).status).toBe(200);
			// Once the database takes writes again the counts are written and the notice goes.
			await db.query(`ALTER TABLE quota_spend_away RENAME TO quota_spend`);
			await rawRequest(d.port, 'GET', '/api/SPX/classic/gex_one');
			await waitFor(async () => (await daily()) === '3');
			expect(await daily()).toBe('3');
			expect(await accountPage()).not.toContain('ledger-write-error');
		} finally {
			await db.end();
			await d.stop();
		}
	});
});
