/**
 * A streamed read (RecordFile.span, recordSpan.ts) against the synchronous read() it stands for:
 * the same records whatever the chunk size, range, step and order of data times; what the plan
 * announces; how records are grouped into chunks; and a file that shrank or went away.
 */
import fc from 'fast-check';
import { mkdtempSync, readdirSync, rmSync, truncateSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RECORD_HEADER_BYTES, RecordFile, RecordKind, type RecordSpan } from './recordFile';

let dir: string;
beforeEach(() => {
	dir = mkdtempSync(join(tmpdir(), 'gexdeck-recspan-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function payload(i: number, size: number): Uint8Array {
	const p = new Uint8Array(size);
	for (let j = 0; j < size; j++) p[j] = (i * 31 + j) & 0xff;
	return p;
}

/** Timestamps per chunk, checking that no chunk is empty. */
async function partition(span: RecordSpan, chunkBytes?: number): Promise<number[][]> {
	const out: number[][] = [];
	for await (const chunk of span.chunks(chunkBytes)) {
		expect(chunk.length).toBeGreaterThan(0);
		out.push(chunk.map((r) => r.timestamp));
	}
	return out;
}

function fileOf(name: string, times: number[], size: (i: number) => number): RecordFile {
	const f = RecordFile.open(join(dir, name));
	times.forEach((t, i) => f.append(RecordKind.StreamAny, t, 1000 + i, payload(i, size(i))));
	return f;
}

describe('RecordSpan', () => {
	it('serves what read() returns and announces it, whatever the chunks, range, step and order (property)', async () => {
		let n = 0;
		await fc.assert(
			fc.asyncProperty(
				// Data times mostly rising, sometimes repeated or late; some fractional.
				fc.array(fc.tuple(fc.integer({ min: -3, max: 4 }), fc.integer({ min: 0, max: 300 })), {
					maxLength: 30
				}),
				fc.constantFrom(1, 2, 3),
				fc.integer({ min: -2, max: 30 }),
				fc.integer({ min: 0, max: 60 }),
				fc.constantFrom(1, 29, 64, 200, 100_000),
				fc.boolean(),
				async (records, step, a, b, chunkBytes, half) => {
					let t = 100;
					const times = records.map(([d]) => (t = Math.max(95, t + d) + (half ? 0.5 : 0)));
					const f = fileOf(`s${n++}.rec`, times, (i) => records[i][1]);
					const [from, to] = [100 + a, 100 + a + b];
					const want = f.read(from, to, step);
					const span = f.span(from, to, step);
					const served = (await partition(span, chunkBytes)).flat();
					expect(served).toEqual(want.map((r) => r.timestamp));
					expect(span.plan.count).toBe(want.length);
					expect(span.timeAt(span.plan.first)).toBe(want[0]?.timestamp);
					expect(span.timeAt(span.plan.last)).toBe(want.at(-1)?.timestamp);
					expect(span.arrivalAt(span.plan.first)).toBe(want[0]?.receivedAt);
					expect(span.arrivalAt(span.plan.last)).toBe(want.at(-1)?.receivedAt);
					// Whole payloads, not views cut by a chunk's end.
					const all: Uint8Array[] = [];
					for await (const chunk of f.span(from, to, step).chunks(chunkBytes))
						all.push(...chunk.map((r) => r.payload));
					all.forEach((p, i) => expect([...p]).toEqual([...want[i].payload]));
					f.close();
				}
			),
			{ numRuns: 60 }
		);
	});

	it('announces nothing for an empty range and answers -1 positions with undefined', async () => {
		const f = fileOf('e.rec', [10, 11, 12], () => 5);
		const span = f.span(20, 30);
		expect(span.plan).toEqual({ count: 0, first: -1, last: -1 });
		expect(span.timeAt(-1)).toBeUndefined();
		expect(span.arrivalAt(-1)).toBeUndefined();
		expect(await partition(span)).toEqual([]);
		const all = f.span();
		expect(all.plan).toEqual({ count: 3, first: 0, last: 2 });
		expect(all.timeAt(0)).toBe(10);
		expect(all.arrivalAt(0)).toBe(1000);
		expect(all.arrivalAt(2)).toBe(1002);
		f.close();
	});

	it('keeps records of the same second apart at step 1, and one per bucket at step 2', async () => {
		const f = fileOf('same.rec', [10.1, 10.5, 10.9, 11.2, 13.7], () => 3);
		const span = f.span();
		expect(span.plan).toEqual({ count: 5, first: 0, last: 4 });
		expect((await partition(span)).flat()).toEqual([10.1, 10.5, 10.9, 11.2, 13.7]);
		const thin = f.span(-Infinity, Infinity, 2);
		expect(thin.plan).toEqual({ count: 2, first: 0, last: 4 });
		expect((await partition(thin)).flat()).toEqual([10.1, 13.7]);
		f.close();
	});

	it('reads in chunks of about the chunk size, a record longer than a chunk whole', async () => {
		// Ten records of 128 bytes.
		const even = fileOf(
			'even.rec',
			[0, 1, 2, 3, 4, 5, 6, 7, 8, 9],
			() => 128 - RECORD_HEADER_BYTES
		);
		expect(await partition(even.span(), 256)).toEqual([
			[0, 1],
			[2, 3],
			[4, 5],
			[6, 7],
			[8, 9]
		]);
		expect(await partition(even.span(), 300)).toEqual([[0, 1], [2, 3], [4, 5, 6], [7, 8], [9]]);
		expect(await partition(even.span(2, 7), 100_000)).toEqual([[2, 3, 4, 5, 6, 7]]);
		expect(await partition(even.span(-Infinity, Infinity, 2), 256)).toEqual([[0, 2], [4, 6], [8]]);
		expect(await partition(even.span(-Infinity, Infinity, 2), 300)).toEqual([
			[0, 2, 4],
			[6, 8]
		]);
		even.close();
		// A record of 528 bytes between small ones, read 64 bytes at a time.
		const big = fileOf('big.rec', [0, 1, 2, 3, 4], (i) => (i === 1 ? 500 : 10));
		expect(await partition(big.span(), 64)).toEqual([[0], [1], [2], [3, 4]]);
		expect(await partition(big.span(), 100)).toEqual([[0], [1], [2, 3], [4]]);
		big.close();
	});

	it('ends a read whose file shrank after the span was taken, or stops early, holding no descriptor', async () => {
		const path = join(dir, 'shrink.rec');
		const f = fileOf('shrink.rec', [0, 1, 2, 3, 4, 5], () => 100);
		const span = f.span();
		f.close();
		truncateSync(path, 2 * (RECORD_HEADER_BYTES + 100) + 10);
		expect((await partition(span, 64)).flat()).toEqual([0, 1]);

		const fds = () => readdirSync('/proc/self/fd').length;
		const g = fileOf('early.rec', [0, 1, 2, 3, 4, 5], () => 100);
		const before = fds();
		for await (const chunk of g.span().chunks(64)) {
			expect(chunk[0].timestamp).toBe(0);
			break;
		}
		expect(fds()).toBe(before);
		g.close();
	});

	it('serves no late record from outside the range, nor a record appended after the span', async () => {
		// Data times 100, 101, 110, 105, 112: the index keys on the running maximum (…, 110, 110, 112).
		const f = fileOf('late.rec', [100, 101, 110, 105, 112], () => 40);
		for (const chunkBytes of [64, 100_000]) {
			const served = async (from: number, to: number) =>
				(await partition(f.span(from, to), chunkBytes)).flat();
			expect(await served(104, Infinity)).toEqual([110, 105, 112]);
			expect(await served(106, Infinity)).toEqual([110, 112]);
			// The record of 105 lies past the last one the index puts at or before 107.
			expect(await served(-Infinity, 107)).toEqual([100, 101]);
			expect(await served(101, 107)).toEqual([101]);
		}
		const span = f.span(101, 120);
		f.append(RecordKind.StreamAny, 113, 0, payload(9, 40));
		expect((await partition(span, 100_000)).flat()).toEqual([101, 110, 105, 112]);
		expect((await partition(span, 64)).flat()).toEqual([101, 110, 105, 112]);
		expect(f.span(101, 120).plan.count).toBe(5);
		f.close();
	});

	it('an empty span of a file since deleted is read without opening it', async () => {
		const path = join(dir, 'gone.rec');
		const f = fileOf('gone.rec', [5], () => 1);
		const span = f.span(6, 7);
		f.close();
		rmSync(path);
		expect(await partition(span)).toEqual([]);
	});
});
