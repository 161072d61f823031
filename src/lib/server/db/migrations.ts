/**
 * The schema, as numbered steps applied in order and recorded in `schema_version`. Each step
 * runs on the embedded SQLite file and on PostgreSQL alike, so its SQL keeps to what both accept:
 * TEXT, INTEGER and BIGINT columns, plain PRIMARY KEYs, `INSERT ... ON CONFLICT ... DO UPDATE`.
 * A released step is never edited: a change is a new step at the end.
 */
export interface Migration {
	version: number;
	/** What the step adds, for the log. */
	summary: string;
	statements: string[];
}

export const MIGRATIONS: readonly Migration[] = [
	{
		version: 1,
		summary: 'settings and the quota ledger',
		statements: [
			// The Account page's keys and demo account (name -> value), never sent to a browser.
			`CREATE TABLE settings (name TEXT PRIMARY KEY, value TEXT NOT NULL)`,
			// Upstream calls per account, quota pool and window (daily, monthly; New York days).
			`CREATE TABLE quota_spend (
				account TEXT NOT NULL,
				pool TEXT NOT NULL,
				period TEXT NOT NULL,
				window_id TEXT NOT NULL,
				requests BIGINT NOT NULL,
				rate_limited BIGINT NOT NULL,
				PRIMARY KEY (account, pool, period)
			)`,
			// Which JSON file of an older release was imported, and when (import.ts).
			`CREATE TABLE imported_files (name TEXT PRIMARY KEY, imported_at BIGINT NOT NULL)`
		]
	},
	{
		version: 2,
		summary: 'integration tokens',
		statements: [
			// Only the SHA-256 of a token is kept; scopes as a comma-separated list.
			`CREATE TABLE tokens (
				id TEXT PRIMARY KEY,
				name TEXT NOT NULL,
				scopes TEXT NOT NULL,
				hash TEXT NOT NULL UNIQUE,
				created_at BIGINT NOT NULL,
				last_used_at BIGINT,
				last_used_from TEXT
			)`
		]
	},
	{
		version: 3,
		summary: 'users, sessions and the audit log',
		statements: [
			// A user's password only as its Argon2id hash (PHC string); role admin, trader or viewer.
			`CREATE TABLE users (
				id TEXT PRIMARY KEY,
				name TEXT NOT NULL UNIQUE,
				role TEXT NOT NULL,
				password_hash TEXT NOT NULL,
				disabled INTEGER NOT NULL,
				created_at BIGINT NOT NULL
			)`,
			// A session by the SHA-256 of its cookie's random id (the id itself is never stored).
			`CREATE TABLE sessions (
				id_hash TEXT PRIMARY KEY,
				user_id TEXT NOT NULL,
				created_at BIGINT NOT NULL,
				last_seen_at BIGINT NOT NULL,
				address TEXT
			)`,
			`CREATE INDEX sessions_user ON sessions (user_id)`,
			// Who did what, when, from where; never a key, password or token.
			`CREATE TABLE audit_log (
				id TEXT PRIMARY KEY,
				at BIGINT NOT NULL,
				actor TEXT NOT NULL,
				action TEXT NOT NULL,
				detail TEXT NOT NULL,
				address TEXT
			)`,
			`CREATE INDEX audit_log_at ON audit_log (at)`
		]
	},
	{
		version: 4,
		summary: 'workspace layouts per user',
		statements: [
			// A user's named /workspace layouts (its link's query); owner '' = the implicit admin of a
			// dashboard without users. Size and count are bounded by users/layoutStore.ts.
			`CREATE TABLE workspace_layouts (
				owner TEXT NOT NULL,
				name TEXT NOT NULL,
				query TEXT NOT NULL,
				updated_at BIGINT NOT NULL,
				PRIMARY KEY (owner, name)
			)`
		]
	}
];

export const LATEST_VERSION = MIGRATIONS[MIGRATIONS.length - 1].version;
