/**
 * The recorder's stored settings, in the database's `settings` table as the JSON value
 * `recording` (retention and disk limit, the admin's). Loaded into memory at start (the init
 * hook), written through the database first; the `recording.json` and `last-watchlist.json` of
 * older releases are imported once (legacyImport.ts). Each user's always-record list lives in
 * `user_recording` (userRecording.ts); the single list of the release before (the `recording`
 * row's alwaysRecord and the `lastWatchlist` row) is imported from here once as the first admin's.
 */
import type { Database, Queryable } from '../db/index';
import { importSingleList } from './userRecording';

export interface StoredRecording {
	/** The single always-record list of releases before per-user lists (imported once). */
	alwaysRecord?: string[] | null;
	retentionDays?: number;
	maxBytes?: number;
}

export const RECORDING_ROW = 'recording';
/** The single last watchlist of releases before per-user lists (imported once). */
export const LAST_WATCHLIST_ROW = 'lastWatchlist';

let db: Database | undefined;
let recording: StoredRecording | undefined;

function parse<T>(text: string | undefined): T | undefined {
	if (text === undefined) return undefined;
	try {
		const v = JSON.parse(text) as unknown;
		return typeof v === 'object' && v !== null ? (v as T) : undefined;
	} catch {
		return undefined;
	}
}

/** Read the settings from `database` and import the single list once (the init hook). */
export async function loadRecordingStore(database: Database): Promise<void> {
	await importSingleList(database);
	const row = await database.get<{ value: string }>(`SELECT value FROM settings WHERE name = ?`, [
		RECORDING_ROW
	]);
	recording = parse(row?.value);
	db = database;
}

export function storedRecording(): StoredRecording | undefined {
	return recording;
}

/** Write one JSON value into `tx`'s settings table. */
export async function writeJsonRow(tx: Queryable, name: string, value: unknown): Promise<void> {
	await tx.run(
		`INSERT INTO settings (name, value) VALUES (?, ?)
		ON CONFLICT (name) DO UPDATE SET value = excluded.value`,
		[name, JSON.stringify(value)]
	);
}

/** The database the recording settings and lists are in (opened by the init hook). */
export function recordingDatabase(): Database {
	if (!db) throw new Error('the recording settings are used before the database was opened');
	return db;
}

/** Store the recording settings (memory changes only once the database took them). */
export async function saveRecording(value: StoredRecording): Promise<void> {
	await writeJsonRow(recordingDatabase(), RECORDING_ROW, value);
	recording = value;
}
