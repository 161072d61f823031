/**
 * A recorded day's updates as ring chunks (src/lib/stream/ring/ringChunk.ts), so Classic's
 * timeline reads the server's recording and the browser's ring in one shape.
 */
import { ChunkBuilder, type RingChunk } from '../ring/ringChunk';
import type { StreamUpdate } from '../transport/updates';

/**
 * Backfilled updates of one group as ring chunks (60 s spans), so the timeline reads one shape,
 * taken batch by batch as they decode: `push` returns the chunks a batch completed, `end` the
 * last one.
 */
export class BackfillChunker {
	private building: ChunkBuilder | undefined;
	/** GEX updates of the group taken so far. */
	count = 0;

	constructor(private readonly group: string) {}

	push(updates: readonly StreamUpdate[]): RingChunk[] {
		const out: RingChunk[] = [];
		for (const u of updates) {
			if (u.kind !== 'gex' || u.group !== this.group) continue;
			if (!this.building || !this.building.covers(u.timestamp)) {
				if (this.building && this.building.count > 0) out.push(this.building.seal());
				this.building = new ChunkBuilder(this.group, 'gex', u.timestamp);
			}
			this.building.append(u);
			this.count++;
		}
		return out;
	}

	end(): RingChunk[] {
		const b = this.building;
		this.building = undefined;
		return b && b.count > 0 ? [b.seal()] : [];
	}
}

/** Backfilled updates of `group` as ring chunks, all at once. */
export function chunksOf(group: string, updates: readonly StreamUpdate[]): RingChunk[] {
	const chunker = new BackfillChunker(group);
	return [...chunker.push(updates), ...chunker.end()];
}
