/**
 * Both databases the dashboard supports, for tests that read or write records: the embedded
 * SQLite file in a temp folder and a real PostgreSQL (tests/support/postgres.ts, one cluster per
 * test file, a fresh database per target). Call `useDatabases()` at the top of a test file, then
 * `describe.each(engines)`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import type { DatabaseTarget } from '../../src/lib/server/db/index';
import { startPostgres, type RunningPostgres } from './postgres';

export interface Engine {
	engine: 'sqlite' | 'postgres';
	/** A new, empty database of this engine (and a data folder of its own). */
	target(): Promise<DatabaseTarget>;
}

export function useDatabases(): Engine[] {
	let postgres: Promise<RunningPostgres> | undefined;
	const dirs: string[] = [];
	const tempDir = () => {
		const d = mkdtempSync(join(tmpdir(), 'gexdeck-db-'));
		dirs.push(d);
		return d;
	};
	afterAll(async () => {
		if (postgres) (await postgres).stop();
		for (const d of dirs) rmSync(d, { recursive: true, force: true });
	});
	return [
		{ engine: 'sqlite', target: async () => ({ dataDir: tempDir() }) },
		{
			engine: 'postgres',
			target: async () => {
				postgres ??= startPostgres();
				return { dataDir: tempDir(), url: await (await postgres).freshDatabase() };
			}
		}
	];
}
