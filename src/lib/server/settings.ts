/**
 * Settings entered in the browser (API keys, chosen demo account), kept server-side only in
 * `<dataDir>/settings.json` (mode 0600). Nothing here is ever sent to the browser: pages see the
 * masked key id that /whoami returns.
 */
import { join } from 'node:path';
import { config } from './config';
import { readJsonFile, writeJsonFile } from './jsonFile';

export interface StoredSettings {
	version: 1;
	/** Custom-script (or platform) key entered on the Account page. */
	customKey?: string;
	/** Research key entered on the Account page. */
	researchKey?: string;
	/** `_id` of the embedded demo account chosen on the Account page. */
	demoAccountId?: string;
}

const CUSTOM_KEY = /^gexbot_[a-z0-9]+_[A-Za-z0-9_-]{43}$/;
const RESEARCH_KEY = /^research_[A-Za-z0-9_-]{43}$/;

export function isCustomKey(key: string): boolean {
	return CUSTOM_KEY.test(key);
}

export function isResearchKey(key: string): boolean {
	return RESEARCH_KEY.test(key);
}

function settingsPath(): string {
	return join(config().dataDir, 'settings.json');
}

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

function isStoredSettings(v: unknown): v is StoredSettings {
	if (typeof v !== 'object' || v === null || (v as StoredSettings).version !== 1) return false;
	const s = v as Record<string, unknown>;
	return ['customKey', 'researchKey', 'demoAccountId'].every(
		(k) => s[k] === undefined || typeof s[k] === 'string'
	);
}

/**
 * The stored settings. A settings file that is not what gexdeck wrote throws CorruptFileError
 * (a copy kept): the keys in it are never silently replaced by an empty file.
 */
export function readSettings(): StoredSettings {
	cached ??= readJsonFile(settingsPath(), isStoredSettings) ?? { version: 1 };
	return cached;
}

/**
 * Merge `patch` into the stored settings; `undefined` members are removed. Throws a clear error
 * when the file cannot be written (full disk, read-only folder); the old file and the settings
 * in memory are then unchanged.
 */
export function updateSettings(patch: Partial<Omit<StoredSettings, 'version'>>): StoredSettings {
	const next: StoredSettings = { ...readSettings(), ...patch, version: 1 };
	for (const k of Object.keys(next) as (keyof StoredSettings)[]) {
		if (next[k] === undefined) delete next[k];
	}
	writeJsonFile(settingsPath(), next);
	cached = next;
	for (const listener of listeners) listener(next);
	return next;
}
