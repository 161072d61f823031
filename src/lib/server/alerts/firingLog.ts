/**
 * The firings in the database (table alert_firings). Each row carries an idempotency key: the
 * rule's id and the data time that fired it (`r1@1763650800`), UNIQUE in the table. Every process
 * that evaluates the same data computes the same key, so of two replicas (or a process and the
 * one taking over after a failover) only the one whose insert wins delivers the firing to
 * webhooks and tabs: `record()` says which. A Test firing is keyed by its own id (every press
 * delivers).
 *
 * The table keeps the newest KEPT_ROWS firings; the page lists the last FIRINGS_KEPT.
 */
import type { AlertFiring } from '../../alerts/firing';
import type { Database, Queryable } from '../db/index';

export const FIRINGS_KEPT = 100;
/** Rows kept in the table (older ones are deleted as new ones come). */
export const KEPT_ROWS = 1000;

/** The idempotency key of a firing. */
export function firingKey(f: Pick<AlertFiring, 'ruleId' | 'at' | 'test' | 'id'>): string {
	return f.test ? `test:${f.id}` : `${f.ruleId}@${f.at}`;
}

/** Insert a firing unless its key is taken; resolves to whether this insert won. */
export async function insertFiring(
	tx: Queryable,
	firing: AlertFiring,
	owner: string
): Promise<boolean> {
	const n = await tx.run(
		`INSERT INTO alert_firings (idem_key, rule_id, owner, at, fired_at, test, body)
		VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (idem_key) DO NOTHING`,
		[
			firingKey(firing),
			firing.ruleId,
			owner,
			firing.at,
			firing.firedAt,
			firing.test ? 1 : 0,
			JSON.stringify(firing)
		]
	);
	return n > 0;
}

export class FiringLog {
	private inserted = 0;

	constructor(private readonly db: Database) {}

	/** Stores `firing`; resolves to true when this process's insert won (it must deliver). */
	async record(firing: AlertFiring, owner: string): Promise<boolean> {
		const won = await insertFiring(this.db, firing, owner);
		if (won && ++this.inserted % 50 === 0) await this.prune();
		return won;
	}

	private async prune(): Promise<void> {
		const edge = await this.db.get<{ fired_at: number }>(
			`SELECT fired_at FROM alert_firings ORDER BY fired_at DESC LIMIT 1 OFFSET ?`,
			[KEPT_ROWS]
		);
		if (edge) await this.db.run(`DELETE FROM alert_firings WHERE fired_at <= ?`, [edge.fired_at]);
	}

	/** The last firings, newest first: every owner's, or only `owner`'s. */
	async latest(owner?: string, limit = FIRINGS_KEPT): Promise<AlertFiring[]> {
		const rows =
			owner === undefined
				? await this.db.all<{ body: string }>(
						`SELECT body FROM alert_firings ORDER BY fired_at DESC, idem_key DESC LIMIT ?`,
						[limit]
					)
				: await this.db.all<{ body: string }>(
						`SELECT body FROM alert_firings WHERE owner = ?
						ORDER BY fired_at DESC, idem_key DESC LIMIT ?`,
						[owner, limit]
					);
		return rows.map((r) => JSON.parse(r.body) as AlertFiring);
	}

	/** The data time (unix ms) of each rule's last firing (tests left out). */
	async lastFired(): Promise<Map<string, number>> {
		const rows = await this.db.all<{ rule_id: string; at: number }>(
			`SELECT rule_id, MAX(at) AS at FROM alert_firings WHERE test = 0 GROUP BY rule_id`
		);
		return new Map(rows.map((r) => [r.rule_id, Number(r.at) * 1000]));
	}
}
