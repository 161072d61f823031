/**
 * The one interface every store talks to, whichever database is behind it (sqlite.ts for the
 * embedded file, postgres.ts for GEXDECK_DATABASE_URL). SQL is written once, with `?`
 * placeholders and types and statements both engines accept (see migrations.ts); the
 * PostgreSQL adapter numbers the placeholders. A `?` never appears inside a string literal.
 */
export type SqlValue = string | number | null;
export type Row = Record<string, SqlValue>;

export interface Queryable {
	/** Every row of a query. */
	all<T extends Row = Row>(sql: string, params?: SqlValue[]): Promise<T[]>;
	/** The first row, or undefined. */
	get<T extends Row = Row>(sql: string, params?: SqlValue[]): Promise<T | undefined>;
	/** Run a statement; resolves to the number of rows changed. */
	run(sql: string, params?: SqlValue[]): Promise<number>;
}

export interface Database extends Queryable {
	readonly kind: 'sqlite' | 'postgres';
	/** The file path or the URL without its password: what an error message names. */
	readonly name: string;
	/**
	 * Run `fn` in one transaction: committed when it resolves, rolled back when it throws.
	 * Transactions of one process never interleave.
	 */
	transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T>;
	close(): Promise<void>;
}

/** The database cannot be used as it is: corrupt, unreachable or written by a newer gexdeck. */
export class DatabaseError extends Error {
	constructor(
		readonly database: string,
		why: string,
		options?: ErrorOptions
	) {
		super(`database ${database}: ${why}`, options);
		this.name = 'DatabaseError';
	}
}
