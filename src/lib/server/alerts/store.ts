/**
 * The alert rules and webhooks in the database (tables alert_rules and alert_webhooks, one row
 * per entry: its JSON as the rules' parser accepts it, its owner and its place in the list).
 * Every write is validated before it is stored (the service and the import use the parser), and
 * the state in memory is read back from the database after each write, so what runs is what is
 * stored. Another process (a second replica) may change the tables: `load()` reads them again
 * (the service polls it) and says whether anything changed.
 *
 * A row that no longer parses (written by a newer release, or edited in the database) is reported
 * like a bad entry of the old alerts.json (a log line naming it, an error on the page), left out
 * of evaluation and kept as stored; the others keep working.
 */
import type { AlertRule, Webhook } from '../../alerts/rules';
import type { Database, Queryable } from '../db/index';
import {
	describeEntryError,
	validateAlertsFile,
	type AlertsFile,
	type EntryError
} from './alertsFile';

/** The owner of entries made in the single-user mode (the implicit admin on this machine). */
export const IMPLICIT_OWNER = '';
/** The settings row of the dashboard's public URL, for absolute links in firings. */
export const PUBLIC_URL_ROW = 'alertsPublicUrl';

export interface AlertsState {
	publicUrl: string | null;
	rules: AlertRule[];
	webhooks: Webhook[];
	/** The owner (user id) of each rule and webhook, by id. */
	ruleOwner: ReadonlyMap<string, string>;
	hookOwner: ReadonlyMap<string, string>;
	/** Rows that do not parse (left out, kept as stored). */
	errors: EntryError[];
}

interface EntryRow {
	id: string;
	owner: string;
	body: string;
	[k: string]: string;
}

const EMPTY: AlertsState = {
	publicUrl: null,
	rules: [],
	webhooks: [],
	ruleOwner: new Map(),
	hookOwner: new Map(),
	errors: []
};

function bodyOf(row: EntryRow): unknown {
	try {
		return JSON.parse(row.body) as unknown;
	} catch {
		return { id: row.id, unreadable: row.body };
	}
}

/** Insert or replace (same id, owner kept) one rule or webhook row. */
async function upsert(
	tx: Queryable,
	table: 'alert_rules' | 'alert_webhooks',
	owner: string,
	entry: { id: string }
): Promise<void> {
	await tx.run(
		`INSERT INTO ${table} (id, owner, position, body)
		VALUES (?, ?, (SELECT COALESCE(MAX(position), 0) + 1 FROM ${table}), ?)
		ON CONFLICT (id) DO UPDATE SET body = excluded.body`,
		[entry.id, owner, JSON.stringify(entry)]
	);
}

/** Write the entries of a validated file (the legacy import and /alerts' import). */
export async function writeAlertRows(
	tx: Queryable,
	owner: string,
	file: { rules: AlertRule[]; webhooks: Webhook[]; publicUrl?: string | null }
): Promise<void> {
	for (const w of file.webhooks) await upsert(tx, 'alert_webhooks', owner, w);
	for (const r of file.rules) await upsert(tx, 'alert_rules', owner, r);
	if (file.publicUrl) await writePublicUrl(tx, file.publicUrl);
}

async function writePublicUrl(tx: Queryable, url: string): Promise<void> {
	await tx.run(
		`INSERT INTO settings (name, value) VALUES (?, ?)
		ON CONFLICT (name) DO UPDATE SET value = excluded.value`,
		[PUBLIC_URL_ROW, url]
	);
}

export class AlertStore {
	private stateValue: AlertsState = EMPTY;
	/** The rows last read, to tell a change. */
	private lastText: string | undefined;

	constructor(
		readonly db: Database,
		private readonly log: (message: string) => void = () => undefined
	) {}

	get state(): AlertsState {
		return this.stateValue;
	}

	/** Reads the tables again; resolves to true when what they hold changed. */
	async load(): Promise<boolean> {
		const [rules, hooks, url] = await Promise.all([
			this.db.all<EntryRow>(`SELECT id, owner, body FROM alert_rules ORDER BY position, id`),
			this.db.all<EntryRow>(`SELECT id, owner, body FROM alert_webhooks ORDER BY position, id`),
			this.db.get<{ value: string }>(`SELECT value FROM settings WHERE name = ?`, [PUBLIC_URL_ROW])
		]);
		const text = JSON.stringify([rules, hooks, url?.value ?? null]);
		if (text === this.lastText) return false;
		this.lastText = text;
		const file: AlertsFile = {
			version: 1,
			publicUrl: url?.value ?? null,
			rules: rules.map(bodyOf),
			webhooks: hooks.map(bodyOf)
		};
		const v = validateAlertsFile(file);
		this.stateValue = {
			publicUrl: file.publicUrl ?? null,
			rules: v.rules,
			webhooks: v.webhooks,
			ruleOwner: new Map(rules.map((r) => [r.id, r.owner])),
			hookOwner: new Map(hooks.map((h) => [h.id, h.owner])),
			errors: v.errors
		};
		for (const e of v.errors) {
			this.log(`alerts: ${this.db.name}: ${describeEntryError(e)}; the other rules keep working`);
		}
		return true;
	}

	async saveRule(owner: string, rule: AlertRule, publicUrl?: string | null): Promise<void> {
		await this.db.transaction(async (tx) => {
			await upsert(tx, 'alert_rules', owner, rule);
			if (publicUrl) await writePublicUrl(tx, publicUrl);
		});
		await this.load();
	}

	async saveWebhook(owner: string, hook: Webhook, publicUrl?: string | null): Promise<void> {
		await this.db.transaction(async (tx) => {
			await upsert(tx, 'alert_webhooks', owner, hook);
			if (publicUrl) await writePublicUrl(tx, publicUrl);
		});
		await this.load();
	}

	/** Adds or replaces the entries of an import in one transaction (all or nothing). */
	async importEntries(
		owner: string,
		file: { rules: AlertRule[]; webhooks: Webhook[] }
	): Promise<void> {
		await this.db.transaction((tx) => writeAlertRows(tx, owner, file));
		await this.load();
	}

	async deleteRule(id: string): Promise<boolean> {
		const n = await this.db.run(`DELETE FROM alert_rules WHERE id = ?`, [id]);
		await this.load();
		return n > 0;
	}

	/** Deletes a webhook and removes it from the rules that named it, in one transaction. */
	async deleteWebhook(id: string): Promise<boolean> {
		const n = await this.db.transaction(async (tx) => {
			const gone = await tx.run(`DELETE FROM alert_webhooks WHERE id = ?`, [id]);
			const rows = await tx.all<EntryRow>(`SELECT id, owner, body FROM alert_rules`);
			for (const row of rows) {
				const body = bodyOf(row) as { webhooks?: unknown };
				if (!Array.isArray(body.webhooks) || !body.webhooks.includes(id)) continue;
				body.webhooks = body.webhooks.filter((h) => h !== id);
				await tx.run(`UPDATE alert_rules SET body = ? WHERE id = ?`, [
					JSON.stringify(body),
					row.id
				]);
			}
			return gone;
		});
		await this.load();
		return n > 0;
	}
}

/** Who asks: a user (the implicit admin's id is IMPLICIT_OWNER) and their role. */
export interface Asker {
	id: string;
	role: string;
}

/** The implicit admin of the single-user mode (and the default of tests and tools). */
export const OWNER_ASKER: Asker = { id: IMPLICIT_OWNER, role: 'admin' };

/** An admin sees and changes every entry; anyone else only their own. */
export function mayTouch(who: Asker, owner: string | undefined): boolean {
	return owner !== undefined && (who.role === 'admin' || who.id === owner);
}

function filtered(state: AlertsState, keep: (owner: string | undefined) => boolean): AlertsState {
	return {
		...state,
		rules: state.rules.filter((r) => keep(state.ruleOwner.get(r.id))),
		webhooks: state.webhooks.filter((w) => keep(state.hookOwner.get(w.id))),
		ruleOwner: new Map([...state.ruleOwner].filter(([, o]) => keep(o))),
		hookOwner: new Map([...state.hookOwner].filter(([, o]) => keep(o)))
	};
}

/** The entries `who` sees: all for an admin, else their own. */
export function visibleTo(state: AlertsState, who: Asker): AlertsState {
	return filtered(state, (o) => mayTouch(who, o));
}

/** One owner's entries: a rule posts only to its owner's webhooks, and the bounds are per owner. */
export function ownedBy(state: AlertsState, owner: string): AlertsState {
	return filtered(state, (o) => o === owner);
}
