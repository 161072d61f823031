/**
 * The record file's reads that do not start at its first byte, its index entries that repeat an
 * offset, and check(): the edges a mutation run found untested (a read past its range, a resync
 * that jumps too far, a range read that marks the record after it bad, a torn index entry read
 * as a record of its own), and the check that makes a span's count what its read returns.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
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
	dir = mkdtempSync(join(tmpdir(), 'gexdeck-recreads-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const SIZE = 30;
const RECORD = RECORD_HEADER_BYTES + SIZE;

function payload(i: number): Uint8Array {
	return Uint8Array.from({ length: SIZE }, (_, j) => (i * 17 + j) & 0xff);
}

/** A closed file of records with these data times, SIZE payload bytes each. */
function written(name: string, times: readonly number[]): string {
	const path = join(dir, name);
	const f = RecordFile.open(path);
	times.forEach((t, i) => f.append(RecordKind.StreamAny, t, i, payload(i)));
	f.close();
	return path;
}

/** Flips a payload byte of the record at position `i` on disk (a disk fault after writing). */
function flip(path: string, i: number): void {
	const bytes = readFileSync(path);
	bytes[i * RECORD + RECORD_HEADER_BYTES + 3] ^= 0x20;
	writeFileSync(path, bytes);
}

const times = (f: RecordFile, ...range: Parameters<RecordFile['read']>) =>
	f.read(...range).map((r) => r.timestamp);

async function served(f: RecordFile): Promise<number[]> {
	const out: number[] = [];
	for await (const chunk of f.span().chunks()) out.push(...chunk.map((r) => r.timestamp));
	return out;
}

describe('RecordFile reads from inside the file', () => {
	it('reads only its byte range when it starts past the first record (no late record after it)', () => {
		// 25 arrives late, after 40: the index puts it past the last entry at or before 30.
		const f = RecordFile.open(written('late.rec', [0, 10, 20, 30, 40, 25]));
		expect(times(f, 10, 30)).toEqual([10, 20, 30]);
		expect(times(f, 20, 30)).toEqual([20, 30]);
		f.close();
	});

	it('goes on right after a corrupt record when the read starts past the first record', () => {
		const path = written('flip.rec', [0, 1, 2, 3, 4, 5]);
		flip(path, 2);
		const f = RecordFile.open(path);
		expect(times(f, 1, 5)).toEqual([1, 3, 4, 5]);
		expect(times(f, 1, 4)).toEqual([1, 3, 4]);
		f.close();
	});

	it('leaves out a late record inside the byte range whose own time is before `from`', () => {
		// 5 arrives after 20: its index key is 20, so it lies inside the range of a read from 8.
		const f = RecordFile.open(written('early.rec', [0, 10, 20, 5, 30]));
		expect(times(f, 8, 30)).toEqual([10, 20, 30]);
		expect(times(f, 8, 30, 5)).toEqual([10, 20, 30]);
		f.close();
	});

	it('answers nothing, without reading, when `from` is after `to`', () => {
		const f = RecordFile.open(written('empty.rec', [0, 10, 20, 30, 40]));
		expect(times(f, 30, 10)).toEqual([]);
		expect(times(f, 30, 29)).toEqual([]);
		f.close();
	});

	it('reads past a corrupt stretch recovery never indexed, and marks no good record bad', async () => {
		const path = written('unindexed.rec', [0, 1, 2, 3, 4]);
		flip(path, 1);
		writeFileSync(indexPathOf(path), Buffer.alloc(0)); // lost: recovery rebuilds it
		const f = RecordFile.open(path);
		expect(f.recovery.skipped).toBe(1);
		expect(times(f)).toEqual([0, 2, 3, 4]);
		expect(f.span().plan.count).toBe(4);
		expect(await served(f)).toEqual([0, 2, 3, 4]);
		f.close();
	});

	it('ends a read at a last record that went bad under it, and leaves it out afterwards', async () => {
		const path = join(dir, 'lastbad.rec');
		const f = RecordFile.open(path);
		for (let i = 0; i < 3; i++) f.append(RecordKind.StreamAny, i, i, payload(i));
		flip(path, 2);
		expect(times(f)).toEqual([0, 1]);
		expect(f.span().plan.count).toBe(2);
		expect(times(f, 1, 5)).toEqual([1]);
		f.close();
	});

	it('a range read leaves the record after its range good for later spans', async () => {
		const f = RecordFile.open(written('range.rec', [0, 1, 2, 3, 4, 5]));
		expect(times(f, 0, 2)).toEqual([0, 1, 2]);
		expect(times(f, 3, 3)).toEqual([3]);
		expect(f.span().plan.count).toBe(6);
		expect(await served(f)).toEqual([0, 1, 2, 3, 4, 5]);
		f.close();
	});

	it('trusts no index entry that repeats the previous offset (a torn index write)', () => {
		const path = written('dup.rec', [0, 10, 20, 30, 40, 50]);
		const idx = readFileSync(indexPathOf(path));
		idx.writeDoubleLE(2 * RECORD, 3 * 16 + 8); // entry 3 (time 30) points at record 2
		writeFileSync(indexPathOf(path), idx);
		const f = RecordFile.open(path);
		expect(f.recovery).toEqual({ records: 6, truncatedBytes: 0, reindexed: 0, skipped: 0 });
		// A thinned read takes each bucket's record by its entry: 30's is record 3, not 2 again.
		expect(times(f, -Infinity, Infinity, 5)).toEqual([0, 10, 20, 30, 40, 50]);
		f.close();
		expect(readFileSync(indexPathOf(path)).readDoubleLE(3 * 16 + 8)).toBe(3 * RECORD);
	});
});

describe('RecordFile appends', () => {
	it('names the size and the bound of a payload over it', () => {
		const f = RecordFile.open(join(dir, 'big.rec'));
		const big = new Uint8Array(MAX_RECORD_PAYLOAD + 1);
		expect(() => f.append(RecordKind.StreamAny, 0, 0, big)).toThrow(
			`record of ${MAX_RECORD_PAYLOAD + 1} bytes exceeds ${MAX_RECORD_PAYLOAD}`
		);
		f.close();
	});
});

describe('RecordFile.check', () => {
	it('finds a corrupt record open() trusted, so the next span neither counts nor reads it', async () => {
		const path = written('check.rec', [0, 1, 2, 3, 4, 5]);
		flip(path, 2);
		const f = RecordFile.open(path);
		expect(f.span().plan.count).toBe(6);
		await f.check();
		expect(f.span().plan.count).toBe(5);
		expect(await served(f)).toEqual([0, 1, 3, 4, 5]);
		f.close();
	});

	it('reads nothing a second time, nor the records this process appended', async () => {
		const path = join(dir, 'fresh.rec');
		const f = RecordFile.open(path);
		for (let i = 0; i < 4; i++) f.append(RecordKind.StreamAny, i, i, payload(i));
		// Flipped under the writer: a record this process wrote is taken as written.
		flip(path, 1);
		await f.check();
		expect(f.span().plan.count).toBe(4);
		f.close();
		const g = RecordFile.open(path);
		await g.check();
		expect(g.span().plan.count).toBe(3);
		flip(path, 1); // repaired on disk: checked once already, its verdict stays
		flip(path, 0);
		await g.check();
		expect(g.span().plan.count).toBe(3);
		g.close();
	});

	it('shares one read between concurrent checks', async () => {
		const path = written('twice.rec', [0, 1, 2]);
		const f = RecordFile.open(path);
		const a = f.check();
		expect(f.check()).toBe(a);
		await a;
		f.close();
	});

	it('resolves when the file is gone, and reads it when it is back', async () => {
		const path = written('gone.rec', [0, 1, 2, 3]);
		flip(path, 1);
		const bytes = readFileSync(path);
		const f = RecordFile.open(path);
		rmSync(path);
		await expect(f.check()).resolves.toBeUndefined();
		expect(f.span().plan.count).toBe(4);
		writeFileSync(path, bytes);
		await f.check();
		expect(f.span().plan.count).toBe(3);
		f.close();
	});
});
