/**
 * An older release's ledger.json on the first start with the database: a ledger is imported into
 * `quota_spend` (and counted on from there), the file kept as its backup; a file that is JSON but
 * not a ledger stops the start naming it, imports nothing and is left where it was; replicas
 * starting together on one PostgreSQL import it once, and none stops on the import mark.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { useDatabases } from '../../../../tests/support/databases';
import { CorruptFileError } from '../jsonFile';
import { QuotaLedger } from '../quotaLedger';
import { openDatabase } from './index';
import { backupName, importLegacyFiles } from './legacyImport';

const engines = useDatabases();

const LEDGER = {
	version: 1,
	accounts: {
		'acct-1': {
			api_default: {
				daily: { window: '2026-11-20', requests: 7, rateLimited: 1 },
				monthly: { window: '2026-11', requests: 9, rateLimited: 2 }
			}
		}
	}
};

describe.each(engines)('ledger.json imported on $engine', ({ target }) => {
	it('becomes the ledger, counted on from where the file left it; the file is kept as its backup', async () => {
		const t = await target();
		const text = JSON.stringify(LEDGER);
		writeFileSync(join(t.dataDir, 'ledger.json'), text);
		const db = await openDatabase(t);
		try {
			expect(await importLegacyFiles(db, t.dataDir)).toEqual(['ledger.json']);
			expect(existsSync(join(t.dataDir, 'ledger.json'))).toBe(false);
			expect(readFileSync(join(t.dataDir, backupName('ledger.json')), 'utf8')).toBe(text);
			// 12:00 ET on the file's day.
			const ledger = await QuotaLedger.load(db, () => new Date('2026-11-20T17:00:00Z'));
			ledger.record('acct-1', 'api_default', 200);
			expect(ledger.usage('acct-1')).toEqual({
				api_default: {
					daily: { window: '2026-11-20', requests: 8, rateLimited: 1 },
					monthly: { window: '2026-11', requests: 10, rateLimited: 2 }
				}
			});
			await ledger.flush();
		} finally {
			await db.close();
		}
	});
});

describe.each(engines)('an earlier backup on $engine', ({ target }) => {
	it('is never overwritten: the new one takes the next free name', async () => {
		const t = await target();
		writeFileSync(join(t.dataDir, backupName('ledger.json')), 'the first backup');
		writeFileSync(join(t.dataDir, `${backupName('ledger.json')}.2`), 'the second backup');
		writeFileSync(join(t.dataDir, 'ledger.json'), JSON.stringify(LEDGER));
		const db = await openDatabase(t);
		try {
			expect(await importLegacyFiles(db, t.dataDir)).toEqual(['ledger.json']);
			const read = (name: string) => readFileSync(join(t.dataDir, name), 'utf8');
			expect(read(backupName('ledger.json'))).toBe('the first backup');
			expect(read(`${backupName('ledger.json')}.2`)).toBe('the second backup');
			expect(read(`${backupName('ledger.json')}.3`)).toBe(JSON.stringify(LEDGER));
		} finally {
			await db.close();
		}
	});
});

describe('replicas starting together on one PostgreSQL', () => {
	it("import one replica's ledger.json, only that one's, and none fails on the import mark", async () => {
		const postgres = engines.find((e) => e.engine === 'postgres')!;
		const first = await postgres.target();
		const dirs = [
			first.dataDir,
			...(await Promise.all([1, 2].map(() => postgres.target()))).map((t) => t.dataDir)
		];
		// Each replica's file counts differently: the database must hold the importer's alone.
		const requests = [7, 8, 9];
		dirs.forEach((d, i) => {
			const ledger = structuredClone(LEDGER);
			ledger.accounts['acct-1'].api_default.daily.requests = requests[i];
			writeFileSync(join(d, 'ledger.json'), JSON.stringify(ledger));
		});
		const dbs = await Promise.all(dirs.map((dataDir) => openDatabase({ dataDir, url: first.url })));
		try {
			const imported = await Promise.all(dbs.map((db, i) => importLegacyFiles(db, dirs[i])));
			expect(imported.flat()).toEqual(['ledger.json']);
			const importer = imported.findIndex((names) => names.length > 0);
			// Each replica's copy is kept as its backup, imported or not.
			for (const d of dirs) expect(existsSync(join(d, backupName('ledger.json')))).toBe(true);
			const ledger = await QuotaLedger.load(dbs[0], () => new Date('2026-11-20T17:00:00Z'));
			expect(ledger.usage('acct-1').api_default?.daily.requests).toBe(requests[importer]);
		} finally {
			await Promise.all(dbs.map((db) => db.close()));
		}
	});
});

describe('a ledger.json that is not a ledger', () => {
	const dirs: string[] = [];
	afterAll(() => {
		for (const d of dirs) rmSync(d, { recursive: true, force: true });
	});

	it.each([
		['null', null],
		['a number', 5],
		['a string', 'ledger'],
		['an array', []],
		['another version', { ...LEDGER, version: 2 }],
		['no accounts', { version: 1 }],
		['null accounts', { version: 1, accounts: null }],
		['accounts as a string', { version: 1, accounts: 'acct-1' }],
		['accounts as a number', { version: 1, accounts: 7 }]
	])('(%s) stops the start naming it, imports nothing, and is left as it was', async (_, value) => {
		const dataDir = mkdtempSync(join(tmpdir(), 'gexdeck-legacy-'));
		dirs.push(dataDir);
		const path = join(dataDir, 'ledger.json');
		const text = JSON.stringify(value);
		writeFileSync(path, text);
		const db = await openDatabase({ dataDir });
		try {
			const err = await importLegacyFiles(db, dataDir).then(
				() => undefined,
				(e: unknown) => e
			);
			expect(err).toBeInstanceOf(CorruptFileError);
			// It is JSON, just not a ledger: the message says which.
			expect((err as Error).message).toContain(`${path} is corrupt (not the expected content)`);
			expect(readFileSync(path, 'utf8')).toBe(text);
			expect(await db.all(`SELECT * FROM quota_spend`)).toEqual([]);
			expect(await db.all(`SELECT * FROM imported_files`)).toEqual([]);
		} finally {
			await db.close();
		}
	});
});
