/**
 * One recorded stream of one day on disk: an append-only data file of framed records and a
 * small time index beside it, built to survive a kill at any byte.
 *
 *   data  <stream>.rec : records, each
 *           [u8 0xA7][u8 kind][u16 0][u32 payload length][f64 data time, unix s]
 *           [f64 received, unix ms][u32 crc32 of the 28-byte header's first 24 bytes + payload]
 *           [payload]
 *   index <stream>.idx : one [f64 data time][f64 record offset] per record (little endian)
 *
 * A record is written with one write() call, then its index entry. After a kill -9 the tail of
 * either file can be torn: open() keeps every index entry whose record checks out, scans the
 * data file from there, truncates a torn record (bad magic, short, crc mismatch) and re-creates
 * the missing index entries. Nothing before the first bad byte is ever lost.
 *
 * Reads: read() for small synchronous reads; span() for a whole day served to a client, read
 * later in bounded chunks with async reads (RecordSpan) so the event loop never stalls on it.
 */
import {
	closeSync,
	fstatSync,
	ftruncateSync,
	mkdirSync,
	openSync,
	readSync,
	writeSync
} from 'node:fs';
import { open } from 'node:fs/promises';
import { dirname } from 'node:path';
import { crc32 } from 'node:zlib';

export const RECORD_MAGIC = 0xa7;
export const RECORD_HEADER_BYTES = 28;
const INDEX_ENTRY_BYTES = 16;
/** A single record larger than this is corrupt (the wire's own frame bound is 4 MiB). */
export const MAX_RECORD_PAYLOAD = 16 * 1024 * 1024;

/** What a record holds: a stream frame's Any bytes, or a polled JSON snapshot, gzipped. */
export const enum RecordKind {
	StreamAny = 1,
	SnapshotGzipJson = 2
}

export interface StoredRecord {
	kind: RecordKind;
	/** Data time of the record (unix seconds, from the frame or snapshot itself). */
	timestamp: number;
	/** Server wall clock when it arrived (unix ms). */
	receivedAt: number;
	payload: Buffer;
}

export interface Recovery {
	records: number;
	/** Bytes of a torn tail cut from the data file (0 after a clean stop). */
	truncatedBytes: number;
	/** Index entries re-created from the data file. */
	reindexed: number;
}

function encodeHeader(kind: RecordKind, length: number, timestamp: number, receivedAt: number) {
	const h = Buffer.alloc(RECORD_HEADER_BYTES);
	h[0] = RECORD_MAGIC;
	h[1] = kind;
	h.writeUInt32LE(length, 4);
	h.writeDoubleLE(timestamp, 8);
	h.writeDoubleLE(receivedAt, 16);
	return h;
}

function checksum(header: Buffer, payload: Buffer): number {
	return crc32(payload, crc32(header.subarray(0, 24)));
}

/** Parses the record at `at` of `buf`; undefined when it is torn or corrupt. */
export function parseRecord(
	buf: Buffer,
	at: number
): { record: StoredRecord; next: number } | undefined {
	if (at + RECORD_HEADER_BYTES > buf.length) return undefined;
	if (buf[at] !== RECORD_MAGIC) return undefined;
	const kind = buf[at + 1];
	if (kind !== RecordKind.StreamAny && kind !== RecordKind.SnapshotGzipJson) return undefined;
	const length = buf.readUInt32LE(at + 4);
	if (length > MAX_RECORD_PAYLOAD) return undefined;
	const end = at + RECORD_HEADER_BYTES + length;
	if (end > buf.length) return undefined;
	const header = buf.subarray(at, at + RECORD_HEADER_BYTES);
	const payload = buf.subarray(at + RECORD_HEADER_BYTES, end);
	if (checksum(header, payload) !== header.readUInt32LE(24)) return undefined;
	return {
		record: {
			kind,
			timestamp: header.readDoubleLE(8),
			receivedAt: header.readDoubleLE(16),
			payload
		},
		next: end
	};
}

function readAt(fd: number, position: number, length: number): Buffer {
	const buf = Buffer.allocUnsafe(length);
	let got = 0;
	while (got < length) {
		const n = readSync(fd, buf, got, length - got, position + got);
		if (n === 0) break;
		got += n;
	}
	return got === length ? buf : buf.subarray(0, got);
}

/** Growable parallel arrays of the index, in memory for range lookups. */
class TimeIndex {
	times = new Float64Array(1024);
	offsets = new Float64Array(1024);
	/** Running maximum of times: the lookup key, monotonic even if a record came out of order. */
	keys = new Float64Array(1024);
	length = 0;

	push(time: number, offset: number): void {
		if (this.length === this.times.length) {
			const grow = (a: Float64Array) => {
				const b = new Float64Array(a.length * 2);
				b.set(a);
				return b;
			};
			this.times = grow(this.times);
			this.offsets = grow(this.offsets);
			this.keys = grow(this.keys);
		}
		const prev = this.length > 0 ? this.keys[this.length - 1] : -Infinity;
		this.times[this.length] = time;
		this.offsets[this.length] = offset;
		this.keys[this.length] = Math.max(prev, time);
		this.length++;
	}

	/** First entry whose key is >= t. */
	lowerBound(t: number): number {
		let lo = 0;
		let hi = this.length;
		while (lo < hi) {
			const mid = (lo + hi) >>> 1;
			if (this.keys[mid] < t) lo = mid + 1;
			else hi = mid;
		}
		return lo;
	}

	/** First entry whose key is > t. */
	upperBound(t: number): number {
		let lo = 0;
		let hi = this.length;
		while (lo < hi) {
			const mid = (lo + hi) >>> 1;
			if (this.keys[mid] <= t) lo = mid + 1;
			else hi = mid;
		}
		return lo;
	}
}

export class RecordFile {
	private readonly index = new TimeIndex();
	private dataSize = 0;
	private closed = false;
	/** Server wall clock of the last append (to close idle files). */
	lastWriteAt = 0;
	/** Server wall clock of the last read. */
	lastReadAt = 0;
	readonly recovery: Recovery;

	private constructor(
		readonly path: string,
		private readonly dataFd: number,
		private readonly indexFd: number
	) {
		this.recovery = this.recover();
	}

	/** Opens (creating) `<path>` and `<path minus .rec>.idx`, repairing a torn tail. */
	static open(path: string): RecordFile {
		// Recordings are the account's data: readable by this user only (folders made here 0700,
		// files 0600; a folder that already exists is the recorder's to tighten, see ensurePrivate).
		mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
		const dataFd = openSync(path, 'a+', 0o600);
		let indexFd: number;
		try {
			indexFd = openSync(indexPathOf(path), 'a+', 0o600);
		} catch (e) {
			closeSync(dataFd);
			throw e;
		}
		// 'a+' appends every write at the end whatever the position: exactly the record order.
		return new RecordFile(path, dataFd, indexFd);
	}

	get records(): number {
		return this.index.length;
	}

	get bytes(): number {
		return this.dataSize + this.index.length * INDEX_ENTRY_BYTES;
	}

	/** Data time of the newest record, or undefined when empty. */
	get lastTimestamp(): number | undefined {
		return this.index.length > 0 ? this.index.keys[this.index.length - 1] : undefined;
	}

	get firstTimestamp(): number | undefined {
		return this.index.length > 0 ? this.index.times[0] : undefined;
	}

	private recover(): Recovery {
		const dataLength = fstatSync(this.dataFd).size;
		const indexLength = fstatSync(this.indexFd).size;
		const entries = Math.floor(indexLength / INDEX_ENTRY_BYTES);
		const raw = readAt(this.indexFd, 0, entries * INDEX_ENTRY_BYTES);
		// Index entries are trusted only as far as they are increasing offsets inside the data.
		let validEntries = 0;
		let prevOffset = -1;
		for (let i = 0; i < entries; i++) {
			const offset = raw.readDoubleLE(i * INDEX_ENTRY_BYTES + 8);
			if (!(offset > prevOffset) || offset + RECORD_HEADER_BYTES > dataLength) break;
			prevOffset = offset;
			validEntries++;
		}
		// The last trusted entry's record is re-checked by the scan below, from its offset.
		let scanFrom = 0;
		if (validEntries > 0) {
			validEntries--;
			scanFrom = raw.readDoubleLE(validEntries * INDEX_ENTRY_BYTES + 8);
		}
		for (let i = 0; i < validEntries; i++) {
			this.index.push(
				raw.readDoubleLE(i * INDEX_ENTRY_BYTES),
				raw.readDoubleLE(i * INDEX_ENTRY_BYTES + 8)
			);
		}
		const tail = readAt(this.dataFd, scanFrom, dataLength - scanFrom);
		let at = 0;
		const found: { time: number; offset: number }[] = [];
		for (;;) {
			const parsed = parseRecord(tail, at);
			if (!parsed) break;
			found.push({ time: parsed.record.timestamp, offset: scanFrom + at });
			at = parsed.next;
		}
		const goodEnd = scanFrom + at;
		const truncatedBytes = dataLength - goodEnd;
		if (truncatedBytes > 0) ftruncateSync(this.dataFd, goodEnd);
		this.dataSize = goodEnd;
		// Rewrite the index from the first re-scanned entry on: the old tail may be torn or short.
		ftruncateSync(this.indexFd, validEntries * INDEX_ENTRY_BYTES);
		if (found.length > 0) {
			const out = Buffer.alloc(found.length * INDEX_ENTRY_BYTES);
			found.forEach((f, i) => {
				out.writeDoubleLE(f.time, i * INDEX_ENTRY_BYTES);
				out.writeDoubleLE(f.offset, i * INDEX_ENTRY_BYTES + 8);
				this.index.push(f.time, f.offset);
			});
			writeSync(this.indexFd, out);
		}
		return {
			records: this.index.length,
			truncatedBytes,
			reindexed: Math.max(0, this.index.length - entries)
		};
	}

	/** Appends one record (synchronously handed to the OS: a process kill loses nothing). */
	append(kind: RecordKind, timestamp: number, receivedAt: number, payload: Uint8Array): void {
		if (this.closed) throw new Error(`${this.path} is closed`);
		if (payload.length > MAX_RECORD_PAYLOAD) {
			throw new RangeError(`record of ${payload.length} bytes exceeds ${MAX_RECORD_PAYLOAD}`);
		}
		// (Node's crc32 of a zero-length view of an empty ArrayBuffer is 0, not the seed: use a
		// plain empty Buffer.)
		const body =
			payload.length === 0
				? Buffer.alloc(0)
				: Buffer.from(payload.buffer, payload.byteOffset, payload.byteLength);
		const header = encodeHeader(kind, body.length, timestamp, receivedAt);
		header.writeUInt32LE(checksum(header, body), 24);
		const offset = this.dataSize;
		writeSync(this.dataFd, Buffer.concat([header, body]));
		this.dataSize += RECORD_HEADER_BYTES + body.length;
		const entry = Buffer.allocUnsafe(INDEX_ENTRY_BYTES);
		entry.writeDoubleLE(timestamp, 0);
		entry.writeDoubleLE(offset, 8);
		writeSync(this.indexFd, entry);
		this.index.push(timestamp, offset);
		this.lastWriteAt = Date.now();
	}

	/**
	 * Records whose data time is within [from, to] (seconds; bounds inclusive), in order. With
	 * `step` (seconds), only the first record of every step-second bucket: picked from the index,
	 * so only the records kept are read and checked (a day overview of 400-strike chains reads a
	 * fifth of the file at step 5, not all of it).
	 */
	read(from = -Infinity, to = Infinity, step = 1): StoredRecord[] {
		this.lastReadAt = Date.now();
		const i0 = this.index.lowerBound(from);
		const i1 = this.index.upperBound(to);
		if (i1 <= i0) return [];
		if (step > 1) return this.readThinned(i0, i1, from, to, step);
		const start = this.index.offsets[i0];
		const end = i1 < this.index.length ? this.index.offsets[i1] : this.dataSize;
		const buf = readAt(this.dataFd, start, end - start);
		const out: StoredRecord[] = [];
		let at = 0;
		while (at < buf.length) {
			const parsed = parseRecord(buf, at);
			if (!parsed) break;
			// Copy out of the shared read buffer only what is kept.
			if (parsed.record.timestamp >= from && parsed.record.timestamp <= to) out.push(parsed.record);
			at = parsed.next;
		}
		return out;
	}

	/**
	 * The records read() would return now, to be read later in bounded chunks (RecordSpan.chunks):
	 * fixed at this call (the index length and data size seen now), so records appended while a
	 * client is being served are not part of its answer, and read through a descriptor of its
	 * own, so closing this file (idle, new day) or deleting it (retention) does not cut it short.
	 */
	span(from = -Infinity, to = Infinity, step = 1): RecordSpan {
		this.lastReadAt = Date.now();
		const i0 = this.index.lowerBound(from);
		const i1 = this.index.upperBound(to);
		// The arrays are replaced, never rewritten, when the index grows: positions below the
		// length seen now keep their values, so holding them is a snapshot without a copy.
		return new RecordSpan(this.path, this.index.times, this.index.offsets, this.index.length, {
			dataEnd: this.dataSize,
			i0,
			i1: Math.max(i0, i1),
			from,
			to,
			step,
			arrivalAt: (i) => this.arrivalAt(i)
		});
	}

	/** Server arrival stamp of the record at index position `i` (its header only, 24 bytes). */
	private arrivalAt(i: number): number | undefined {
		if (this.closed) return undefined;
		const header = readAt(this.dataFd, this.index.offsets[i], 24);
		return header.length === 24 && header[0] === RECORD_MAGIC ? header.readDoubleLE(16) : undefined;
	}

	private readThinned(
		i0: number,
		i1: number,
		from: number,
		to: number,
		step: number
	): StoredRecord[] {
		const { times, offsets } = this.index;
		const out: StoredRecord[] = [];
		let bucket = Number.NaN;
		for (let i = i0; i < i1; i++) {
			const t = times[i];
			if (t < from || t > to || Math.floor(t / step) === bucket) continue;
			const end = i + 1 < this.index.length ? offsets[i + 1] : this.dataSize;
			const parsed = parseRecord(readAt(this.dataFd, offsets[i], end - offsets[i]), 0);
			if (!parsed) continue;
			bucket = Math.floor(t / step);
			out.push(parsed.record);
		}
		return out;
	}

	close(): void {
		if (this.closed) return;
		this.closed = true;
		closeSync(this.dataFd);
		closeSync(this.indexFd);
	}
}

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
 * record out of [from, to] is skipped, and the first record that does not check out ends the
 * read (with `step`, it is passed over and the bucket's next record taken instead).
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
			if (t < from || t > to) continue;
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

	private async *sequential(
		file: import('node:fs/promises').FileHandle,
		chunkBytes: number
	): AsyncGenerator<StoredRecord[]> {
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
			// What is left either waits for more bytes (a record cut by this read) or is bad: read()
			// stops at the first record that does not check out, and so does this.
			if (carry.length > 0 && (position >= end || !isCut(carry))) return;
		}
	}

	private async *thinned(
		file: import('node:fs/promises').FileHandle,
		chunkBytes: number
	): AsyncGenerator<StoredRecord[]> {
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
			if (!parsed) continue;
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

export function indexPathOf(dataPath: string): string {
	return dataPath.replace(/\.rec$/, '') + '.idx';
}
