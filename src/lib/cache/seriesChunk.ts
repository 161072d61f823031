/**
 * The storage form of a chunk of a day's series: one ArrayBuffer per chunk (about 36 KB for ten
 * minutes at 1 s), instead of thousands of small objects IndexedDB would clone one by one.
 *
 * Layout (little-endian header; the arrays in the platform's byte order, which is what
 * IndexedDB on this machine hands back):
 *   0  u32 magic 'OFS1'   4  u32 point count n   8  u32 series count s   12  u32 0
 *   16 f64[s * n] values, series after series   16 + 8sn  u32[n] unix seconds, increasing
 */
import type { SeriesChunk } from '$lib/stream/series/orderflowSeries';

const MAGIC = 0x3153464f; // 'OFS1' read little-endian
const HEADER = 16;
const MAX_SERIES = 64;

export class ChunkDecodeError extends Error {}

export function encodeChunk(chunk: SeriesChunk): ArrayBuffer {
	const n = chunk.times.length;
	const s = chunk.values.length;
	if (s === 0 || s > MAX_SERIES) throw new RangeError(`a chunk holds 1-${MAX_SERIES} series`);
	for (const v of chunk.values) {
		if (v.length !== n) throw new RangeError(`series length ${v.length} != ${n} timestamps`);
	}
	for (let i = 1; i < n; i++) {
		if (!(chunk.times[i] > chunk.times[i - 1])) {
			throw new RangeError(`timestamps must increase (index ${i})`);
		}
	}
	const buf = new ArrayBuffer(HEADER + 8 * s * n + 4 * n);
	const head = new DataView(buf, 0, HEADER);
	head.setUint32(0, MAGIC, true);
	head.setUint32(4, n, true);
	head.setUint32(8, s, true);
	const values = new Float64Array(buf, HEADER, s * n);
	chunk.values.forEach((v, k) => values.set(v, k * n));
	new Uint32Array(buf, HEADER + 8 * s * n, n).set(chunk.times);
	return buf;
}

export function decodeChunk(buf: ArrayBuffer): SeriesChunk {
	if (!(buf instanceof ArrayBuffer) || buf.byteLength < HEADER) {
		throw new ChunkDecodeError('not a series chunk (too short)');
	}
	const head = new DataView(buf, 0, HEADER);
	if (head.getUint32(0, true) !== MAGIC) throw new ChunkDecodeError('not a series chunk (magic)');
	const n = head.getUint32(4, true);
	const s = head.getUint32(8, true);
	if (s === 0 || s > MAX_SERIES) throw new ChunkDecodeError(`bad series count ${s}`);
	if (buf.byteLength !== HEADER + 8 * s * n + 4 * n) {
		throw new ChunkDecodeError(`chunk of ${buf.byteLength} bytes cannot hold ${n} x ${s} points`);
	}
	const times = new Uint32Array(buf.slice(HEADER + 8 * s * n));
	for (let i = 1; i < n; i++) {
		if (!(times[i] > times[i - 1])) throw new ChunkDecodeError(`timestamps out of order at ${i}`);
	}
	const all = new Float64Array(buf.slice(HEADER, HEADER + 8 * s * n));
	const values = Array.from({ length: s }, (_, k) => all.subarray(k * n, (k + 1) * n));
	return { times, values };
}
