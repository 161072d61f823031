/**
 * The Orderflow view's session series in IndexedDB (store `orderflowSeries`, schema v3): one
 * record per ticker, ET day and ten-minute chunk. Only the newest day is worth keeping: saving
 * a new day's first chunk deletes every older day of every ticker. A write merges with what is
 * stored, so two tabs recording the same ticker never erase each other's points.
 */
import type { IDBPDatabase } from 'idb';
import {
	FLOW_SERIES,
	mergeChunks,
	SERIES_COUNT,
	type SeriesChunk
} from '$lib/stream/series/orderflowSeries';
import type { GexdeckDB, StoredSeriesChunk } from './schema';
import { ChunkDecodeError, decodeChunk, encodeChunk } from './seriesChunk';

const STORE = 'orderflowSeries';

/** A stored chunk with its series put in FLOW_SERIES order (a series it lacks reads NaN). */
export function alignChunk(record: StoredSeriesChunk): SeriesChunk {
	const raw = decodeChunk(record.data);
	if (raw.values.length !== record.series.length) {
		throw new ChunkDecodeError(
			`chunk names ${record.series.length} series but holds ${raw.values.length}`
		);
	}
	const values = FLOW_SERIES.map((name) => {
		const at = record.series.indexOf(name);
		return at >= 0 ? raw.values[at] : new Float64Array(raw.times.length).fill(NaN);
	});
	return { times: raw.times, values };
}

export interface StoredDay {
	day: string;
	chunks: SeriesChunk[];
	/** Records that could not be read (corrupt); skipped, and overwritten by the next save. */
	unreadable: number;
}

/** The newest stored day of a ticker, chunks in time order; undefined when none is stored. */
export async function loadNewestDay(
	db: IDBPDatabase<GexdeckDB>,
	ticker: string
): Promise<StoredDay | undefined> {
	const tx = db.transaction(STORE, 'readonly');
	const newest = await tx.store
		.index('by-ticker-day')
		.openKeyCursor(IDBKeyRange.bound([ticker, ''], [ticker, '\uffff']), 'prev');
	if (!newest) return undefined;
	const day = newest.key[1];
	const records = await tx.store.getAll(IDBKeyRange.bound([day, ticker], [day, ticker, []]));
	const chunks: SeriesChunk[] = [];
	let unreadable = 0;
	for (const r of records) {
		try {
			chunks.push(alignChunk(r));
		} catch {
			unreadable++;
		}
	}
	return { day, chunks, unreadable };
}

/** Writes chunks of one ticker's day, each merged with the stored copy (these points win). */
export async function saveChunks(
	db: IDBPDatabase<GexdeckDB>,
	ticker: string,
	day: string,
	chunks: Iterable<readonly [number, SeriesChunk]>
): Promise<void> {
	const tx = db.transaction(STORE, 'readwrite');
	for (const [chunk, mine] of chunks) {
		if (mine.values.length !== SERIES_COUNT) throw new RangeError('chunk of another series list');
		const stored = await tx.store.get([day, ticker, chunk]);
		let merged = mine;
		if (stored) {
			try {
				merged = mergeChunks(alignChunk(stored), mine);
			} catch {
				// An unreadable stored chunk is replaced by this tab's points.
			}
		}
		if (merged.times.length === 0) continue;
		await tx.store.put({
			day,
			ticker,
			chunk,
			series: [...FLOW_SERIES],
			data: encodeChunk(merged),
			count: merged.times.length,
			savedAt: Date.now()
		});
	}
	await tx.done;
}

/** Deletes every ticker's chunks of days before `day`; returns how many records went. */
export async function pruneDaysBefore(db: IDBPDatabase<GexdeckDB>, day: string): Promise<number> {
	const tx = db.transaction(STORE, 'readwrite');
	const older = IDBKeyRange.upperBound([day], true);
	const n = await tx.store.count(older);
	if (n > 0) await tx.store.delete(older);
	await tx.done;
	return n;
}
