import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ChunkDecodeError, decodeChunk, encodeChunk } from './seriesChunk';

const chunkArb = fc.integer({ min: 1, max: 9 }).chain((s) =>
	fc
		.uniqueArray(fc.integer({ min: 1, max: 0xffffffff }), { maxLength: 700 })
		.chain((ts) =>
			fc.record({
				times: fc.constant(Uint32Array.from(ts.sort((a, b) => a - b))),
				values: fc.array(fc.array(fc.double(), { minLength: ts.length, maxLength: ts.length }), {
					minLength: s,
					maxLength: s
				})
			})
		)
		.map(({ times, values }) => ({ times, values: values.map((v) => Float64Array.from(v)) }))
);

describe('series chunk codec', () => {
	it('round-trips every point in order, bit for bit (NaN, -0 and infinities included)', () => {
		fc.assert(
			fc.property(chunkArb, (chunk) => {
				const back = decodeChunk(encodeChunk(chunk));
				expect([...back.times]).toEqual([...chunk.times]);
				expect(back.values).toHaveLength(chunk.values.length);
				back.values.forEach((v, k) => {
					expect(v.length).toBe(chunk.times.length);
					for (let i = 0; i < v.length; i++) expect(Object.is(v[i], chunk.values[k][i])).toBe(true);
				});
			})
		);
	});

	it('stores 8 bytes per value and 4 per timestamp', () => {
		const n = 600;
		const buf = encodeChunk({
			times: Uint32Array.from({ length: n }, (_, i) => 1_800_000_000 + i),
			values: Array.from({ length: 7 }, () => new Float64Array(n))
		});
		expect(buf.byteLength).toBe(16 + n * (7 * 8 + 4));
	});

	it('refuses what it cannot write faithfully', () => {
		const values = [Float64Array.from([1, 2])];
		expect(() => encodeChunk({ times: Uint32Array.from([5, 5]), values })).toThrow(/increase/);
		expect(() => encodeChunk({ times: Uint32Array.from([5]), values })).toThrow(/length/);
		expect(() => encodeChunk({ times: new Uint32Array(0), values: [] })).toThrow(/series/);
	});

	it('rejects a truncated, foreign or reordered buffer instead of reading garbage', () => {
		const buf = encodeChunk({
			times: Uint32Array.from([10, 20, 30]),
			values: [Float64Array.from([1, 2, 3])]
		});
		expect(() => decodeChunk(buf.slice(0, buf.byteLength - 4))).toThrow(ChunkDecodeError);
		expect(() => decodeChunk(new ArrayBuffer(8))).toThrow(ChunkDecodeError);
		const foreign = buf.slice(0);
		new DataView(foreign).setUint32(0, 0xdeadbeef, true);
		expect(() => decodeChunk(foreign)).toThrow(/magic/);
		const swapped = buf.slice(0);
		const times = new Uint32Array(swapped, 16 + 8 * 3, 3);
		[times[0], times[1]] = [times[1], times[0]];
		expect(() => decodeChunk(swapped)).toThrow(/order/);
	});
});
