/**
 * The IndexedDB schema of the browser cache and its migrations. Each entry of MIGRATIONS takes
 * the database from version i to i + 1; `upgrade` runs the ones between the stored version and
 * DB_VERSION, so a browser holding any older version ends up with the current schema.
 */
import type { DBSchema, IDBPDatabase, IDBPTransaction, StoreNames } from 'idb';

export const DB_NAME = 'gexdeck';

/** The last snapshot of one upstream route as this browser saw it. */
export interface CachedSnapshot {
	/** The /api path and query, e.g. `SPX/classic/gex_full`. */
	route: string;
	/** The JSON body exactly as received. */
	data: unknown;
	/** Epoch ms when the browser received it. */
	savedAt: number;
	/** The payload's own `timestamp` (unix s) when it has one. */
	dataTimestamp: number | null;
}

/**
 * Ten minutes of one ticker's orderflow session series (src/lib/cache/seriesChunk.ts layout).
 * Keyed [day, ticker, chunk] so a day is one key range: the day's series reads in time order
 * and every older day is deleted with one range.
 */
export interface StoredSeriesChunk {
	/** ET day `YYYY-MM-DD` of the data timestamps. */
	day: string;
	ticker: string;
	/** Chunk number within the day (seconds since 00:00 ET / 600). */
	chunk: number;
	/** Names of the series in `data`, in order (so a later series list can still read it). */
	series: string[];
	/** Encoded chunk: timestamps and values as typed arrays. */
	data: ArrayBuffer;
	count: number;
	savedAt: number;
}

/**
 * A chain file the user imported on the /chain page, kept on this device only (never sent to
 * the server). The text is kept as imported, so a later parser reads it the same way.
 */
export interface StoredChain {
	/** `current`: the page keeps one chain. */
	id: string;
	/** File name (or `pasted`). */
	name: string;
	text: string;
	savedAt: number;
}

export interface GexdeckDB extends DBSchema {
	snapshots: {
		key: string;
		value: CachedSnapshot;
		indexes: { 'by-savedAt': number };
	};
	orderflowSeries: {
		key: [string, string, number];
		value: StoredSeriesChunk;
		indexes: { 'by-ticker-day': [string, string] };
	};
	chains: {
		key: string;
		value: StoredChain;
	};
}

type Upgrade = (
	db: IDBPDatabase<GexdeckDB>,
	tx: IDBPTransaction<GexdeckDB, StoreNames<GexdeckDB>[], 'versionchange'>
) => void;

export const MIGRATIONS: readonly Upgrade[] = [
	// v0 -> v1: one snapshot per route.
	(db) => {
		db.createObjectStore('snapshots', { keyPath: 'route' });
	},
	// v1 -> v2: index by save time, so the oldest routes can be evicted.
	(_db, tx) => {
		tx.objectStore('snapshots').createIndex('by-savedAt', 'savedAt');
	},
	// v2 -> v3: the Orderflow view's session series, next to the snapshots (left as they are).
	(db) => {
		db.createObjectStore('orderflowSeries', {
			keyPath: ['day', 'ticker', 'chunk']
		}).createIndex('by-ticker-day', ['ticker', 'day']);
	},
	// -> +1: imported chains (/chain). Self-contained (creates the store only if missing), so it
	// stays correct wherever a merge puts it among other migrations.
	(db) => {
		if (!db.objectStoreNames.contains('chains')) db.createObjectStore('chains', { keyPath: 'id' });
	}
];

export const DB_VERSION = MIGRATIONS.length;

/** Runs the migrations from `oldVersion` to DB_VERSION in order. */
export function upgrade(
	db: IDBPDatabase<GexdeckDB>,
	oldVersion: number,
	tx: IDBPTransaction<GexdeckDB, StoreNames<GexdeckDB>[], 'versionchange'>
): void {
	for (let v = oldVersion; v < DB_VERSION; v++) MIGRATIONS[v](db, tx);
}
