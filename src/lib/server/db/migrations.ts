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
		summary: 'alert rules, webhooks and firings',
		statements: [
			// A rule or webhook as the JSON its parser accepts (src/lib/alerts/rules.ts), with its
			// owner (a user id; '' for the implicit admin of the single-user mode) and list order.
			`CREATE TABLE alert_rules (
				id TEXT PRIMARY KEY,
				owner TEXT NOT NULL,
				position BIGINT NOT NULL,
				body TEXT NOT NULL
			)`,
			`CREATE TABLE alert_webhooks (
				id TEXT PRIMARY KEY,
				owner TEXT NOT NULL,
				position BIGINT NOT NULL,
				body TEXT NOT NULL
			)`,
			// One row per firing. idem_key (rule id @ the data time that fired it) is UNIQUE: of
			// the processes that evaluate the same data, only the one whose insert wins delivers.
			`CREATE TABLE alert_firings (
				idem_key TEXT NOT NULL UNIQUE,
				rule_id TEXT NOT NULL,
				owner TEXT NOT NULL,
				at BIGINT NOT NULL,
				fired_at BIGINT NOT NULL,
				test INTEGER NOT NULL,
				body TEXT NOT NULL
			)`,
			`CREATE INDEX alert_firings_fired ON alert_firings (fired_at)`
		]
	},
	{
		version: 5,
		summary: 'OpenID Connect users and the addresses tokens were used from',
		statements: [
			// A user signed in through the team's identity provider: `<issuer> <sub>`; NULL for a
			// local user. Such a user has no password (password_hash is empty: nothing verifies).
			`ALTER TABLE users ADD COLUMN oidc_subject TEXT`,
			`CREATE UNIQUE INDEX users_oidc_subject ON users (oidc_subject)`,
			// Each address an integration token was used from, once: a new one is audited.
			`CREATE TABLE token_addresses (
				token_id TEXT NOT NULL,
				address TEXT NOT NULL,
				first_at BIGINT NOT NULL,
				PRIMARY KEY (token_id, address)
			)`
		]
	},
	{
		version: 6,
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
	},
	{
		version: 7,
		summary: "owners of integration tokens and each user's always-record list",
		statements: [
			// A token's owner (a user id; '' for the implicit admin of the single-user mode): it acts
			// with that user's role and stops when they are disabled. Tokens made before this step
			// were the account's: they become the first admin's (or the implicit admin's).
			`ALTER TABLE tokens ADD COLUMN owner TEXT NOT NULL DEFAULT ''`,
			`UPDATE tokens SET owner = COALESCE(
				(SELECT id FROM users WHERE role = 'admin' AND disabled = 0 ORDER BY created_at, id LIMIT 1),
				''
			)`,
			`CREATE INDEX tokens_owner ON tokens (owner)`,
			// Each user's "record even when no tab is open" choice (recorder/userRecording.ts): their
			// saved list (JSON array; NULL: follow their last watchlist) and the last watchlist
			// they opened (JSON array, when). The recorder records the union of enabled users' lists.
			`CREATE TABLE user_recording (
				owner TEXT PRIMARY KEY,
				always_record TEXT,
				last_watchlist TEXT,
				opened_at BIGINT
			)`
		]
	}
];

export const LATEST_VERSION = MIGRATIONS[MIGRATIONS.length - 1].version;
