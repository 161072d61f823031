import { describe, expect, it } from 'vitest';
import { columnarGex } from '../../wire/columnar';
import { spxChain } from '../../wire/arbitraries.test-support';
import { ChunkBuilder, chunkRow, type RingChunk } from './ringChunk';
import { chainChunk } from './ringChunk.test-support';
import { mergeChunks } from './ringMerge';
import type { StreamUpdate } from '../transport/updates';

const chain = spxChain(20);
const T0 = 1_767_277_800;

const gexChunk = (timestamps: number[], spot: number): RingChunk =>
	chainChunk(chain, timestamps, () => spot);

function orderflowChunk(ts: number, body: Record<string, number>): RingChunk {
	const b = new ChunkBuilder('SPX_orderflow_orderflow', 'orderflow', ts);
	b.append({
		kind: 'orderflow',
		group: 'SPX_orderflow_orderflow',
		ticker: 'SPX',
		timestamp: ts,
		value: { timestamp: ts, ...body }
	} as unknown as StreamUpdate);
	return b.seal();
}

describe('mergeChunks', () => {
	it('interleaves the rows of both by timestamp, the incoming row winning a tie', () => {
		const stored = gexChunk([T0, T0 + 1, T0 + 2, T0 + 5], 7000);
		const incoming = gexChunk([T0 + 2, T0 + 3, T0 + 10], 7100);
		const m = mergeChunks(stored, incoming);
		expect(Array.from(m.timestamps)).toEqual([0, 1, 2, 3, 5, 10].map((d) => T0 + d));
		expect(m.count).toBe(6);
		expect(m.end).toBe(T0 + 10);
		const spots = Array.from({ length: m.count }, (_, i) => chunkRow(m, i).scalars.spot);
		expect(spots).toEqual([7000, 7000, 7100, 7100, 7000, 7100]);
		// Ladders stay attached to their own rows (T0, T0 + 5, T0 + 10 are multiples of 5).
		const withLadder = Array.from({ length: m.count }, (_, i) => chunkRow(m, i))
			.filter((r) => r.ladder)
			.map((r) => r.timestamp - T0);
		expect(withLadder).toEqual([0, 5, 10]);
		expect(chunkRow(m, 4).ladder?.[0]).toBe(chain.strikes[0][0]);
		expect(chunkRow(m, 4).ladder?.length).toBe(60);
	});

	it('keeps the row with a ladder when only one writer kept it', () => {
		// Same timestamp T0 + 5: stored has the ladder, incoming (a builder with a 7 s cadence)
		// does not.
		const stored = gexChunk([T0 + 5], 7000);
		const b = new ChunkBuilder('SPX_classic_gex_full', 'gex', T0, { ladderEverySeconds: 7 });
		b.append({
			kind: 'gex',
			group: 'SPX_classic_gex_full',
			ticker: 'SPX',
			timestamp: T0 + 5,
			value: columnarGex({ ...chain, timestamp: T0 + 5, spot: 7100 })
		});
		const m = mergeChunks(stored, b.seal());
		expect(m.count).toBe(1);
		expect(chunkRow(m, 0).scalars.spot).toBe(7000);
		expect(chunkRow(m, 0).ladder?.length).toBe(60);
	});

	it('returns the incoming chunk itself when it already holds every stored row', () => {
		const stored = gexChunk([T0, T0 + 1], 7000);
		const incoming = gexChunk([T0, T0 + 1, T0 + 2], 7000);
		expect(mergeChunks(stored, incoming)).toBe(incoming);
	});

	it('takes the union of scalar columns (NaN where a row lacks one)', () => {
		const m = mergeChunks(
			orderflowChunk(T0, { a: 1, b: 2 }),
			orderflowChunk(T0 + 1, { b: 3, c: 4 })
		);
		expect(m.scalarNames).toEqual(['b', 'c', 'a']);
		expect(chunkRow(m, 0).scalars).toEqual({ a: 1, b: 2, c: Number.NaN });
		expect(chunkRow(m, 1).scalars).toEqual({ a: Number.NaN, b: 3, c: 4 });
	});

	it('refuses to merge different spans', () => {
		expect(() => mergeChunks(gexChunk([T0], 1), gexChunk([T0 + 60], 1))).toThrow(/different spans/);
	});
});
