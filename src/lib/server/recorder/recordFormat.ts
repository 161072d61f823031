/**
 * The bytes of one recorded record (see recordFile.ts for the files): framing, checksum, and
 * the parse that says whether a record at an offset checks out. Shared by the file's writes and
 * recovery and by the chunked reads of recordSpan.ts.
 */
import { crc32 } from 'node:zlib';

export const RECORD_MAGIC = 0xa7;
export const RECORD_HEADER_BYTES = 28;
/** A single record larger than this is corrupt (the wire's own frame bound is 4 MiB). */
export const MAX_RECORD_PAYLOAD = 16 * 1024 * 1024;

/** What a record holds: a stream frame's Any bytes, or a polled JSON snapshot, gzipped. */
export const enum RecordKind {
	StreamAny = 1,
	SnapshotGzipJson = 2,
	/** One step of a day overview (src/lib/server/overview/overviewRow.ts), in its own file. */
	OverviewRow = 3
}

export interface StoredRecord {
	kind: RecordKind;
	/** Data time of the record (unix seconds, from the frame or snapshot itself). */
	timestamp: number;
	/** Server wall clock when it arrived (unix ms). */
	receivedAt: number;
	payload: Buffer;
}

export function encodeHeader(
	kind: RecordKind,
	length: number,
	timestamp: number,
	receivedAt: number
) {
	const h = Buffer.alloc(RECORD_HEADER_BYTES);
	h[0] = RECORD_MAGIC;
	h[1] = kind;
	h.writeUInt32LE(length, 4);
	h.writeDoubleLE(timestamp, 8);
	h.writeDoubleLE(receivedAt, 16);
	return h;
}

export function checksum(header: Buffer, payload: Buffer): number {
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
	if (
		kind !== RecordKind.StreamAny &&
		kind !== RecordKind.SnapshotGzipJson &&
		kind !== RecordKind.OverviewRow
	) {
		return undefined;
	}
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

/**
 * The next offset from `from` on where a whole record checks out (a 0xA7 magic byte, a known
 * kind, a length that fits and a matching checksum), or undefined. Resynchronises a scan after
 * a corrupt record whose length field cannot be trusted.
 */
export function nextGoodRecord(buf: Buffer, from: number): number | undefined {
	for (let at = buf.indexOf(RECORD_MAGIC, from); at >= 0; at = buf.indexOf(RECORD_MAGIC, at + 1)) {
		if (at + RECORD_HEADER_BYTES > buf.length) return undefined;
		if (parseRecord(buf, at)) return at;
	}
	return undefined;
}

export function indexPathOf(dataPath: string): string {
	return dataPath.replace(/\.rec$/, '') + '.idx';
}
