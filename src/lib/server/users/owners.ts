/**
 * The owner of what the single-user mode made. Before teams mode everything belongs to the
 * implicit admin on this machine (owner '', IMPLICIT_OWNER): alert rules, webhooks and their
 * firings, integration tokens, the always-record list and workspace layouts. When teams mode
 * starts (the first admin added from the CLI or /admin, a GEXDECK_PASSWORD setup upgraded, or
 * a start that finds users and such rows) they become the first admin's, so nothing stays
 * "every admin's" with no one to answer for it. Idempotent: with no '' rows it changes nothing.
 */
import type { Database, Queryable } from '../db';
import { IMPLICIT_OWNER } from '../alerts/store';
import { audit } from './audit';

/** The first enabled admin (by creation), or undefined without one. */
export async function firstAdminId(db: Queryable): Promise<string | undefined> {
	const row = await db.get<{ id: string }>(
		`SELECT id FROM users WHERE role = 'admin' AND disabled = 0 ORDER BY created_at, id LIMIT 1`
	);
	return row?.id;
}

/** Tables whose rows have an `owner` column, moved as they are. */
const OWNED = ['alert_rules', 'alert_webhooks', 'alert_firings', 'tokens'] as const;
/** Tables keyed by owner (and a name): a row is moved unless the admin has one of that key. */
const KEYED = [
	['user_recording', 'owner'],
	['workspace_layouts', 'name']
] as const;

/**
 * Reassign the implicit admin's rows to the first admin; resolves to how many rows moved (0
 * without an admin or without such rows). `actor` names who started teams mode, for the log.
 */
export async function adoptImplicitRecords(db: Database, actor = 'gexdeck'): Promise<number> {
	const moved = await db.transaction(async (tx) => {
		const admin = await firstAdminId(tx);
		if (!admin) return { n: 0, admin: '' };
		let n = 0;
		for (const table of OWNED) {
			n += await tx.run(`UPDATE ${table} SET owner = ? WHERE owner = ?`, [admin, IMPLICIT_OWNER]);
		}
		for (const [table, key] of KEYED) {
			const clash =
				key === 'owner'
					? `SELECT 1 FROM ${table} WHERE owner = ?`
					: `SELECT 1 FROM ${table} m WHERE m.owner = ? AND m.name = ${table}.name`;
			n += await tx.run(`UPDATE ${table} SET owner = ? WHERE owner = ? AND NOT EXISTS (${clash})`, [
				admin,
				IMPLICIT_OWNER,
				admin
			]);
		}
		return { n, admin };
	});
	if (moved.n > 0) {
		const name = await db.get<{ name: string }>(`SELECT name FROM users WHERE id = ?`, [
			moved.admin
		]);
		await audit(db, {
			actor,
			action: 'records reassigned',
			detail: `${moved.n} rules, webhooks, firings, tokens and lists of the single-user mode to ${name?.name ?? moved.admin}`
		});
	}
	return moved.n;
}
