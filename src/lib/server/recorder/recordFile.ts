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
 * either file can be torn: open() keeps the index entries it can trust (increasing offsets
 * inside the data), scans the data file from the last of them, re-creates the missing entries
 * and truncates a torn tail (bad magic, short, crc mismatch with nothing good after it). A
 * corrupt stretch inside the data (a flipped byte) is passed over, not cut: the scan
 * resynchronises on the next record that checks out, and reads go on at the next indexed
 * record, so one bad byte costs one record, never the rest of the day.
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
import { dirname } from 'node:path';
import {
	checksum,
	encodeHeader,
	indexPathOf,
	MAX_RECORD_PAYLOAD,
	nextGoodRecord,
	parseRecord,
	RECORD_HEADER_BYTES,
	RECORD_MAGIC,
	type RecordKind,
	type StoredRecord
} from './recordFormat';
import { RecordSpan } from './recordSpan';

export {
	checksum,
	encodeHeader,
	indexPathOf,
	MAX_RECORD_PAYLOAD,
	parseRecord,
	RECORD_HEADER_BYTES,
	RECORD_MAGIC,
	RecordKind,
	type StoredRecord
} from './recordFormat';
export { RecordSpan, SPAN_CHUNK_BYTES, type SpanPlan } from './recordSpan';

const INDEX_ENTRY_BYTES = 16;

export interface Recovery {
	records: number;
	/** Bytes of a torn tail cut from the data file (0 after a clean stop). */
	truncatedBytes: number;
	/** Index entries re-created from the data file. */
	reindexed: number;
	/** Corrupt stretches passed over inside the data (a flipped byte): the records around stay. */
	skipped: number;
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

	/** First entry whose offset is >= `offset` (offsets strictly increase). */
	offsetAtOrAfter(offset: number): number {
		let lo = 0;
		let hi = this.length;
		while (lo < hi) {
			const mid = (lo + hi) >>> 1;
			if (this.offsets[mid] < offset) lo = mid + 1;
			else hi = mid;
		}
		return lo;
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
	/** Index positions of records a read found corrupt (left out of every later span). */
	private readonly bad = new Set<number>();
	private dataSize = 0;
	/** Data bytes below which open() trusted the index without reading a record (see check()). */
	private unchecked = 0;
	private checking?: Promise<void>;
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
		let end = 0;
		let skipped = 0;
		const found: { time: number; offset: number }[] = [];
		for (;;) {
			const parsed = parseRecord(tail, at);
			if (parsed) {
				found.push({ time: parsed.record.timestamp, offset: scanFrom + at });
				at = end = parsed.next;
				continue;
			}
			// A bad record: a torn tail if nothing good follows (cut below), else a corrupt
			// stretch (a flipped byte) passed over, never indexed, so the rest of the day stays.
			const next = nextGoodRecord(tail, at + 1);
			if (next === undefined) break;
			skipped++;
			at = next;
		}
		this.unchecked = scanFrom;
		const goodEnd = scanFrom + end;
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
			reindexed: Math.max(0, this.index.length - entries),
			skipped
		};
	}

	/** Appends one record (synchronously handed to the OS: a process kill loses nothing). */
	append(kind: RecordKind, timestamp: number, receivedAt: number, payload: Uint8Array): void {
		this.appendAll([{ kind, timestamp, receivedAt, payload }]);
	}

	/**
	 * Appends records in two writes (data, then index) instead of two per record: an import
	 * files hundreds of thousands of records, and the syscalls were a third of its time.
	 */
	appendAll(
		records: readonly {
			kind: RecordKind;
			timestamp: number;
			receivedAt: number;
			payload: Uint8Array;
		}[]
	): void {
		if (this.closed) throw new Error(`${this.path} is closed`);
		const parts: Buffer[] = [];
		const entries = Buffer.allocUnsafe(records.length * INDEX_ENTRY_BYTES);
		let offset = this.dataSize;
		records.forEach(({ kind, timestamp, receivedAt, payload }, i) => {
			if (payload.length > MAX_RECORD_PAYLOAD) {
				throw new RangeError(`record of ${payload.length} bytes exceeds ${MAX_RECORD_PAYLOAD}`);
			}
			// (Node's crc32 of a zero-length view of an empty ArrayBuffer is 0, not the seed: use
			// a plain empty Buffer.)
			const body =
				payload.length === 0
					? Buffer.alloc(0)
					: Buffer.from(payload.buffer, payload.byteOffset, payload.byteLength);
			const header = encodeHeader(kind, body.length, timestamp, receivedAt);
			header.writeUInt32LE(checksum(header, body), 24);
			parts.push(header, body);
			entries.writeDoubleLE(timestamp, i * INDEX_ENTRY_BYTES);
			entries.writeDoubleLE(offset, i * INDEX_ENTRY_BYTES + 8);
			offset += RECORD_HEADER_BYTES + body.length;
		});
		writeSync(this.dataFd, Buffer.concat(parts));
		writeSync(this.indexFd, entries);
		records.forEach((r, i) =>
			this.index.push(r.timestamp, entries.readDoubleLE(i * INDEX_ENTRY_BYTES + 8))
		);
		this.dataSize = offset;
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
			if (!parsed) {
				// A record that does not check out (a flipped byte) is passed over: the index says
				// where the next one starts.
				const next = this.badAt(start + at);
				if (next === undefined || next >= end) break;
				at = next - start;
				continue;
			}
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
			arrivalAt: (i) => this.arrivalAt(i),
			bad: this.bad,
			badAt: (offset) => this.badAt(offset)
		});
	}

	/**
	 * Reads the records open() took on the index's word (once per open file; the tail it re-scanned
	 * and the records appended since are known good), so a corrupt one is known before a span is
	 * planned and its count is what its read returns. A read that fails (the file removed) leaves
	 * them unchecked: the answer's own read meets the same fault.
	 */
	check(): Promise<void> {
		if (this.unchecked === 0) return Promise.resolve();
		this.checking ??= (async () => {
			const chunks = this.span(-Infinity, Infinity).chunks();
			while (!(await chunks.next()).done);
			this.unchecked = 0;
		})()
			.catch(() => undefined)
			.finally(() => (this.checking = undefined));
		return this.checking;
	}

	/**
	 * A read found the record at data offset `offset` corrupt: it is remembered (when it is an
	 * indexed record) so later spans neither announce nor look for it; returns the offset of the
	 * next indexed record, where the read goes on.
	 */
	badAt(offset: number): number | undefined {
		const i = this.index.offsetAtOrAfter(offset);
		if (i < this.index.length && this.index.offsets[i] === offset) this.bad.add(i);
		const next = i < this.index.length && this.index.offsets[i] === offset ? i + 1 : i;
		return next < this.index.length ? this.index.offsets[next] : undefined;
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
			if (!parsed) {
				this.badAt(offsets[i]);
				continue;
			}
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
