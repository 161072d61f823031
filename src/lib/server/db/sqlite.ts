/**
 * The embedded database: one SQLite file (node-sqlite3-wasm, a WebAssembly build installed from
 * the npm registry alone: no native binary to download). Chosen over PGlite by measurement
 * (docs/DATABASE.md). The file may hold the API keys, so it is created owner-only (0600) in a
 * 0700 folder.
 *
 * Two processes (the dashboard and `npm run token`) share the file: node-sqlite3-wasm locks it
 * with a `<file>.lock` folder held for one statement or transaction, and a busy timeout makes
 * the other wait for it. A lock folder left by a killed process (older than STALE_LOCK_MS, when
 * no transaction here lasts a second) is removed at open, with a warning.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { closeSync, openSync, rmSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import sqlite from 'node-sqlite3-wasm';
import { ensurePrivateDir } from '../jsonFile';
import { log } from '../log';
import { DatabaseError, type Database, type Queryable, type Row, type SqlValue } from './types';

const STALE_LOCK_MS = 60_000;
const BUSY_TIMEOUT_MS = 5_000;

function removeStaleLock(path: string, now = Date.now()): void {
	const lock = `${path}.lock`;
	let age: number;
	try {
		age = now - statSync(lock).mtimeMs;
	} catch {
		return;
	}
	if (age < STALE_LOCK_MS) return;
	rmSync(lock, { recursive: true, force: true });
	log.warn(
		`database ${path}: removed a lock left by a stopped process (${Math.round(age / 1000)} s old)`
	);
}

export function openSqlite(path: string): Database {
	ensurePrivateDir(dirname(path));
	removeStaleLock(path);
	// Create it owner-only before SQLite does (SQLite would follow the umask).
	closeSync(openSync(path, 'a', 0o600));
	let db: InstanceType<typeof sqlite.Database>;
	try {
		db = new sqlite.Database(path);
		db.exec(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`);
	} catch (err) {
		throw new DatabaseError(path, `cannot be opened (${(err as Error).message})`, { cause: err });
	}
	const q: Queryable = {
		all: async <T extends Row>(sql: string, params: SqlValue[] = []) => db.all(sql, params) as T[],
		get: async <T extends Row>(sql: string, params: SqlValue[] = []) =>
			(db.get(sql, params) as T | null) ?? undefined,
		run: async (sql: string, params: SqlValue[] = []) => db.run(sql, params).changes
	};
	// One connection, so a statement issued while a transaction is open would join it (and be
	// rolled back with it). Every statement and transaction therefore takes its turn on one
	// queue; the transaction's own work (its async context, even through the top-level methods)
	// runs inside its turn.
	const insideTransaction = new AsyncLocalStorage<true>();
	let queue: Promise<unknown> = Promise.resolve();
	function inTurn<T>(work: () => Promise<T>): Promise<T> {
		if (insideTransaction.getStore()) return work();
		const next = queue.then(work);
		queue = next.catch(() => undefined);
		return next;
	}
	return {
		kind: 'sqlite',
		name: path,
		all: (sql, params) => inTurn(() => q.all(sql, params)),
		get: (sql, params) => inTurn(() => q.get(sql, params)),
		run: (sql, params) => inTurn(() => q.run(sql, params)),
		transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> {
			return inTurn(async () => {
				db.exec('BEGIN IMMEDIATE');
				try {
					const result = await insideTransaction.run(true, () => fn(q));
					db.exec('COMMIT');
					return result;
				} catch (err) {
					if (db.inTransaction) db.exec('ROLLBACK');
					throw err;
				}
			});
		},
		async close() {
			await queue;
			if (db.isOpen) db.close();
		}
	};
}
