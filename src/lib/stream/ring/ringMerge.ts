/**
 * Merging two recordings of the same ring span. Several writers record the same group: two tabs
 * (one decode worker each), a reload (a new worker starts a new chunk mid-span), the page's REST
 * poller when the stream goes silent. Each writes whole chunks, so a plain put would erase the
 * other's rows; the recorder merges what is stored with what it writes instead.
 */
import type { RingChunk } from './ringChunk';

/**
 * Rows of both chunks by timestamp. On a timestamp both hold, the row with a ladder wins, then
 * `incoming`'s. Scalar columns are the union of both (NaN where a row lacks one); ladders of a
 * chunk whose columns differ from `incoming`'s are dropped (never mixed).
 */
export function mergeChunks(stored: RingChunk, incoming: RingChunk): RingChunk {
	if (stored.group !== incoming.group || stored.start !== incoming.start) {
		throw new Error(
			`mergeChunks: ${stored.group}@${stored.start} and ${incoming.group}@${incoming.start} are different spans`
		);
	}
	if (stored.kind !== incoming.kind) return incoming;
	if (containsRows(incoming, stored)) return incoming;

	const scalarNames = [...incoming.scalarNames];
	for (const n of stored.scalarNames) if (!scalarNames.includes(n)) scalarNames.push(n);
	const ladderColumns = incoming.ladderColumns.length
		? incoming.ladderColumns
		: stored.ladderColumns;
	const sameLadder = (c: RingChunk) =>
		c.ladderColumns.length === ladderColumns.length &&
		c.ladderColumns.every((name, i) => name === ladderColumns[i]);

	type Row = { chunk: RingChunk; i: number; hasLadder: boolean };
	const rows = new Map<number, Row>();
	for (const chunk of [stored, incoming]) {
		const ladderOk = sameLadder(chunk);
		for (let i = 0; i < chunk.count; i++) {
			const ts = chunk.timestamps[i];
			const hasLadder = ladderOk && chunk.ladderOffsets[i + 1] > chunk.ladderOffsets[i];
			const prev = rows.get(ts);
			if (!prev || hasLadder || !prev.hasLadder) rows.set(ts, { chunk, i, hasLadder });
		}
	}
	const order = [...rows.keys()].sort((a, b) => a - b);
	const width = ladderColumns.length;
	let ladderRows = 0;
	for (const ts of order) {
		const r = rows.get(ts)!;
		if (r.hasLadder) ladderRows += r.chunk.ladderOffsets[r.i + 1] - r.chunk.ladderOffsets[r.i];
	}
	const n = order.length;
	const timestamps = new Float64Array(n);
	const scalars = new Float64Array(n * scalarNames.length).fill(Number.NaN);
	const ladderOffsets = new Uint32Array(n + 1);
	const ladder = new Float32Array(ladderRows * width);
	let at = 0;
	order.forEach((ts, k) => {
		const { chunk, i, hasLadder } = rows.get(ts)!;
		timestamps[k] = ts;
		const sw = chunk.scalarNames.length;
		chunk.scalarNames.forEach((name, j) => {
			scalars[k * scalarNames.length + scalarNames.indexOf(name)] = chunk.scalars[i * sw + j];
		});
		if (hasLadder) {
			const from = chunk.ladderOffsets[i] * width;
			const to = chunk.ladderOffsets[i + 1] * width;
			ladder.set(chunk.ladder.subarray(from, to), at * width);
			at += (to - from) / width;
		}
		ladderOffsets[k + 1] = at;
	});
	return {
		group: incoming.group,
		kind: incoming.kind,
		start: incoming.start,
		end: order[n - 1] ?? incoming.start,
		count: n,
		timestamps,
		scalarNames,
		scalars,
		ladderColumns,
		ladderOffsets,
		ladder
	};
}

/**
 * Does `outer` already hold every row of `inner` (same timestamp, with a ladder wherever inner
 * has one)? The common case, a writer replacing its own earlier checkpoint, then skips the merge.
 */
function containsRows(outer: RingChunk, inner: RingChunk): boolean {
	if (inner.count > outer.count) return false;
	if (inner.scalarNames.some((n) => !outer.scalarNames.includes(n))) return false;
	let j = 0;
	for (let i = 0; i < inner.count; i++) {
		const ts = inner.timestamps[i];
		while (j < outer.count && outer.timestamps[j] < ts) j++;
		if (j >= outer.count || outer.timestamps[j] !== ts) return false;
		const innerLadder = inner.ladderOffsets[i + 1] > inner.ladderOffsets[i];
		const outerLadder = outer.ladderOffsets[j + 1] > outer.ladderOffsets[j];
		if (innerLadder && !outerLadder) return false;
	}
	return true;
}
