/**
 * The alert rules and webhooks as one JSON document: what `/alerts` exports and imports, and what
 * the alerts.json of older releases held (imported once into the database: legacyImport.ts).
 * Every entry is validated on its own by the rules' parser (src/lib/alerts/rules.ts): good
 * entries, and one error per bad one naming it (`rule r2 (#3): price must be a number`).
 */
import { parseRule, parseWebhook, type AlertRule, type Webhook } from '../../alerts/rules';

export interface AlertsFile {
	version: 1;
	/** The dashboard's public URL, for absolute links in webhooks (set from the page). */
	publicUrl?: string | null;
	rules: unknown[];
	webhooks: unknown[];
}

export interface EntryError {
	entry: 'rule' | 'webhook' | 'file';
	/** The entry's id when it has a readable one. */
	id: string | null;
	/** Position in its list (0-based), or -1 for the file. */
	index: number;
	error: string;
}

export interface ValidatedFile {
	file: AlertsFile;
	rules: AlertRule[];
	webhooks: Webhook[];
	errors: EntryError[];
}

const EMPTY: AlertsFile = { version: 1, publicUrl: null, rules: [], webhooks: [] };

/** The `id` of a raw (possibly invalid) entry. */
export function idOf(raw: unknown): string | null {
	const id = (raw as { id?: unknown } | null)?.id;
	return typeof id === 'string' ? id : null;
}

/** Validates a whole file: good entries, and one error per bad one. */
export function validateAlertsFile(input: unknown): ValidatedFile {
	const errors: EntryError[] = [];
	if (typeof input !== 'object' || input === null || Array.isArray(input)) {
		return {
			file: structuredClone(EMPTY),
			rules: [],
			webhooks: [],
			errors: [{ entry: 'file', id: null, index: -1, error: 'the file must hold a JSON object' }]
		};
	}
	const raw = input as Partial<AlertsFile>;
	const file: AlertsFile = {
		version: 1,
		publicUrl: typeof raw.publicUrl === 'string' ? raw.publicUrl : null,
		rules: Array.isArray(raw.rules) ? raw.rules : [],
		webhooks: Array.isArray(raw.webhooks) ? raw.webhooks : []
	};
	if (raw.rules !== undefined && !Array.isArray(raw.rules)) {
		errors.push({ entry: 'file', id: null, index: -1, error: '"rules" must be a list' });
	}
	if (raw.webhooks !== undefined && !Array.isArray(raw.webhooks)) {
		errors.push({ entry: 'file', id: null, index: -1, error: '"webhooks" must be a list' });
	}
	const webhooks: Webhook[] = [];
	file.webhooks.forEach((w, index) => {
		const r = parseWebhook(w);
		if (!r.ok) errors.push({ entry: 'webhook', id: idOf(w), index, error: r.error });
		else if (webhooks.some((x) => x.id === r.value.id)) {
			errors.push({ entry: 'webhook', id: r.value.id, index, error: 'duplicate id' });
		} else webhooks.push(r.value);
	});
	const hookIds = new Set(webhooks.map((w) => w.id));
	const rules: AlertRule[] = [];
	file.rules.forEach((x, index) => {
		const r = parseRule(x);
		if (!r.ok) {
			errors.push({ entry: 'rule', id: idOf(x), index, error: r.error });
			return;
		}
		if (rules.some((y) => y.id === r.value.id)) {
			errors.push({ entry: 'rule', id: r.value.id, index, error: 'duplicate id' });
			return;
		}
		const unknown = (r.value.webhooks ?? []).filter((id) => !hookIds.has(id));
		if (unknown.length > 0) {
			errors.push({
				entry: 'rule',
				id: r.value.id,
				index,
				error: `webhooks: no webhook with id ${unknown.join(', ')}`
			});
			return;
		}
		rules.push(r.value);
	});
	return { file, rules, webhooks, errors };
}

/** `rule r2 (#3): price must be a number, got "abc"`: the log line of an entry error. */
export function describeEntryError(e: EntryError): string {
	if (e.entry === 'file') return e.error;
	return `${e.entry} ${e.id ?? '(no id)'} (#${e.index + 1}): ${e.error}`;
}

/** An import larger than this is refused before it is parsed. */
export const IMPORT_MAX_BYTES = 256 * 1024;
/** At most this many rules in one import (and in one owner's list after it). */
export const MAX_RULES = 500;

export type ImportOutcome = { ok: true; value: ValidatedFile } | { ok: false; errors: string[] };

/**
 * Reads an uploaded export: refused whole (nothing stored changes) when it is too large, not
 * JSON, holds too many rules, or any entry fails the parser, with one line per bad entry.
 */
export function parseImport(text: string): ImportOutcome {
	const bytes = Buffer.byteLength(text);
	if (bytes > IMPORT_MAX_BYTES) {
		return {
			ok: false,
			errors: [`the file is ${bytes} bytes; an import holds at most ${IMPORT_MAX_BYTES}`]
		};
	}
	let parsed: unknown;
	try {
		parsed = JSON.parse(text) as unknown;
	} catch (e) {
		return { ok: false, errors: [`not valid JSON (${(e as Error).message})`] };
	}
	const value = validateAlertsFile(parsed);
	if (value.errors.length > 0) return { ok: false, errors: value.errors.map(describeEntryError) };
	if (value.rules.length > MAX_RULES) {
		return {
			ok: false,
			errors: [`${value.rules.length} rules; an import holds at most ${MAX_RULES}`]
		};
	}
	return { ok: true, value };
}
