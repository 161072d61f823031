/**
 * The audit log (`audit_log`, migration 3): who did what, when and from which address. Callers
 * pass what happened in words and names only; a key, password or token never goes in (the
 * detail is checked for the shapes of gexdeck's secrets and refused if it carries one).
 */
import { randomUUID } from 'node:crypto';
import type { Queryable } from '../db';

export const AUDIT_ACTIONS = [
	'sign-in',
	'failed sign-in',
	'sign-out',
	'user added',
	'role changed',
	'user disabled',
	'user enabled',
	'password changed',
	'signed out everywhere',
	'token created',
	'token used from a new address',
	'token revoked',
	'key changed',
	'records reassigned'
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

export interface AuditEntry {
	at: number;
	/** The user name acting ("cli" from a terminal, "anonymous" for a failed sign-in). */
	actor: string;
	action: AuditAction;
	detail: string;
	address: string | null;
}

/**
 * Retention: the log keeps its newest `maxEntries` entries and none older than `maxAgeMs`
 * (100,000 entries and 400 days: a busy team's year and a bit, a few tens of MB at most). It is
 * pruned at start and after every `every`th entry this process writes.
 */
export interface AuditRetention {
	maxEntries: number;
	maxAgeMs: number;
	every: number;
}
export const AUDIT_RETENTION: Readonly<AuditRetention> = {
	maxEntries: 100_000,
	maxAgeMs: 400 * 86_400_000,
	every: 100
};
let retention: AuditRetention = { ...AUDIT_RETENTION };
let written = 0;

/** Another retention (tests push past a small one); undefined restores the default. */
export function setAuditRetention(r: AuditRetention | undefined): void {
	retention = { ...(r ?? AUDIT_RETENTION) };
	written = 0;
}

/** Drop the entries past the retention; resolves to how many went. */
export async function pruneAudit(
	db: Queryable,
	r: AuditRetention = retention,
	now = Date.now()
): Promise<number> {
	let gone = await db.run(`DELETE FROM audit_log WHERE at < ?`, [now - r.maxAgeMs]);
	// The oldest entry kept, in the order the log is shown (newest first, then by id).
	const edge = await db.get(`SELECT at, id FROM audit_log ORDER BY at DESC, id LIMIT 1 OFFSET ?`, [
		r.maxEntries - 1
	]);
	if (edge) {
		gone += await db.run(`DELETE FROM audit_log WHERE at < ? OR (at = ? AND id > ?)`, [
			Number(edge.at),
			Number(edge.at),
			String(edge.id)
		]);
	}
	return gone;
}

/** Shapes of secrets: API keys, Research keys, integration tokens, Argon2 hashes. */
const SECRET = /gexbot_custom_|research_[A-Za-z0-9_-]{20}|gxd_[A-Za-z0-9_-]{20}|\$argon2/;

export async function audit(
	db: Queryable,
	entry: Omit<AuditEntry, 'at' | 'address'> & { at?: number; address?: string | null }
): Promise<void> {
	const detail = SECRET.test(entry.detail) ? '(withheld)' : entry.detail.slice(0, 500);
	await db.run(
		`INSERT INTO audit_log (id, at, actor, action, detail, address) VALUES (?, ?, ?, ?, ?, ?)`,
		[
			randomUUID(),
			entry.at ?? Date.now(),
			entry.actor.slice(0, 64),
			entry.action,
			detail,
			entry.address ?? null
		]
	);
	if (++written % retention.every === 0) await pruneAudit(db);
}

/** The newest `limit` entries, newest first. */
export async function auditEntries(db: Queryable, limit = 500): Promise<AuditEntry[]> {
	const rows = await db.all(
		`SELECT at, actor, action, detail, address FROM audit_log ORDER BY at DESC, id LIMIT ?`,
		[limit]
	);
	return rows.map((r) => ({
		at: Number(r.at),
		actor: String(r.actor),
		action: String(r.action) as AuditAction,
		detail: String(r.detail),
		address: r.address === null ? null : String(r.address)
	}));
}

/** Every entry, oldest first, as JSON lines (the /admin export). */
export async function auditJsonLines(db: Queryable): Promise<string> {
	const rows = await db.all(
		`SELECT at, actor, action, detail, address FROM audit_log ORDER BY at, id`
	);
	return rows
		.map((r) =>
			JSON.stringify({
				at: new Date(Number(r.at)).toISOString(),
				actor: r.actor,
				action: r.action,
				detail: r.detail,
				address: r.address
			})
		)
		.map((line) => `${line}\n`)
		.join('');
}

/** The acting user and address of a SvelteKit request, for `audit`. */
export interface RequestActor {
	locals: { user?: { name: string } };
	getClientAddress(): string;
}

/** Audit an act made through a page or form action (the dashboard's database). */
export async function auditRequest(
	db: Queryable,
	event: RequestActor,
	action: AuditAction,
	detail: string
): Promise<void> {
	let address: string | null;
	try {
		address = event.getClientAddress();
	} catch {
		address = null;
	}
	await audit(db, { actor: event.locals.user?.name ?? 'owner', address, action, detail });
}
