/**
 * The database layer against both engines it supports: the embedded SQLite file and a real
 * PostgreSQL (Debian's, started by tests/support/postgres.ts). The same migrations, the same
 * answers; a corrupt, unreachable or newer database stops with an error naming it.
 */
import { spawn } from 'node:child_process';
import {
	existsSync,
	mkdirSync,
	mkdtempSync,
	readFileSync,
	rmSync,
	statSync,
	utimesSync,
	writeFileSync
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPostgres, type RunningPostgres } from '../../../../tests/support/postgres';
import {
	DatabaseError,
	LATEST_VERSION,
	migrate,
	openDatabase,
	schemaVersion,
	sqlitePath,
	type DatabaseTarget
} from './index';
import { MIGRATIONS, type Migration } from './migrations';
import { numberPlaceholders, redactUrl } from './postgres';

let postgres: RunningPostgres;
const dirs: string[] = [];

beforeAll(async () => {
	postgres = await startPostgres();
});
afterAll(() => {
	postgres?.stop();
	for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function tempDir(): string {
	const d = mkdtempSync(join(tmpdir(), 'gexdeck-db-'));
	dirs.push(d);
	return d;
}

const engines: { engine: string; target: () => Promise<DatabaseTarget> }[] = [
	{ engine: 'sqlite', target: async () => ({ dataDir: tempDir() }) },
	{
		engine: 'postgres',
		target: async () => ({ dataDir: tempDir(), url: await postgres.freshDatabase() })
	}
];

describe.each(engines)('database on $engine', ({ engine, target }) => {
	it('creates the schema at the latest version, and reopening applies nothing twice', async () => {
		const t = await target();
		const db = await openDatabase(t);
		expect(db.kind).toBe(engine);
		expect(await schemaVersion(db)).toBe(LATEST_VERSION);
		await db.run(`INSERT INTO settings (name, value) VALUES (?, ?)`, ['customKey', 'k1']);
		await db.close();
		const again = await openDatabase(t);
		expect(await schemaVersion(again)).toBe(LATEST_VERSION);
		expect(await again.all(`SELECT version FROM schema_version`)).toHaveLength(MIGRATIONS.length);
		expect(await again.get(`SELECT value FROM settings WHERE name = ?`, ['customKey'])).toEqual({
			value: 'k1'
		});
		await again.close();
	});

	it('answers numbers as numbers and upserts with ON CONFLICT', async () => {
		const db = await openDatabase(await target());
		const row = ['acct', 'classic', 'daily', '2026-11-27'];
		const upsert = `INSERT INTO quota_spend (account, pool, period, window_id, requests, rate_limited)
			VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (account, pool, period)
			DO UPDATE SET requests = excluded.requests, rate_limited = excluded.rate_limited`;
		expect(await db.run(upsert, [...row, 5, 0])).toBe(1);
		await db.run(upsert, [...row, 2 ** 40, 3]);
		const got = await db.get(`SELECT requests, rate_limited FROM quota_spend`);
		expect(got).toEqual({ requests: 2 ** 40, rate_limited: 3 });
		expect(await db.get(`SELECT COUNT(*) AS n FROM quota_spend`)).toEqual({ n: 1 });
		expect(await db.get(`SELECT value FROM settings WHERE name = ?`, ['none'])).toBeUndefined();
		await db.close();
	});

	it('rolls a failed transaction back whole and never interleaves two', async () => {
		const db = await openDatabase(await target());
		await expect(
			db.transaction(async (tx) => {
				await tx.run(`INSERT INTO settings (name, value) VALUES (?, ?)`, ['a', '1']);
				throw new Error('boom');
			})
		).rejects.toThrow('boom');
		expect(await db.all(`SELECT * FROM settings`)).toEqual([]);
		// Read-modify-write in parallel: each sees the other's commit, none is lost.
		await db.run(`INSERT INTO settings (name, value) VALUES (?, ?)`, ['n', '0']);
		await Promise.all(
			Array.from({ length: 5 }, () =>
				db.transaction(async (tx) => {
					if (db.kind === 'postgres') await tx.run('SELECT pg_advisory_xact_lock(7)');
					const r = await tx.get<{ value: string }>(`SELECT value FROM settings WHERE name = 'n'`);
					await new Promise((res) => setTimeout(res, 5));
					await tx.run(`UPDATE settings SET value = ? WHERE name = 'n'`, [
						String(Number(r?.value) + 1)
					]);
				})
			)
		);
		expect(await db.get(`SELECT value FROM settings WHERE name = 'n'`)).toEqual({ value: '5' });
		await db.close();
	});

	it('a statement issued while another caller holds a transaction is not rolled back with it', async () => {
		const db = await openDatabase(await target());
		let inside!: () => void;
		const opened = new Promise<void>((res) => (inside = res));
		const failing = db.transaction(async (tx) => {
			await tx.run(`INSERT INTO settings (name, value) VALUES (?, ?)`, ['tx', '1']);
			inside();
			await new Promise((res) => setTimeout(res, 30));
			throw new Error('boom');
		});
		await opened;
		// Another caller's write while the transaction is open (and awaiting).
		const outside = db.run(`INSERT INTO settings (name, value) VALUES (?, ?)`, ['outside', '1']);
		await expect(failing).rejects.toThrow('boom');
		await outside;
		expect(await db.all(`SELECT name FROM settings ORDER BY name`)).toEqual([{ name: 'outside' }]);
		// The transaction's own work may also go through the top-level methods.
		await db.transaction(async () => {
			await db.run(`INSERT INTO settings (name, value) VALUES (?, ?)`, ['own', '1']);
		});
		expect(await db.get(`SELECT value FROM settings WHERE name = 'own'`)).toEqual({ value: '1' });
		await db.close();
	});

	it('a step that fails leaves the schema at the step before it', async () => {
		const t = await target();
		const broken: Migration[] = [
			...MIGRATIONS,
			{
				version: LATEST_VERSION + 1,
				summary: 'broken',
				statements: [`CREATE TABLE half (x INTEGER)`, `NOT SQL AT ALL`]
			}
		];
		await expect(openDatabase(t, broken)).rejects.toThrow();
		const db = await openDatabase(t);
		expect(await schemaVersion(db)).toBe(LATEST_VERSION);
		// The step's first statement was rolled back with it.
		await expect(db.all(`SELECT * FROM half`)).rejects.toThrow();
		await db.close();
	});

	it('refuses a database written by a newer release, naming it, and changes nothing', async () => {
		const t = await target();
		const db = await openDatabase(t);
		await db.run(`INSERT INTO schema_version (version) VALUES (?)`, [LATEST_VERSION + 7]);
		await db.close();
		const err = await openDatabase(t).catch((e: unknown) => e);
		expect(err).toBeInstanceOf(DatabaseError);
		const message = (err as Error).message;
		expect(message).toContain(t.url ? redactUrl(t.url) : sqlitePath(t.dataDir));
		expect(message).toContain(`schema version ${LATEST_VERSION + 7}`);
		expect(message).toContain('newer gexdeck');
		const raw = await openDatabase(t, []).catch((e: unknown) => e);
		expect(raw).toBeInstanceOf(DatabaseError);
	});
});

describe('embedded database file', () => {
	it('is created owner-only', async () => {
		const dataDir = tempDir();
		const db = await openDatabase({ dataDir });
		await db.close();
		expect(statSync(sqlitePath(dataDir)).mode & 0o777).toBe(0o600);
	});

	it('a corrupt file stops the start with an error naming it, and is left as it was', async () => {
		const dataDir = tempDir();
		const path = sqlitePath(dataDir);
		const junk = Buffer.from('this is not a database '.repeat(300));
		writeFileSync(path, junk);
		const err = await openDatabase({ dataDir }).catch((e: unknown) => e);
		expect(err).toBeInstanceOf(DatabaseError);
		expect((err as Error).message).toContain(path);
		expect((err as Error).message).toContain('corrupt');
		expect(readFileSync(path).equals(junk)).toBe(true);
	});

	it('a damaged page of a real database is found by the integrity check', async () => {
		const dataDir = tempDir();
		const db = await openDatabase({ dataDir });
		await db.transaction(async (tx) => {
			for (let i = 0; i < 400; i++) {
				await tx.run(`INSERT INTO settings (name, value) VALUES (?, ?)`, [
					`k${i}`,
					'v'.repeat(200)
				]);
			}
		});
		await db.close();
		const path = sqlitePath(dataDir);
		const bytes = readFileSync(path);
		// Overwrite the middle pages (the header, the schema and schema_version stay readable).
		bytes.fill(0xa5, 4096 * 10, 4096 * 14);
		writeFileSync(path, bytes);
		await expect(openDatabase({ dataDir })).rejects.toThrow(/corrupt/);
	});
});

describe('embedded database shared by two processes', () => {
	it('a lock folder left by a killed process is cleared at open; a fresh one is waited for', async () => {
		const dataDir = tempDir();
		const path = sqlitePath(dataDir);
		await (await openDatabase({ dataDir })).close();
		const lock = `${path}.lock`;
		mkdirSync(lock);
		const old = new Date(Date.now() - 120_000);
		utimesSync(lock, old, old);
		const db = await openDatabase({ dataDir });
		await db.run(`INSERT INTO settings (name, value) VALUES (?, ?)`, ['a', '1']);
		expect(existsSync(lock)).toBe(false);
		// A lock held right now (another process mid-write) is waited for, then the write goes on.
		// (The wait blocks this thread, so the holder must be another process.)
		mkdirSync(lock);
		const holder = spawn(process.execPath, [
			'-e',
			`setTimeout(() => require('fs').rmSync(${JSON.stringify(lock)}, { recursive: true }), 300)`
		]);
		await new Promise((r) => holder.once('spawn', r));
		const started = Date.now();
		await db.run(`INSERT INTO settings (name, value) VALUES (?, ?)`, ['b', '2']);
		expect(Date.now() - started).toBeGreaterThanOrEqual(200);
		await new Promise((r) => (holder.exitCode === null ? holder.once('exit', r) : r(null)));
		expect(await db.all(`SELECT name FROM settings ORDER BY name`)).toEqual([
			{ name: 'a' },
			{ name: 'b' }
		]);
		await db.close();
	});
});

describe('postgres adapter', () => {
	it('numbers placeholders and never shows the password', () => {
		expect(numberPlaceholders('a = ? AND b IN (?, ?)')).toBe('a = $1 AND b IN ($2, $3)');
		expect(redactUrl('postgres://u:secret@h:5/db')).toBe('postgres://u:***@h:5/db');
	});

	it('an unreachable server stops the start with an error naming the URL without its password', async () => {
		const err = await openDatabase({
			dataDir: tempDir(),
			url: 'postgres://gexdeck:hunter2@127.0.0.1:1/db'
		}).catch((e: unknown) => e);
		expect(err).toBeInstanceOf(DatabaseError);
		expect((err as Error).message).toContain('postgres://gexdeck:***@127.0.0.1:1/db');
		expect((err as Error).message).not.toContain('hunter2');
	});

	it('migrate() on an open database reports the version it reached', async () => {
		const db = await openDatabase({ dataDir: tempDir(), url: await postgres.freshDatabase() });
		expect(await migrate(db)).toBe(LATEST_VERSION);
		await db.close();
	});
});
