/**
 * The dashboard's records in one database. `openDatabase` opens the embedded SQLite file
 * (`<dataDir>/gexdeck.db`) or, when GEXDECK_DATABASE_URL is set, PostgreSQL, checks it and
 * brings its schema up to date (migrations.ts). A database that is corrupt, unreachable or was
 * written by a newer gexdeck stops the start with a DatabaseError naming the file or URL;
 * nothing in it is changed then.
 */
import { join } from 'node:path';
import { log } from '../log';
import { LATEST_VERSION, MIGRATIONS, type Migration } from './migrations';
import { openPostgres } from './postgres';
import { openSqlite } from './sqlite';
import { DatabaseError, type Database } from './types';

export { DatabaseError, type Database, type Queryable, type Row, type SqlValue } from './types';

export interface DatabaseTarget {
	/** GEXDECK_DATABASE_URL: a postgres:// URL, else the embedded file is used. */
	url?: string;
	dataDir: string;
}

export function sqlitePath(dataDir: string): string {
	return join(dataDir, 'gexdeck.db');
}

/** The schema version recorded in `db`, 0 for a database gexdeck never wrote. */
export async function schemaVersion(db: Database): Promise<number> {
	const table =
		db.kind === 'sqlite'
			? await db.get(`SELECT name FROM sqlite_master WHERE type = 'table' AND name = ?`, [
					'schema_version'
				])
			: await db.get(`SELECT to_regclass(?) AS name`, ['schema_version']);
	if (!table?.name) return 0;
	const row = await db.get<{ version: number }>(
		`SELECT MAX(version) AS version FROM schema_version`
	);
	return Number(row?.version ?? 0);
}

async function check(db: Database): Promise<void> {
	if (db.kind !== 'sqlite') return;
	// Reading the schema of a file that is not SQLite fails here ("file is not a database").
	const rows = await db.all<{ quick_check: string }>('PRAGMA quick_check');
	const result = rows.map((r) => Object.values(r)[0]).join('; ');
	if (result !== 'ok') throw new Error(`integrity check failed: ${result}`);
}

/** Apply the steps `db` lacks, each in its own transaction. Resolves to the version reached. */
export async function migrate(
	db: Database,
	migrations: readonly Migration[] = MIGRATIONS
): Promise<number> {
	const latest = migrations[migrations.length - 1]?.version ?? 0;
	let current: number;
	try {
		await check(db);
		current = await schemaVersion(db);
	} catch (err) {
		throw new DatabaseError(
			db.name,
			`is corrupt or not a gexdeck database (${(err as Error).message}). Restore it from a backup ` +
				'or move it away; nothing was changed.',
			{ cause: err }
		);
	}
	if (current > latest) {
		throw new DatabaseError(
			db.name,
			`was written by a newer gexdeck (schema version ${current}; this release knows up to ` +
				`${latest}). Start the newer release, or restore a backup made for this one; nothing was changed.`
		);
	}
	for (const step of migrations) {
		if (step.version <= current) continue;
		await db.transaction(async (tx) => {
			if (db.kind === 'postgres') {
				// Two dashboards starting at once on one database: one migrates, the other waits.
				await tx.run('SELECT pg_advisory_xact_lock(2029)');
			}
			await tx.run(`CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)`);
			const now = await tx.get<{ version: number }>(
				`SELECT MAX(version) AS version FROM schema_version`
			);
			if (Number(now?.version ?? 0) >= step.version) return;
			for (const sql of step.statements) await tx.run(sql);
			await tx.run(`INSERT INTO schema_version (version) VALUES (?)`, [step.version]);
		});
		log.info(`database ${db.name}: schema version ${step.version} (${step.summary})`);
		current = step.version;
	}
	return current;
}

/** Open, check and migrate the configured database. */
export async function openDatabase(
	target: DatabaseTarget,
	migrations: readonly Migration[] = MIGRATIONS
): Promise<Database> {
	const db = target.url ? await openPostgres(target.url) : openSqlite(sqlitePath(target.dataDir));
	try {
		await migrate(db, migrations);
	} catch (err) {
		await db.close().catch(() => undefined);
		throw err;
	}
	return db;
}

export { LATEST_VERSION };
