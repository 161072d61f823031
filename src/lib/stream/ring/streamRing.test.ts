import 'fake-indexeddb/auto';
import { afterEach, describe, expect, it } from 'vitest';
import { columnarGex } from '../../wire/columnar';
import { spxChain } from '../../wire/arbitraries.test-support';
import { StreamRing } from './streamRing';
import { chunkRow } from './ringChunk';
import type { StreamUpdate } from '../transport/updates';

const chain = spxChain(400);
const T0 = 1_767_277_800; // a multiple of 60

function gex(ts: number, spot = 7000 + (ts % 100)): StreamUpdate {
	return {
		kind: 'gex',
		group: 'SPX_classic_gex_full',
		ticker: 'SPX',
		timestamp: ts,
		value: columnarGex({ ...chain, timestamp: ts, spot }),
		pairedSpot: { spot: spot + 0.25 }
	};
}

let n = 0;
const recorders: StreamRing[] = [];
async function open(options = {}) {
	const r = await StreamRing.open({ dbName: `ring-test-${n++}`, ...options });
	recorders.push(r);
	return r;
}
afterEach(async () => {
	for (const r of recorders.splice(0)) await r.close();
});

describe('StreamRing', () => {
	it('stores compact chunks per group and reads rows back', async () => {
		const r = await open();
		for (let ts = T0; ts < T0 + 130; ts++) r.record(gex(ts));
		r.record({
			kind: 'spot',
			group: 'SPX_spot',
			ticker: 'SPX',
			timestamp: T0,
			value: { ticker: 'SPX', timestamp: T0, spot: 7000 }
		});
		await r.flush();
		expect(await r.groups()).toEqual(['SPX_classic_gex_full', 'SPX_spot']);
		const chunks = await r.read('SPX_classic_gex_full');
		expect(chunks.map((c) => [c.start, c.count])).toEqual([
			[T0, 60],
			[T0 + 60, 60],
			[T0 + 120, 10]
		]);
		const c = chunks[0];
		expect(c.timestamps).toBeInstanceOf(Float64Array);
		const row5 = chunkRow(c, 5);
		expect(row5.timestamp).toBe(T0 + 5);
		expect(row5.scalars.spot).toBe(7000 + ((T0 + 5) % 100));
		expect(row5.scalars.pairedSpot).toBe(row5.scalars.spot + 0.25);
		expect(row5.scalars.zeroGamma).toBeCloseTo(chain.zero_gamma, 6);
		// Ladders every 5 s (T0 is a multiple of 5): 400 strikes x 3 columns.
		expect(row5.ladder?.length).toBe(1200);
		expect(row5.ladder?.[0]).toBe(chain.strikes[0][0]);
		expect(row5.ladder?.[1]).toBeCloseTo(chain.strikes[0][1], 3);
		expect(chunkRow(c, 6).ladder).toBeUndefined();
		// A time window reads only the chunks that overlap it.
		expect((await r.read('SPX_classic_gex_full', T0 + 100, T0 + 110)).map((x) => x.start)).toEqual([
			T0 + 60
		]);
	});

	it('keeps a ring: chunks older than the retention window are deleted', async () => {
		const r = await open({ retentionSeconds: 120, chunkSeconds: 60 });
		for (let ts = T0; ts < T0 + 400; ts += 2) r.record(gex(ts));
		await r.flush();
		const starts = (await r.read('SPX_classic_gex_full')).map((c) => c.start);
		expect(starts[0]).toBeGreaterThanOrEqual(T0 + 398 - 120 - 60);
		expect(starts.at(-1)).toBe(T0 + 360);
	});

	it('a reload (new recorder on the same database) sees what was recorded', async () => {
		const a = await StreamRing.open({ dbName: 'ring-reload' });
		for (let ts = T0; ts < T0 + 10; ts++) a.record(gex(ts));
		await a.close();
		const b = await open({ dbName: 'ring-reload' });
		const chunks = await b.read('SPX_classic_gex_full');
		expect(chunks).toHaveLength(1);
		expect(chunks[0].count).toBe(10);
		expect(chunks[0].ladder).toBeInstanceOf(Float32Array);
	});

	it('skips out-of-order and unrecorded updates', async () => {
		const r = await open();
		r.record(gex(T0 + 3));
		r.record(gex(T0 + 2));
		r.record({
			kind: 'volume',
			group: 'SPX_state_volume_zero',
			ticker: 'SPX',
			timestamp: T0,
			value: {}
		});
		await r.flush();
		expect(await r.groups()).toEqual(['SPX_classic_gex_full']);
		expect((await r.read('SPX_classic_gex_full'))[0].count).toBe(1);
	});
});

describe('StreamRing checkpoints and several writers', () => {
	it('writes the open chunk at each snapshot and every few seconds of data, before its span ends', async () => {
		const r = await open({ dbName: 'ring-checkpoint', checkpointSeconds: 5 });
		for (let ts = T0 + 1; ts <= T0 + 14; ts++) {
			r.record(gex(ts));
			r.record({
				kind: 'spot',
				group: 'SPX_spot',
				ticker: 'SPX',
				timestamp: ts,
				value: { ticker: 'SPX', timestamp: ts, spot: 7000 }
			});
		}
		await r.settled();
		// Another reader (the page) sees the checkpoints without any flush: the GEX chunk up to
		// its last snapshot (a ladder row, T0 + 10), the spot chunk every 5 s (T0 + 1, 6, 11).
		const reader = await open({ dbName: 'ring-checkpoint' });
		const [c] = await reader.read('SPX_classic_gex_full');
		expect(c.count).toBe(10);
		expect(c.end).toBe(T0 + 10);
		const [s] = await reader.read('SPX_spot');
		expect(s.end).toBe(T0 + 11);
	});

	it('a reload mid-span keeps the rows written before it', async () => {
		const before = await StreamRing.open({ dbName: 'ring-reload-mid' });
		for (let ts = T0; ts <= T0 + 20; ts++) before.record(gex(ts));
		await before.close();
		const after = await open({ dbName: 'ring-reload-mid' });
		for (let ts = T0 + 25; ts <= T0 + 30; ts++) after.record(gex(ts));
		await after.flush();
		const [c] = await after.read('SPX_classic_gex_full');
		expect(c.count).toBe(27);
		expect(c.timestamps[0]).toBe(T0);
		expect(c.timestamps[26]).toBe(T0 + 30);
		// Ladders of both writers survive (T0, +5, +10, +15, +20 and +25, +30).
		const ladders = Array.from({ length: c.count }, (_, i) => chunkRow(c, i))
			.filter((row) => row.ladder)
			.map((row) => row.timestamp - T0);
		expect(ladders).toEqual([0, 5, 10, 15, 20, 25, 30]);
	});

	it('two writers recording the same group at once keep the union of their rows', async () => {
		const a = await open({ dbName: 'ring-two-tabs' });
		const b = await open({ dbName: 'ring-two-tabs' });
		// b (a tab opened later) starts mid-span; both write interleaved.
		for (let ts = T0; ts < T0 + 60; ts++) {
			a.record(gex(ts));
			if (ts >= T0 + 30) b.record(gex(ts));
			if (ts % 7 === 0) await Promise.all([a.settled(), b.settled()]);
		}
		await b.flush();
		await a.flush();
		await b.flush();
		const [c] = await a.read('SPX_classic_gex_full');
		expect(c.count).toBe(60);
		expect(Array.from(c.timestamps)).toEqual(Array.from({ length: 60 }, (_, i) => T0 + i));
	});

	it('reads only the spans that can overlap the window', async () => {
		const r = await open();
		for (let ts = T0; ts < T0 + 600; ts += 10) r.record(gex(ts));
		await r.flush();
		const tail = await r.read('SPX_classic_gex_full', T0 + 590);
		expect(tail.map((c) => c.start)).toEqual([T0 + 540]);
	});
});

describe('StreamRing.extent', () => {
	it('gives the first and last span of a group from the keys alone', async () => {
		const r = await open();
		expect(await r.extent('SPX_classic_gex_full')).toBeUndefined();
		for (let ts = T0 + 30; ts < T0 + 200; ts += 10) r.record(gex(ts));
		await r.flush();
		expect(await r.extent('SPX_classic_gex_full')).toEqual({ first: T0, last: T0 + 180 });
		expect(await r.extent('SPX_classic_gex_one')).toBeUndefined();
	});
});
