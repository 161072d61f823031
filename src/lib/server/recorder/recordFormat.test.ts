/**
 * The bytes of one record (recordFormat.ts) at the edges the file-level tests do not reach: the
 * kind read back, a record of no payload, the payload bound, a known kind only, the resync scan
 * from any offset, and the index path beside the data file.
 */
import { crc32 } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import {
	checksum,
	encodeHeader,
	indexPathOf,
	MAX_RECORD_PAYLOAD,
	nextGoodRecord,
	parseRecord,
	RECORD_HEADER_BYTES,
	RECORD_MAGIC,
	RecordKind
} from './recordFormat';

/** One framed record as the file writes it (header with its checksum, then the payload). */
function record(kind: number, payload: Buffer, timestamp = 1, receivedAt = 2): Buffer {
	const header = encodeHeader(kind as RecordKind, payload.length, timestamp, receivedAt);
	header.writeUInt32LE(checksum(header, payload), 24);
	return Buffer.concat([header, payload]);
}

describe('record format', () => {
	it('lays the header out as documented and checksums its first 24 bytes and the payload', () => {
		const payload = Buffer.from('hello');
		const r = record(RecordKind.SnapshotGzipJson, payload, 1234.5, 6789);
		expect(r[0]).toBe(0xa7);
		expect(r[1]).toBe(2);
		expect(r.readUInt16LE(2)).toBe(0);
		expect(r.readUInt32LE(4)).toBe(5);
		expect(r.readDoubleLE(8)).toBe(1234.5);
		expect(r.readDoubleLE(16)).toBe(6789);
		expect(r.readUInt32LE(24)).toBe(crc32(payload, crc32(r.subarray(0, 24))));
	});

	it('parses each kind back whole, with where the next record starts', () => {
		const a = record(RecordKind.StreamAny, Buffer.from([1, 2, 3]), 10, 20);
		const b = record(RecordKind.SnapshotGzipJson, Buffer.from([4]), 11, 21);
		const buf = Buffer.concat([a, b]);
		const first = parseRecord(buf, 0);
		expect(first?.next).toBe(a.length);
		expect(first?.record.kind).toBe(RecordKind.StreamAny);
		expect(first?.record.timestamp).toBe(10);
		expect(first?.record.receivedAt).toBe(20);
		expect([...first!.record.payload]).toEqual([1, 2, 3]);
		const second = parseRecord(buf, a.length);
		expect(second?.next).toBe(buf.length);
		expect(second?.record.kind).toBe(RecordKind.SnapshotGzipJson);
		expect([...second!.record.payload]).toEqual([4]);
		expect(parseRecord(buf, buf.length)).toBeUndefined();
	});

	it('parses a record of no payload that ends the buffer exactly', () => {
		const r = record(RecordKind.StreamAny, Buffer.alloc(0), 7, 8);
		expect(r.length).toBe(RECORD_HEADER_BYTES);
		expect(parseRecord(r, 0)).toEqual({
			record: { kind: RecordKind.StreamAny, timestamp: 7, receivedAt: 8, payload: Buffer.alloc(0) },
			next: RECORD_HEADER_BYTES
		});
		expect(parseRecord(r.subarray(0, RECORD_HEADER_BYTES - 1), 0)).toBeUndefined();
	});

	it('refuses a torn record, a wrong magic, an unknown kind and a bad checksum', () => {
		const good = record(RecordKind.StreamAny, Buffer.from([9, 9, 9]));
		expect(parseRecord(good.subarray(0, good.length - 1), 0)).toBeUndefined();
		const magic = Buffer.from(good);
		magic[0] = 0xa6;
		expect(parseRecord(magic, 0)).toBeUndefined();
		// A wrong magic byte under a checksum that matches it: still not a record.
		magic.writeUInt32LE(
			checksum(magic.subarray(0, RECORD_HEADER_BYTES), magic.subarray(RECORD_HEADER_BYTES)),
			24
		);
		expect(parseRecord(magic, 0)).toBeUndefined();
		magic[0] = RECORD_MAGIC;
		magic.writeUInt32LE(
			checksum(magic.subarray(0, RECORD_HEADER_BYTES), magic.subarray(RECORD_HEADER_BYTES)),
			24
		);
		expect(parseRecord(magic, 0)?.record.payload.length).toBe(3);
		// Kinds 0 and 4 (past the overview row, 3) with a checksum that matches: still not a record.
		for (const kind of [0, 4, 0xff]) {
			expect(parseRecord(record(kind, Buffer.from([1])), 0)).toBeUndefined();
		}
		const crc = Buffer.from(good);
		crc[RECORD_HEADER_BYTES + 1] ^= 1;
		expect(parseRecord(crc, 0)).toBeUndefined();
		const header = Buffer.from(good);
		header[12] ^= 1; // the data time, inside the checksummed 24 bytes
		expect(parseRecord(header, 0)).toBeUndefined();
	});

	it('takes a payload of exactly the bound and refuses one byte more whatever the buffer holds', () => {
		const max = record(RecordKind.StreamAny, Buffer.alloc(MAX_RECORD_PAYLOAD, 1));
		expect(parseRecord(max, 0)?.record.payload.length).toBe(MAX_RECORD_PAYLOAD);
		const over = record(RecordKind.StreamAny, Buffer.alloc(MAX_RECORD_PAYLOAD + 1, 1));
		expect(parseRecord(over, 0)).toBeUndefined();
	});

	it('finds the next record that checks out from any offset, past stray magic bytes', () => {
		const a = record(RecordKind.StreamAny, Buffer.from([RECORD_MAGIC, RECORD_MAGIC]));
		const b = record(RecordKind.SnapshotGzipJson, Buffer.alloc(0));
		expect(nextGoodRecord(a, 0)).toBe(0);
		expect(nextGoodRecord(a, 1)).toBeUndefined();
		// Garbage with magic bytes, then a record of no payload that ends the buffer exactly.
		const garbage = Buffer.from([1, RECORD_MAGIC, 1, RECORD_MAGIC, 0, 0]);
		const buf = Buffer.concat([garbage, b]);
		expect(nextGoodRecord(buf, 0)).toBe(garbage.length);
		expect(nextGoodRecord(buf, garbage.length)).toBe(garbage.length);
		expect(nextGoodRecord(buf, garbage.length + 1)).toBeUndefined();
		expect(nextGoodRecord(Buffer.concat([a, b]), 1)).toBe(a.length);
		expect(nextGoodRecord(Buffer.from([1, 2, 3]), 0)).toBeUndefined();
	});

	it('names the index beside the data file, replacing only a final .rec', () => {
		expect(indexPathOf('/d/2026-01-02/spx.rec')).toBe('/d/2026-01-02/spx.idx');
		expect(indexPathOf('/d/x.recorded/a.rec')).toBe('/d/x.recorded/a.idx');
		expect(indexPathOf('/d/a.data')).toBe('/d/a.data.idx');
	});
});
