/**
 * A read of one record file fixed in time, read later in bounded chunks with async reads, so
 * serving a whole day never stalls the event loop (RecordFile.span makes one).
 */
import type { FileHandle } from 'node:fs/promises';
import { open } from 'node:fs/promises';
import {
	MAX_RECORD_PAYLOAD,
	parseRecord,
	RECORD_HEADER_BYTES,
	RECORD_MAGIC,
	type StoredRecord
} from './recordFormat';

/** Bytes a streamed read reads at a time (one chunk in flight per reader). */
export const SPAN_CHUNK_BYTES = 256 * 1024;

/** What a RecordSpan the index says it holds, before a byte of it is read. */
export interface SpanPlan {
	/** Records the read returns (every one of them checked out when it was written). */
	count: number;
	/** Index positions of the first and last of them (-1 when none). */
	first: number;
	last: number;
}

/**
 * A read of one record file fixed in time (RecordFile.span): the same records read() returned
 * at that moment, read on demand in chunks of about SPAN_CHUNK_BYTES with async reads. The range
 * [from, to] is found by the index, then the bytes are parsed in order exactly like read(): a
 * record out of [from, to] is skipped, and a record that does not check out is passed over (the
 * read goes on at the next indexed record; with `step`, the bucket's next record is taken) and
 * remembered by the file, so later spans neither announce nor read it.
 */
export class RecordSpan {
	readonly plan: SpanPlan;

	constructor(
		readonly path: string,
		private readonly times: Float64Array,
		private readonly offsets: Float64Array,
		/** Index entries when the span was taken. */
		private readonly length: number,
		private readonly at: {
			dataEnd: number;
			i0: number;
			i1: number;
			from: number;
			to: number;
			step: number;
			arrivalAt: (i: number) => number | undefined;
			/** Index positions already known corrupt: not announced, not read. */
			bad: ReadonlySet<number>;
			/** A corrupt record met at `offset`: remembered; the next indexed record's offset. */
			badAt: (offset: number) => number | undefined;
		}
	) {
		this.plan = this.planned();
	}

	/** Arrival stamp (unix ms) of the record at index position `i`, read from its header now. */
	arrivalAt(i: number): number | undefined {
		return i < 0 ? undefined : this.at.arrivalAt(i);
	}

	timeAt(i: number): number | undefined {
		return i < 0 ? undefined : this.times[i];
	}

	private planned(): SpanPlan {
		const { i0, i1, from, to, step } = this.at;
		const plan: SpanPlan = { count: 0, first: -1, last: -1 };
		let bucket = Number.NaN;
		for (let i = i0; i < i1; i++) {
			const t = this.times[i];
			if (t < from || t > to || this.at.bad.has(i)) continue;
			if (step > 1) {
				if (Math.floor(t / step) === bucket) continue;
				bucket = Math.floor(t / step);
			}
			if (plan.count++ === 0) plan.first = i;
			plan.last = i;
		}
		return plan;
	}

	/** Where the record at index position `i` ends (the next one's offset, or the data's end). */
	private endOf(i: number): number {
		return i + 1 < this.length ? this.offsets[i + 1] : this.at.dataEnd;
	}

	/**
	 * The records in order, a chunk at a time (payloads are views into that chunk's buffer).
	 * The file is opened on the first chunk and closed when the last is taken, when the caller
	 * stops early (return(), as for await does on break) or on an error: an abandoned read holds
	 * no descriptor.
	 */
	async *chunks(chunkBytes = SPAN_CHUNK_BYTES): AsyncGenerator<StoredRecord[]> {
		if (this.plan.count === 0) return;
		const file = await open(this.path, 'r');
		try {
			if (this.at.step > 1) yield* this.thinned(file, chunkBytes);
			else yield* this.sequential(file, chunkBytes);
		} finally {
			await file.close();
		}
	}

	private async *sequential(file: FileHandle, chunkBytes: number): AsyncGenerator<StoredRecord[]> {
		const { i0, i1, from, to } = this.at;
		let position = this.offsets[i0];
		const end = i1 < this.length ? this.offsets[i1] : this.at.dataEnd;
		// Bytes of a record cut by the previous chunk's end, carried into the next read.
		let carry = Buffer.alloc(0);
		while (position < end) {
			// A record longer than a chunk is read whole: as much as its header says it needs.
			let want = Math.min(chunkBytes, end - position);
			if (carry.length >= RECORD_HEADER_BYTES) {
				const need = RECORD_HEADER_BYTES + carry.readUInt32LE(4) - carry.length;
				want = Math.min(Math.max(want, need), end - position);
			}
			const piece = Buffer.allocUnsafe(want);
			const { bytesRead } = await file.read(piece, 0, want, position);
			if (bytesRead === 0) return;
			position += bytesRead;
			const buf =
				carry.length > 0
					? Buffer.concat([carry, piece.subarray(0, bytesRead)])
					: piece.subarray(0, bytesRead);
			const out: StoredRecord[] = [];
			let at = 0;
			while (at < buf.length) {
				const parsed = parseRecord(buf, at);
				if (!parsed) break;
				if (parsed.record.timestamp >= from && parsed.record.timestamp <= to)
					out.push(parsed.record);
				at = parsed.next;
			}
			carry = buf.subarray(at);
			if (out.length > 0) yield out;
			// What is left either waits for more bytes (a record cut by this read) or is corrupt
			// (a flipped byte): passed over, the read goes on at the next indexed record.
			if (carry.length > 0 && (position >= end || !isCut(carry))) {
				const next = this.at.badAt(position - carry.length);
				if (next === undefined || next >= end) return;
				position = next;
				carry = Buffer.alloc(0);
			}
		}
	}

	private async *thinned(file: FileHandle, chunkBytes: number): AsyncGenerator<StoredRecord[]> {
		const { i0, i1, from, to, step } = this.at;
		let out: StoredRecord[] = [];
		let bytes = 0;
		let bucket = Number.NaN;
		for (let i = i0; i < i1; i++) {
			const t = this.times[i];
			if (t < from || t > to || Math.floor(t / step) === bucket) continue;
			const length = this.endOf(i) - this.offsets[i];
			const buf = Buffer.allocUnsafe(length);
			const { bytesRead } = await file.read(buf, 0, length, this.offsets[i]);
			const parsed = parseRecord(buf.subarray(0, bytesRead), 0);
			if (!parsed) {
				this.at.badAt(this.offsets[i]);
				continue;
			}
			bucket = Math.floor(t / step);
			out.push(parsed.record);
			bytes += length;
			if (bytes >= chunkBytes) {
				yield out;
				out = [];
				bytes = 0;
			}
		}
		if (out.length > 0) yield out;
	}
}

/** Whether `rest` (what a chunk left unparsed) is the start of a good record cut short. */
function isCut(rest: Buffer): boolean {
	if (rest.length < RECORD_HEADER_BYTES) return rest[0] === RECORD_MAGIC;
	if (rest[0] !== RECORD_MAGIC) return false;
	const length = rest.readUInt32LE(4);
	return length <= MAX_RECORD_PAYLOAD && RECORD_HEADER_BYTES + length > rest.length;
}
