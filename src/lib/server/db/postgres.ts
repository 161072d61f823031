/**
 * PostgreSQL behind GEXDECK_DATABASE_URL (the `pg` package), for a team that runs its own
 * database or several dashboards on one. The same SQL as the embedded file: `?` placeholders
 * are numbered here, and BIGINT columns come back as numbers (times in milliseconds fit).
 */
import pg from 'pg';
import { DatabaseError, type Database, type Queryable, type Row, type SqlValue } from './types';

/** `url` without its password, for messages. */
export function redactUrl(url: string): string {
	try {
		const u = new URL(url);
		if (u.password) u.password = '***';
		return u.toString();
	} catch {
		return 'the GEXDECK_DATABASE_URL (not a valid URL)';
	}
}

/** `?` placeholders as PostgreSQL's `$1`, `$2`, ... */
export function numberPlaceholders(sql: string): string {
	let n = 0;
	return sql.replace(/\?/g, () => `$${++n}`);
}

const types = {
	getTypeParser(oid: number, format?: 'text' | 'binary') {
		// INT8 (BIGINT, COUNT(*)) as a number rather than a string.
		if (oid === 20) return (v: string) => Number(v);
		return pg.types.getTypeParser(oid, format as 'text');
	}
};

function queryable(client: pg.Pool | pg.PoolClient): Queryable {
	const query = (sql: string, params: SqlValue[] = []) =>
		client.query(numberPlaceholders(sql), params);
	return {
		all: async <T extends Row>(sql: string, params?: SqlValue[]) =>
			(await query(sql, params)).rows as T[],
		get: async <T extends Row>(sql: string, params?: SqlValue[]) =>
			((await query(sql, params)).rows[0] as T | undefined) ?? undefined,
		run: async (sql: string, params?: SqlValue[]) => (await query(sql, params)).rowCount ?? 0
	};
}

export async function openPostgres(url: string): Promise<Database> {
	const name = redactUrl(url);
	const pool = new pg.Pool({ connectionString: url, max: 4, types });
	// An idle client's error (the server restarted) must not crash the process.
	pool.on('error', () => undefined);
	try {
		await pool.query('SELECT 1');
	} catch (err) {
		await pool.end().catch(() => undefined);
		throw new DatabaseError(name, `cannot be reached (${(err as Error).message})`, { cause: err });
	}
	return {
		kind: 'postgres',
		name,
		...queryable(pool),
		async transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> {
			const client = await pool.connect();
			try {
				await client.query('BEGIN');
				const result = await fn(queryable(client));
				await client.query('COMMIT');
				return result;
			} catch (err) {
				await client.query('ROLLBACK').catch(() => undefined);
				throw err;
			} finally {
				client.release();
			}
		},
		close: () => pool.end()
	};
}
