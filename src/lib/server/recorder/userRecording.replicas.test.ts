/**
 * Replicas starting together on one PostgreSQL each run the start's one-time import of the
 * single always-record list of the release before (importSingleList): one of them imports it
 * and none fails. They used to look the import up, find it missing and all insert it, and all
 * but one stopped on imported_files' key (a fresh-clone CI run, 2026-11-28: "duplicate key value
 * violates unique constraint imported_files_pkey" from a replica of cluster-sessions.test.ts).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startPostgres, type RunningPostgres } from '../../../../tests/support/postgres';
import { openDatabase } from '../db/index';
import { RECORDING_ROW } from './recordingStore';
import { importSingleList } from './userRecording';

let postgres: RunningPostgres;
const dataDir = mkdtempSync(join(tmpdir(), 'gexdeck-replicas-'));

beforeAll(async () => {
	postgres = await startPostgres();
});
afterAll(() => {
	postgres?.stop();
	rmSync(dataDir, { recursive: true, force: true });
});

it('four replicas at once: one imports the list, none fails', async () => {
	const url = await postgres.freshDatabase();
	const first = await openDatabase({ dataDir, url });
	await first.run(`INSERT INTO settings (name, value) VALUES (?, ?)`, [
		RECORDING_ROW,
		JSON.stringify({ alwaysRecord: ['SPX', 'NDX'] })
	]);
	const others = await Promise.all([1, 2, 3].map(() => openDatabase({ dataDir, url })));
	const replicas = [first, ...others];
	try {
		const results = await Promise.all(replicas.map((db) => importSingleList(db)));
		expect(results.filter(Boolean)).toHaveLength(1);
		const lists = await first.all<{ always_record: string }>(
			`SELECT always_record FROM user_recording`
		);
		expect(lists).toHaveLength(1);
		expect(lists[0].always_record).toContain('NDX');
		// And once imported, a later start imports nothing, not even after the list was removed.
		await first.run(`DELETE FROM user_recording`);
		expect(await importSingleList(others[0])).toBe(false);
		expect(await first.all(`SELECT owner FROM user_recording`)).toEqual([]);
	} finally {
		await Promise.all(replicas.map((db) => db.close()));
	}
});
