/**
 * The recorder's stored choices, in the database's `settings` table as two JSON values:
 * `recording` (retention, disk limit and the Account page's always-record list) and
 * `lastWatchlist` (the watchlist the user last opened). Loaded into memory at start (the init
 * hook), written through the database first; the `recording.json` and `last-watchlist.json` of
 * older releases are imported once (legacyImport.ts).
 */
import type { Database, Queryable } from '../db/index';

export interface StoredRecording {
	alwaysRecord?: string[] | null;
	retentionDays?: number;
	maxBytes?: number;
}

export interface StoredWatchlist {
	tickers?: string[];
	openedAt?: number;
}

export const RECORDING_ROW = 'recording';
export const LAST_WATCHLIST_ROW = 'lastWatchlist';

let db: Database | undefined;
let recording: StoredRecording | undefined;
let lastWatchlist: StoredWatchlist | undefined;

function parse<T>(text: string | undefined): T | undefined {
	if (text === undefined) return undefined;
	try {
		const v = JSON.parse(text) as unknown;
		return typeof v === 'object' && v !== null ? (v as T) : undefined;
	} catch {
		return undefined;
	}
}

/** Read both values from `database` (the init hook, before any request). */
export async function loadRecordingStore(database: Database): Promise<void> {
	const rows = await database.all<{ name: string; value: string }>(
		`SELECT name, value FROM settings WHERE name IN (?, ?)`,
		[RECORDING_ROW, LAST_WATCHLIST_ROW]
	);
	const value = (name: string) => rows.find((r) => r.name === name)?.value;
	recording = parse(value(RECORDING_ROW));
	lastWatchlist = parse(value(LAST_WATCHLIST_ROW));
	db = database;
}

export function storedRecording(): StoredRecording | undefined {
	return recording;
}

export function storedWatchlist(): StoredWatchlist | undefined {
	return lastWatchlist;
}

/** Write one JSON value into `tx`'s settings table. */
export async function writeJsonRow(tx: Queryable, name: string, value: unknown): Promise<void> {
	await tx.run(
		`INSERT INTO settings (name, value) VALUES (?, ?)
		ON CONFLICT (name) DO UPDATE SET value = excluded.value`,
		[name, JSON.stringify(value)]
	);
}

function database(): Database {
	if (!db) throw new Error('the recording settings are written before the database was opened');
	return db;
}

/** Store the recording settings (memory changes only once the database took them). */
export async function saveRecording(value: StoredRecording): Promise<void> {
	await writeJsonRow(database(), RECORDING_ROW, value);
	recording = value;
}

/** Store the last watchlist (memory changes only once the database took it). */
export async function saveWatchlist(value: StoredWatchlist): Promise<void> {
	await writeJsonRow(database(), LAST_WATCHLIST_ROW, value);
	lastWatchlist = value;
}
