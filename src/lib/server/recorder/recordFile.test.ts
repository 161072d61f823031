/**
 * The record file's crash safety: whatever byte a kill lands on (data or index torn at any
 * length, garbage appended), reopening keeps every complete record before it, cuts the rest,
 * and appends again after it.
 */
import fc from 'fast-check';
import {
	appendFileSync,
	mkdirSync,
	mkdtempSync,
	readdirSync,
	readFileSync,
	rmSync,
	statSync,
	truncateSync,
	writeFileSync
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
	indexPathOf,
	MAX_RECORD_PAYLOAD,
	RecordFile,
	RecordKind,
	RECORD_HEADER_BYTES
} from './recordFile';

let dir: string;
beforeEach(() => {
	dir = mkdtempSync(join(tmpdir(), 'gexdeck-recfile-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function payload(i: number, size: number): Uint8Array {
	const p = new Uint8Array(size);
	for (let j = 0; j < size; j++) p[j] = (i * 31 + j) & 0xff;
	return p;
}

describe('RecordFile', () => {
	it('reads back what it wrote, by time range', () => {
		const path = join(dir, 'a.rec');
		const f = RecordFile.open(path);
		for (let i = 0; i < 50; i++) f.append(RecordKind.StreamAny, 1000 + i, 5, payload(i, 10 + i));
		expect(f.read().map((r) => r.timestamp)).toEqual(
			Array.from({ length: 50 }, (_, i) => 1000 + i)
		);
		const mid = f.read(1010, 1012);
		expect(mid.map((r) => r.timestamp)).toEqual([1010, 1011, 1012]);
		expect([...mid[1].payload]).toEqual([...payload(11, 21)]);
		f.close();
		const again = RecordFile.open(path);
		expect(again.recovery).toEqual({ records: 50, truncatedBytes: 0, reindexed: 0, skipped: 0 });
		expect(again.read(1049).length).toBe(1);
		again.close();
	});

	it('thins by the index to the first record of each step bucket, as filtering all would (property)', () => {
		let n = 0;
		fc.assert(
			fc.property(
				// Data times mostly rising, sometimes repeated or late (a slow upstream).
				fc.array(fc.integer({ min: -3, max: 4 }), { maxLength: 60 }),
				fc.integer({ min: 2, max: 12 }),
				fc.integer({ min: 0, max: 40 }),
				fc.integer({ min: 0, max: 120 }),
				(deltas, step, a, b) => {
					const f = RecordFile.open(join(dir, `thin${n++}.rec`));
					let t = 5000;
					deltas.forEach((d, i) => {
						t = Math.max(4990, t + d);
						f.append(RecordKind.StreamAny, t, i, payload(i, 5 + (i % 9)));
					});
					const [from, to] = [5000 + a, 5000 + a + b];
					let bucket = Number.NaN;
					const want = f.read(from, to).filter((r) => {
						if (Math.floor(r.timestamp / step) === bucket) return false;
						bucket = Math.floor(r.timestamp / step);
						return true;
					});
					const got = f.read(from, to, step);
					expect(got.map((r) => [r.timestamp, r.receivedAt])).toEqual(
						want.map((r) => [r.timestamp, r.receivedAt])
					);
					got.forEach((r, i) => expect([...r.payload]).toEqual([...want[i].payload]));
					f.close();
				}
			),
			{ numRuns: 60 }
		);
	});

	it('rebuilds a lost index from the data file', () => {
		const path = join(dir, 'b.rec');
		const f = RecordFile.open(path);
		for (let i = 0; i < 10; i++) f.append(RecordKind.StreamAny, i, 0, payload(i, 7));
		f.close();
		truncateSync(indexPathOf(path), 3 * 16 + 5);
		const g = RecordFile.open(path);
		expect(g.recovery.records).toBe(10);
		expect(g.recovery.reindexed).toBe(7);
		expect(statSync(indexPathOf(path)).size).toBe(10 * 16);
		expect(g.read(4, 6).map((r) => r.timestamp)).toEqual([4, 5, 6]);
		g.close();
	});

	it('keeps every complete record whatever byte the data file is cut at, then appends', () => {
		fc.assert(
			fc.property(
				fc.array(fc.integer({ min: 0, max: 300 }), { minLength: 1, maxLength: 12 }),
				fc.nat(),
				fc.boolean(),
				(sizes, cutSeed, garbage) => {
					const path = join(dir, `p${Math.random().toString(36).slice(2)}.rec`);
					const f = RecordFile.open(path);
					const ends: number[] = [];
					let end = 0;
					sizes.forEach((s, i) => {
						f.append(RecordKind.SnapshotGzipJson, 100 + i, 1, payload(i, s));
						end += RECORD_HEADER_BYTES + s;
						ends.push(end);
					});
					f.close();
					const cut = cutSeed % (end + 1);
					truncateSync(path, cut);
					if (garbage) appendFileSync(path, Buffer.from([0xa7, 1, 0, 0, 9, 9]));
					const intact = ends.filter((e) => e <= cut).length;
					const g = RecordFile.open(path);
					expect(g.records).toBe(intact);
					const read = g.read();
					expect(read.map((r) => r.timestamp)).toEqual(
						sizes.slice(0, intact).map((_, i) => 100 + i)
					);
					read.forEach((r, i) => expect([...r.payload]).toEqual([...payload(i, sizes[i])]));
					g.append(RecordKind.SnapshotGzipJson, 999, 1, payload(99, 3));
					g.close();
					const h = RecordFile.open(path);
					expect(h.recovery.truncatedBytes).toBe(0);
					expect(
						h
							.read()
							.map((r) => r.timestamp)
							.at(-1)
					).toBe(999);
					expect(h.records).toBe(intact + 1);
					h.close();
				}
			),
			{ numRuns: 60 }
		);
	});

	it('treats a flipped payload byte as the start of a torn tail', () => {
		const path = join(dir, 'c.rec');
		const f = RecordFile.open(path);
		for (let i = 0; i < 5; i++) f.append(RecordKind.StreamAny, i, 0, payload(i, 20));
		f.close();
		const bytes = readFileSync(path);
		// Corrupt the last record's payload: only that record goes.
		bytes[bytes.length - 3] ^= 0xff;
		truncateSync(path, 0);
		appendFileSync(path, bytes);
		truncateSync(indexPathOf(path), 0);
		const g = RecordFile.open(path);
		expect(g.records).toBe(4);
		expect(g.recovery.truncatedBytes).toBe(RECORD_HEADER_BYTES + 20);
		g.close();
	});

	it('one flipped byte hides only its own record: reads and recovery go on at the next (property)', async () => {
		let n = 0;
		await fc.assert(
			fc.asyncProperty(
				fc.array(fc.integer({ min: 0, max: 300 }), { minLength: 1, maxLength: 12 }),
				fc.nat(),
				fc.integer({ min: 1, max: 255 }),
				fc.boolean(),
				fc.constantFrom(1, 3),
				async (sizes, at, mask, dropIndex, step) => {
					const path = join(dir, `flip${n++}.rec`);
					const f = RecordFile.open(path);
					const ends: number[] = [];
					let end = 0;
					sizes.forEach((size, i) => {
						f.append(RecordKind.SnapshotGzipJson, 100 + i, 1, payload(i, size));
						ends.push((end += RECORD_HEADER_BYTES + size));
					});
					f.close();
					const bytes = readFileSync(path);
					const flipped = at % bytes.length;
					bytes[flipped] ^= mask;
					writeFileSync(path, bytes);
					if (dropIndex) truncateSync(indexPathOf(path), 0);
					const hit = ends.findIndex((e) => flipped < e);
					const kept = sizes.map((_, i) => i).filter((i) => i !== hit);

					const g = RecordFile.open(path);
					// Every other record is read, whole, in order (the index or a rescan finds them).
					const read = g.read();
					expect(read.map((r) => r.timestamp)).toEqual(kept.map((i) => 100 + i));
					read.forEach((r) => {
						const i = r.timestamp - 100;
						expect([...r.payload]).toEqual([...payload(i, sizes[i])]);
					});
					// A streamed read serves the same, and announces exactly what it serves.
					const span = g.span(undefined, undefined, step);
					const served: number[] = [];
					for await (const chunk of span.chunks(64)) served.push(...chunk.map((r) => r.timestamp));
					expect(span.plan.count).toBe(served.length);
					if (step === 1) expect(served).toEqual(kept.map((i) => 100 + i));
					g.close();
				}
			),
			{ numRuns: 150 }
		);
	});

	it('a streamed read meeting a corrupt record first passes it over, and later spans leave it out', async () => {
		const path = join(dir, 'd.rec');
		const f = RecordFile.open(path);
		for (let i = 0; i < 6; i++) f.append(RecordKind.StreamAny, i, 0, payload(i, 40));
		f.close();
		const bytes = readFileSync(path);
		bytes[2 * (RECORD_HEADER_BYTES + 40) + RECORD_HEADER_BYTES + 5] ^= 0x10; // record 2's payload
		writeFileSync(path, bytes);
		const g = RecordFile.open(path);
		const first = g.span();
		expect(first.plan.count).toBe(6);
		const served: number[] = [];
		for await (const chunk of first.chunks(100)) served.push(...chunk.map((r) => r.timestamp));
		expect(served).toEqual([0, 1, 3, 4, 5]);
		const again = g.span();
		expect(again.plan.count).toBe(5);
		g.close();
	});
});

describe('RecordFile edges', () => {
	it('grows its index past the first allocation and still finds every record by time', () => {
		const path = join(dir, 'many.rec');
		const f = RecordFile.open(path);
		const n = 2600;
		f.appendAll(
			Array.from({ length: n }, (_, i) => ({
				kind: RecordKind.StreamAny,
				timestamp: i,
				receivedAt: i * 10,
				payload: payload(i, 1 + (i % 4))
			}))
		);
		expect(f.records).toBe(n);
		expect(f.bytes).toBe(statSync(path).size + statSync(indexPathOf(path)).size);
		for (const t of [0, 1023, 1024, 2047, 2048, 2599]) {
			const [r] = f.read(t, t);
			expect([r.timestamp, r.receivedAt, [...r.payload]]).toEqual([
				t,
				t * 10,
				[...payload(t, 1 + (t % 4))]
			]);
		}
		expect(f.read(1020, 1030, 5).map((r) => r.timestamp)).toEqual([1020, 1025, 1030]);
		f.close();
		const g = RecordFile.open(path);
		expect(g.recovery).toEqual({ records: n, truncatedBytes: 0, reindexed: 0, skipped: 0 });
		expect(g.read(2048, 2049).map((r) => r.timestamp)).toEqual([2048, 2049]);
		g.close();
	});

	it('reads back kinds, empty payloads and views into larger buffers exactly', () => {
		const path = join(dir, 'kinds.rec');
		const f = RecordFile.open(path);
		const big = payload(7, 20);
		f.append(RecordKind.SnapshotGzipJson, 1, 11, big.subarray(3, 8));
		f.append(RecordKind.StreamAny, 2, 12, new Uint8Array(0));
		f.append(RecordKind.StreamAny, 3, 13, new Uint8Array(new ArrayBuffer(0)));
		f.close();
		const g = RecordFile.open(path);
		expect(g.recovery).toEqual({ records: 3, truncatedBytes: 0, reindexed: 0, skipped: 0 });
		expect(g.read().map((r) => [r.kind, r.timestamp, r.receivedAt, [...r.payload]])).toEqual([
			[RecordKind.SnapshotGzipJson, 1, 11, [...big.subarray(3, 8)]],
			[RecordKind.StreamAny, 2, 12, []],
			[RecordKind.StreamAny, 3, 13, []]
		]);
		g.close();
	});

	it('keeps records of one second apart at step 1 and keys lookups on the running maximum', () => {
		const f = RecordFile.open(join(dir, 'dup.rec'));
		for (const t of [10, 10, 12, 11, 13]) f.append(RecordKind.StreamAny, t, 0, payload(t, 2));
		expect(f.read().map((r) => r.timestamp)).toEqual([10, 10, 12, 11, 13]);
		expect(f.read(-Infinity, Infinity, 1).length).toBe(5);
		expect(f.read(11, 12).map((r) => r.timestamp)).toEqual([12, 11]);
		expect(f.read(12, 13).map((r) => r.timestamp)).toEqual([12, 13]);
		expect(f.read(14, 20)).toEqual([]);
		// The late 11 lies past the last record the index puts at or before 11: not read.
		expect(f.read(-Infinity, 11).map((r) => r.timestamp)).toEqual([10, 10]);
		expect(f.firstTimestamp).toBe(10);
		expect(f.lastTimestamp).toBe(13);
		f.close();
		const late = RecordFile.open(join(dir, 'late.rec'));
		expect([late.firstTimestamp, late.lastTimestamp]).toEqual([undefined, undefined]);
		late.append(RecordKind.StreamAny, 20, 0, payload(0, 1));
		late.append(RecordKind.StreamAny, 15, 0, payload(1, 1));
		expect([late.firstTimestamp, late.lastTimestamp]).toEqual([20, 20]);
		late.close();
	});

	it('refuses a payload over the bound and an append after close; closes twice quietly', () => {
		const f = RecordFile.open(join(dir, 'max.rec'));
		const before = Date.now();
		f.append(RecordKind.StreamAny, 1, 0, new Uint8Array(MAX_RECORD_PAYLOAD));
		expect(f.lastWriteAt).toBeGreaterThanOrEqual(before);
		expect(() =>
			f.append(RecordKind.StreamAny, 2, 0, new Uint8Array(MAX_RECORD_PAYLOAD + 1))
		).toThrow(RangeError);
		expect(f.records).toBe(1);
		expect(f.lastReadAt).toBe(0);
		expect(f.read()[0].payload.length).toBe(MAX_RECORD_PAYLOAD);
		expect(f.lastReadAt).toBeGreaterThanOrEqual(before);
		f.close();
		f.close();
		expect(() => f.append(RecordKind.StreamAny, 3, 0, payload(0, 1))).toThrow(/closed/);
	});

	it('creates private folders and files, and leaks no descriptor when the index cannot open', () => {
		const path = join(dir, 'x', 'y', 'p.rec');
		const f = RecordFile.open(path);
		f.append(RecordKind.StreamAny, 1, 0, payload(0, 1));
		f.close();
		expect(statSync(join(dir, 'x', 'y')).mode & 0o777).toBe(0o700);
		expect(statSync(path).mode & 0o777).toBe(0o600);
		expect(statSync(indexPathOf(path)).mode & 0o777).toBe(0o600);
		const blocked = join(dir, 'blocked.rec');
		mkdirSync(indexPathOf(blocked));
		const fds = () => readdirSync('/proc/self/fd').length;
		const n = fds();
		expect(() => RecordFile.open(blocked)).toThrow();
		expect(fds()).toBe(n);
	});

	it('trusts index entries only while their offsets rise inside the data', () => {
		const path = join(dir, 'idx.rec');
		const f = RecordFile.open(path);
		for (let i = 0; i < 6; i++) f.append(RecordKind.StreamAny, i, 0, payload(i, 9));
		f.close();
		const idx = readFileSync(indexPathOf(path));
		idx.writeDoubleLE(0, 3 * 16 + 8); // entry 3 points back at record 0
		writeFileSync(indexPathOf(path), idx);
		const g = RecordFile.open(path);
		expect(g.recovery).toEqual({ records: 6, truncatedBytes: 0, reindexed: 0, skipped: 0 });
		expect(g.read().map((r) => r.timestamp)).toEqual([0, 1, 2, 3, 4, 5]);
		expect(g.read(3, 3).map((r) => r.timestamp)).toEqual([3]);
		g.close();
		const rebuilt = readFileSync(indexPathOf(path));
		expect(rebuilt.length).toBe(6 * 16);
		expect(rebuilt.readDoubleLE(3 * 16 + 8)).toBe(3 * (RECORD_HEADER_BYTES + 9));
		expect(rebuilt.readDoubleLE(5 * 16)).toBe(5);
	});

	it('counts no re-created entries when the data lost records the index still lists', () => {
		const path = join(dir, 'short.rec');
		const f = RecordFile.open(path);
		for (let i = 0; i < 5; i++) f.append(RecordKind.StreamAny, i, 0, payload(i, 9));
		f.close();
		truncateSync(path, 2 * (RECORD_HEADER_BYTES + 9) + 4);
		const g = RecordFile.open(path);
		expect(g.recovery).toEqual({ records: 2, truncatedBytes: 4, reindexed: 0, skipped: 0 });
		expect(statSync(path).size).toBe(2 * (RECORD_HEADER_BYTES + 9));
		expect(statSync(indexPathOf(path)).size).toBe(2 * 16);
		g.close();
	});

	it('recovery passes over one corrupt record inside the data and counts it', () => {
		const path = join(dir, 'skip.rec');
		const f = RecordFile.open(path);
		for (let i = 0; i < 5; i++) f.append(RecordKind.StreamAny, i, 0, payload(i, 9));
		f.close();
		const bytes = readFileSync(path);
		bytes[1 * (RECORD_HEADER_BYTES + 9) + RECORD_HEADER_BYTES + 2] ^= 4;
		writeFileSync(path, bytes);
		truncateSync(indexPathOf(path), 0);
		const g = RecordFile.open(path);
		expect(g.recovery).toEqual({ records: 4, truncatedBytes: 0, reindexed: 4, skipped: 1 });
		expect(g.read().map((r) => r.timestamp)).toEqual([0, 2, 3, 4]);
		g.close();
	});

	it('answers no arrival stamp once closed or when the header is gone', () => {
		const path = join(dir, 'arr.rec');
		const f = RecordFile.open(path);
		for (let i = 0; i < 3; i++) f.append(RecordKind.StreamAny, i, 100 + i, payload(i, 9));
		const span = f.span();
		expect([0, 1, 2].map((i) => span.arrivalAt(i))).toEqual([100, 101, 102]);
		truncateSync(path, 2 * (RECORD_HEADER_BYTES + 9) + 10);
		expect(span.arrivalAt(2)).toBeUndefined();
		const bytes = readFileSync(path);
		bytes[RECORD_HEADER_BYTES + 9] = 0;
		writeFileSync(path, bytes);
		expect(span.arrivalAt(1)).toBeUndefined();
		f.close();
		expect(span.arrivalAt(0)).toBeUndefined();
	});
});
