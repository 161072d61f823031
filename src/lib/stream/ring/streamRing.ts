/**
 * The live session's ring in IndexedDB (idb): per group, the last two hours as compact chunks
 * (./ringChunk), so the user can scrub back and a reload keeps what was seen. Runs in the
 * decode worker (IndexedDB exists there) or on the page; record() is synchronous and cheap,
 * the writes are queued and batched.
 *
 * The open chunk of each group is checkpointed every few seconds of data (a reload loses at
 * most that much), and every write merges with what the span already holds (./ringMerge), so
 * several writers (two tabs, a reloaded worker, the page's REST poller) never erase each
 * other's rows.
 */
import { openDB, type DBSchema, type IDBPDatabase } from 'idb';
import {
	ChunkBuilder,
	isRecordedKind,
	type ChunkBuilderOptions,
	type RingChunk
} from './ringChunk';
import { mergeChunks } from './ringMerge';
import type { StreamUpdate } from '../transport/updates';

export const RING_DB_NAME = 'gexdeck-stream-ring';
const STORE = 'chunks';
/** Bump when the chunk layout changes; the upgrade drops the old ring (it is a cache). */
export const RING_DB_VERSION = 1;

interface RingSchema extends DBSchema {
	chunks: { key: [string, number]; value: RingChunk };
}

export interface StreamRingOptions extends ChunkBuilderOptions {
	dbName?: string;
	/** Seconds kept per group (default 7200). */
	retentionSeconds?: number;
	/**
	 * The open chunk is written as it is every this many seconds of data (default 5), and
	 * whenever a row keeps a strike ladder.
	 */
	checkpointSeconds?: number;
}

export class StreamRing {
	private readonly open = new Map<string, ChunkBuilder>();
	private readonly queue: RingChunk[] = [];
	private writing: Promise<void> | undefined;
	private readonly latest = new Map<string, number>();
	/** Data timestamp of each group's last checkpoint. */
	private readonly checkpointed = new Map<string, number>();
	/** Chunks written, and write failures (quota, closed DB): counted, never thrown at record(). */
	written = 0;
	failures = 0;

	private constructor(
		private readonly db: IDBPDatabase<RingSchema>,
		private readonly options: StreamRingOptions
	) {}

	static async open(options: StreamRingOptions = {}): Promise<StreamRing> {
		const db = await openDB<RingSchema>(options.dbName ?? RING_DB_NAME, RING_DB_VERSION, {
			upgrade(database) {
				if (database.objectStoreNames.contains(STORE)) database.deleteObjectStore(STORE);
				database.createObjectStore(STORE, { keyPath: ['group', 'start'] });
			},
			// A newer version opened elsewhere (another tab after a deploy) must not wait on us:
			// writes fail (counted) until this page reloads onto the new code.
			blocking() {
				db.close();
			}
		});
		return new StreamRing(db, options);
	}

	private get retention(): number {
		return this.options.retentionSeconds ?? 7200;
	}

	/** Adds one update to its group's open chunk; a chunk whose span ended is queued to write. */
	record(u: StreamUpdate): void {
		if (!isRecordedKind(u.kind) || !u.timestamp) return;
		let b = this.open.get(u.group);
		if (b && !b.covers(u.timestamp) && u.timestamp > b.start) {
			this.enqueue(b.seal());
			b = undefined;
		}
		if (!b) {
			b = new ChunkBuilder(u.group, u.kind, u.timestamp, this.options);
			this.open.set(u.group, b);
		}
		if (!b.append(u)) return;
		this.latest.set(u.group, Math.max(this.latest.get(u.group) ?? 0, u.timestamp));
		const last = this.checkpointed.get(u.group);
		// A row that kept a strike ladder (ChunkBuilder's rule) is a replayable snapshot: written
		// at once, so the timeline and a reload have it without waiting for the next checkpoint.
		const snapshot =
			(u.kind === 'gex' || u.kind === 'greek') &&
			u.timestamp % (this.options.ladderEverySeconds ?? 5) === 0;
		if (snapshot || last === undefined || u.timestamp - last >= this.checkpointSeconds) {
			this.checkpointed.set(u.group, u.timestamp);
			this.enqueue(b.seal());
		}
	}

	private get checkpointSeconds(): number {
		return this.options.checkpointSeconds ?? 5;
	}

	private get chunkSeconds(): number {
		return this.options.chunkSeconds ?? 60;
	}

	/** Writes every chunk, the open ones too (as they are now; later writes replace them). */
	async flush(): Promise<void> {
		for (const b of this.open.values()) if (b.count > 0) this.enqueue(b.seal());
		await this.settled();
	}

	/** Resolves when every queued write (checkpoints included) has reached the database. */
	async settled(): Promise<void> {
		while (this.writing) await this.writing;
	}

	/**
	 * Chunks of `group` overlapping [from, to] (unix s), oldest first, one per span. Only the
	 * spans that can overlap are read, so reading the tail of a 2-hour ring stays cheap.
	 */
	async read(group: string, from = 0, to = Number.MAX_SAFE_INTEGER): Promise<RingChunk[]> {
		const lowest = Math.max(0, from - this.chunkSeconds);
		const chunks = await this.db.getAll(STORE, IDBKeyRange.bound([group, lowest], [group, to]));
		return chunks.filter((c) => c.end >= from);
	}

	/**
	 * Span starts of the oldest and newest chunk of `group` (keys only, nothing deserialized),
	 * or undefined when nothing is recorded: a reader can then fetch a long ring in slices.
	 */
	async extent(group: string): Promise<{ first: number; last: number } | undefined> {
		const range = IDBKeyRange.bound([group, 0], [group, Number.MAX_SAFE_INTEGER]);
		const tx = this.db.transaction(STORE);
		const first = await tx.store.getKey(range);
		const last = await tx.store.openKeyCursor(range, 'prev');
		await tx.done;
		if (!first || !last) return undefined;
		return { first: first[1], last: last.key[1] };
	}

	/** Groups with anything recorded. */
	async groups(): Promise<string[]> {
		const keys = await this.db.getAllKeys(STORE);
		return [...new Set(keys.map((k) => k[0]))].sort();
	}

	async close(): Promise<void> {
		await this.flush().catch(() => undefined);
		this.db.close();
	}

	private enqueue(chunk: RingChunk): void {
		this.queue.push(chunk);
		this.writing ??= this.drain().finally(() => {
			this.writing = undefined;
		});
	}

	private async drain(): Promise<void> {
		while (this.queue.length > 0) {
			// A later checkpoint of a span holds every row of an earlier one: write the last only.
			const bySpan = new Map<string, RingChunk>();
			for (const c of this.queue.splice(0)) bySpan.set(`${c.group}\u0000${c.start}`, c);
			const batch = [...bySpan.values()];
			try {
				const tx = this.db.transaction(STORE, 'readwrite');
				const stored = await Promise.all(batch.map((c) => tx.store.get([c.group, c.start])));
				const requests: Promise<unknown>[] = [];
				const groups = new Set<string>();
				batch.forEach((c, i) => {
					const before = stored[i];
					requests.push(tx.store.put(before ? mergeChunks(before, c) : c));
					groups.add(c.group);
				});
				// The ring: chunks that ended before their group's retention window go.
				for (const g of groups) {
					const cutoff = (this.latest.get(g) ?? 0) - this.retention;
					const lastStart = cutoff - (this.options.chunkSeconds ?? 60);
					if (lastStart > 0) {
						requests.push(tx.store.delete(IDBKeyRange.bound([g, 0], [g, lastStart], false, true)));
					}
				}
				await Promise.all([...requests, tx.done]);
				this.written += batch.length;
			} catch {
				this.failures++;
			}
		}
	}
}
