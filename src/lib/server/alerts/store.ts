/**
 * `<data dir>/alerts.json`: the alert rules and webhooks, readable and editable by hand (schema
 * in src/lib/alerts/README.md), written atomically with the project's JSON writer, and re-read
 * when it changes on disk (fs.watch on its folder, since an editor or our own writer replaces
 * the file).
 *
 * Every entry is validated on its own: a bad rule is reported (a log line naming it, an error on
 * the page) and left out of evaluation, the others keep working, and the bad entry stays in the
 * file as written until someone fixes it. A file that is not JSON at all keeps the last good
 * rules running.
 */
import { mkdirSync, readFileSync, watch, type FSWatcher } from 'node:fs';
import { basename, dirname } from 'node:path';
import { parseRule, parseWebhook, type AlertRule, type Webhook } from '../../alerts/rules';
import { writeJsonFile } from '../jsonFile';

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

export interface AlertsState {
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
export function validateAlertsFile(input: unknown): AlertsState {
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

export class AlertStore {
	private stateValue: AlertsState;
	private watcher: FSWatcher | undefined;
	private debounce: ReturnType<typeof setTimeout> | undefined;
	/** The text last read or written, to skip change events that change nothing. */
	private lastText: string | undefined;

	constructor(
		readonly path: string,
		private readonly log: (message: string) => void = () => undefined
	) {
		this.stateValue = validateAlertsFile(structuredClone(EMPTY));
		this.reload();
	}

	get state(): AlertsState {
		return this.stateValue;
	}

	/** Reads the file again; returns true when what it holds changed. */
	reload(): boolean {
		let text: string | undefined;
		try {
			text = readFileSync(this.path, 'utf8');
		} catch (e) {
			if ((e as NodeJS.ErrnoException).code !== 'ENOENT') {
				this.log(`alerts: cannot read ${this.path}: ${(e as Error).message}`);
				return false;
			}
		}
		if (text === this.lastText) return false;
		this.lastText = text;
		let parsed: unknown = structuredClone(EMPTY);
		if (text !== undefined) {
			try {
				parsed = JSON.parse(text) as unknown;
			} catch (e) {
				// Half-saved by an editor, or a typo: the last good rules keep running.
				const error = `${this.path}: not valid JSON (${(e as Error).message}); the previous rules stay in effect`;
				this.log(`alerts: ${error}`);
				this.stateValue = {
					...this.stateValue,
					errors: [{ entry: 'file', id: null, index: -1, error }]
				};
				return true;
			}
		}
		this.stateValue = validateAlertsFile(parsed);
		for (const e of this.stateValue.errors) {
			this.log(`alerts: ${this.path}: ${describeEntryError(e)}; the other rules keep working`);
		}
		return true;
	}

	/**
	 * Changes the file: `change` edits a copy of the raw lists (entries that fail validation are
	 * kept as they are), the result is written atomically and read back.
	 */
	update(change: (file: AlertsFile) => void): AlertsState {
		// A hand edit the watcher has not read yet must not be overwritten by the older copy.
		this.reload();
		const file = structuredClone(this.stateValue.file);
		change(file);
		writeJsonFile(this.path, file);
		this.reload();
		return this.stateValue;
	}

	/** Calls `onChange` after the file changed on disk (by hand or another process). */
	watch(onChange: () => void): void {
		if (this.watcher) return;
		mkdirSync(dirname(this.path), { recursive: true, mode: 0o700 });
		const name = basename(this.path);
		try {
			this.watcher = watch(dirname(this.path), (_event, file) => {
				if (file !== null && file !== name) return;
				clearTimeout(this.debounce);
				// Editors write in several steps; read once they are done.
				this.debounce = setTimeout(() => {
					if (this.reload()) onChange();
				}, 100);
				this.debounce.unref?.();
			});
			this.watcher.on('error', (e) => this.log(`alerts: watching ${this.path}: ${e.message}`));
			this.watcher.unref?.();
		} catch (e) {
			this.log(`alerts: cannot watch ${this.path}: ${(e as Error).message}`);
		}
	}

	close(): void {
		clearTimeout(this.debounce);
		this.watcher?.close();
		this.watcher = undefined;
	}
}
