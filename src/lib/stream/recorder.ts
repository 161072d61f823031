/**
 * The live session's ring in IndexedDB (idb): per group, the last two hours as compact chunks
 * (./ringChunk), so the user can scrub back and a reload keeps what was seen. Runs in the
 * decode worker (IndexedDB exists there) or on the page; record() is synchronous and cheap,
 * the writes are queued and batched.
 */
import { openDB, type DBSchema, type IDBPDatabase } from 'idb';
import {
	ChunkBuilder,
	isRecordedKind,
	type ChunkBuilderOptions,
	type RingChunk
} from './ringChunk';
import type { StreamUpdate } from './updates';

export const RING_DB_NAME = 'gexdeck-stream-ring';
const STORE = 'chunks';
/** Bump when the chunk layout changes; the upgrade drops the old ring (it is a cache). */
export const RING_DB_VERSION = 1;

interface RingSchema extends DBSchema {
	chunks: { key: [string, number]; value: RingChunk };
}

export interface RecorderOptions extends ChunkBuilderOptions {
	dbName?: string;
	/** Seconds kept per group (default 7200). */
	retentionSeconds?: number;
}

export class StreamRecorder {
	private readonly open = new Map<string, ChunkBuilder>();
	private readonly queue: RingChunk[] = [];
	private writing: Promise<void> | undefined;
	private readonly latest = new Map<string, number>();
	/** Chunks written, and write failures (quota, closed DB): counted, never thrown at record(). */
	written = 0;
	failures = 0;

	private constructor(
		private readonly db: IDBPDatabase<RingSchema>,
		private readonly options: RecorderOptions
	) {}

	static async open(options: RecorderOptions = {}): Promise<StreamRecorder> {
		const db = await openDB<RingSchema>(options.dbName ?? RING_DB_NAME, RING_DB_VERSION, {
			upgrade(database) {
				if (database.objectStoreNames.contains(STORE)) database.deleteObjectStore(STORE);
				database.createObjectStore(STORE, { keyPath: ['group', 'start'] });
			}
		});
		return new StreamRecorder(db, options);
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
		if (b.append(u)) this.latest.set(u.group, Math.max(this.latest.get(u.group) ?? 0, u.timestamp));
	}

	/** Writes every chunk, the open ones too (as they are now; later writes replace them). */
	async flush(): Promise<void> {
		for (const b of this.open.values()) if (b.count > 0) this.enqueue(b.seal());
		while (this.writing) await this.writing;
	}

	/** Chunks of `group` overlapping [from, to] (unix s), oldest first. */
	async read(group: string, from = 0, to = Number.MAX_SAFE_INTEGER): Promise<RingChunk[]> {
		const chunks = await this.db.getAll(STORE, IDBKeyRange.bound([group, 0], [group, to]));
		return chunks.filter((c) => c.end >= from);
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
			const batch = this.queue.splice(0);
			try {
				const tx = this.db.transaction(STORE, 'readwrite');
				const requests: Promise<unknown>[] = [];
				const groups = new Set<string>();
				for (const c of batch) {
					requests.push(tx.store.put(c));
					groups.add(c.group);
				}
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
