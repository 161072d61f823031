/**
 * The embedded database: one SQLite file (node-sqlite3-wasm, a WebAssembly build installed from
 * the npm registry alone: no native binary to download). Chosen over PGlite by measurement
 * (docs/DATABASE.md). The file may hold the API keys, so it is created owner-only (0600) in a
 * 0700 folder.
 */
import { closeSync, openSync } from 'node:fs';
import { dirname } from 'node:path';
import sqlite from 'node-sqlite3-wasm';
import { ensurePrivateDir } from '../jsonFile';
import { DatabaseError, type Database, type Queryable, type Row, type SqlValue } from './types';

export function openSqlite(path: string): Database {
	ensurePrivateDir(dirname(path));
	// Create it owner-only before SQLite does (SQLite would follow the umask).
	closeSync(openSync(path, 'a', 0o600));
	let db: InstanceType<typeof sqlite.Database>;
	try {
		db = new sqlite.Database(path);
	} catch (err) {
		throw new DatabaseError(path, `cannot be opened (${(err as Error).message})`, { cause: err });
	}
	const q: Queryable = {
		all: async <T extends Row>(sql: string, params: SqlValue[] = []) => db.all(sql, params) as T[],
		get: async <T extends Row>(sql: string, params: SqlValue[] = []) =>
			(db.get(sql, params) as T | null) ?? undefined,
		run: async (sql: string, params: SqlValue[] = []) => db.run(sql, params).changes
	};
	// One connection: transactions wait for each other instead of nesting.
	let queue: Promise<unknown> = Promise.resolve();
	return {
		kind: 'sqlite',
		name: path,
		...q,
		transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> {
			const next = queue.then(async () => {
				db.exec('BEGIN IMMEDIATE');
				try {
					const result = await fn(q);
					db.exec('COMMIT');
					return result;
				} catch (err) {
					if (db.inTransaction) db.exec('ROLLBACK');
					throw err;
				}
			});
			queue = next.catch(() => undefined);
			return next;
		},
		async close() {
			await queue;
			if (db.isOpen) db.close();
		}
	};
}
