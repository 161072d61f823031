/**
 * Settings entered in the browser (API keys, chosen demo account), kept server-side only in the
 * database's `settings` table (src/lib/server/db/; the `settings.json` of older releases is
 * imported once). Nothing here is ever sent to the browser: pages see the masked key id that
 * /whoami returns. Read synchronously from memory (loaded at start), written through the
 * database first.
 */
import type { Database } from './db/index';

export interface StoredSettings {
	version: 1;
	/** Custom-script (or platform) key entered on the Account page. */
	customKey?: string;
	/** Research key entered on the Account page. */
	researchKey?: string;
	/** `_id` of the embedded demo account chosen on the Account page. */
	demoAccountId?: string;
}

type SettingName = Exclude<keyof StoredSettings, 'version'>;
const NAMES: readonly SettingName[] = ['customKey', 'researchKey', 'demoAccountId'];

const CUSTOM_KEY = /^gexbot_[a-z0-9]+_[A-Za-z0-9_-]{43}$/;
const RESEARCH_KEY = /^research_[A-Za-z0-9_-]{43}$/;

export function isCustomKey(key: string): boolean {
	return CUSTOM_KEY.test(key);
}

export function isResearchKey(key: string): boolean {
	return RESEARCH_KEY.test(key);
}

let db: Database | undefined;
let cached: StoredSettings | undefined;

/** Called after every saved change (keys, demo account), with the new settings. */
export type SettingsListener = (settings: StoredSettings) => void;
const listeners = new Set<SettingsListener>();

/**
 * Runs `listener` after each saved change: the proxy forgets what it learned of the old key, the
 * relay negotiates again and the feed holder re-decides, each on its own (one event, no pokes).
 * Returns the unsubscribe.
 */
export function onSettingsChange(listener: SettingsListener): () => void {
	listeners.add(listener);
	return () => listeners.delete(listener);
}

/** The shape of an older release's settings.json (legacyImport.ts). */
export function isStoredSettings(v: unknown): v is StoredSettings {
	if (typeof v !== 'object' || v === null || (v as StoredSettings).version !== 1) return false;
	const s = v as Record<string, unknown>;
	return NAMES.every((k) => s[k] === undefined || typeof s[k] === 'string');
}

/** Load the settings from `database` into memory (the init hook, before any request). */
export async function loadSettings(database: Database): Promise<StoredSettings> {
	const rows = await database.all<{ name: string; value: string }>(
		`SELECT name, value FROM settings`
	);
	const next: StoredSettings = { version: 1 };
	for (const r of rows) {
		if ((NAMES as readonly string[]).includes(r.name)) next[r.name as SettingName] = r.value;
	}
	db = database;
	cached = next;
	return next;
}

/** The stored settings, from memory (loaded by loadSettings at start). */
export function readSettings(): StoredSettings {
	if (!cached) throw new Error('settings are read before the database was opened');
	return cached;
}

/** Write `settings` into the `settings` table of `tx` (one row per value). */
export async function writeSettingsRows(
	tx: Pick<Database, 'run'>,
	settings: Partial<StoredSettings>
): Promise<void> {
	for (const name of NAMES) {
		const value = settings[name];
		if (value === undefined) await tx.run(`DELETE FROM settings WHERE name = ?`, [name]);
		else {
			await tx.run(
				`INSERT INTO settings (name, value) VALUES (?, ?)
				ON CONFLICT (name) DO UPDATE SET value = excluded.value`,
				[name, value]
			);
		}
	}
}

/**
 * Merge `patch` into the stored settings; `undefined` members are removed. Throws a clear error
 * when the database refuses the write (full disk, unreachable server); the stored settings and
 * the settings in memory are then unchanged.
 */
export async function updateSettings(
	patch: Partial<Omit<StoredSettings, 'version'>>
): Promise<StoredSettings> {
	const next: StoredSettings = { ...readSettings(), ...patch, version: 1 };
	for (const k of Object.keys(next) as (keyof StoredSettings)[]) {
		if (next[k] === undefined) delete next[k];
	}
	if (!db) throw new Error('settings are written before the database was opened');
	try {
		await db.transaction((tx) => writeSettingsRows(tx, next));
	} catch (err) {
		throw new Error(
			`the settings could not be saved in ${db.name} (${(err as Error).message}); the previous ones are kept.`,
			{ cause: err }
		);
	}
	cached = next;
	for (const listener of listeners) listener(next);
	return next;
}
