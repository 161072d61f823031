import 'fake-indexeddb/auto';
import { flushSync } from 'svelte';
import { describe, expect, it } from 'vitest';
import { StreamRecorder } from '$lib/stream';
import type { ClassicChain } from '$lib/charts/classicChain';
import { columnarGex } from '$lib/wire/columnar';
import { spxChain } from '$lib/wire/arbitraries.test-support';
import { SessionReplay } from './sessionReplay.svelte';

const GROUP = 'SPX_classic_gex_full';
const T0 = 1_767_277_800; // 09:30:00 ET, a multiple of 60
const base = spxChain(30);
const chainAt = (ts: number): ClassicChain => ({
	...base,
	ticker: 'SPX',
	timestamp: ts,
	spot: 7000 + ts - T0
});

/** Waits (real time) until `ok` holds, flushing effects between looks. */
async function until(ok: () => boolean, ms = 3_000): Promise<void> {
	const end = Date.now() + ms;
	for (;;) {
		flushSync();
		if (ok()) return;
		if (Date.now() > end) throw new Error('condition not met in time');
		await new Promise((r) => setTimeout(r, 10));
	}
}

let n = 0;
async function seededRing(seconds: number, step = 1) {
	const dbName = `replay-page-${n++}`;
	const worker = await StreamRecorder.open({ dbName });
	for (let ts = T0; ts < T0 + seconds; ts += step) {
		worker.record({
			kind: 'gex',
			group: GROUP,
			ticker: 'SPX',
			timestamp: ts,
			value: columnarGex(chainAt(ts))
		});
	}
	await worker.close();
	return dbName;
}

describe('SessionReplay', () => {
	it('reads the ring, scrubs to a recorded snapshot and back to live', async () => {
		const dbName = await seededRing(30);
		let replay!: SessionReplay;
		const stop = $effect.root(() => {
			replay = new SessionReplay({
				group: () => GROUP,
				ticker: () => 'SPX',
				polled: () => undefined,
				open: () => StreamRecorder.open({ dbName }),
				refreshMs: 20
			});
		});
		await until(() => replay.status === 'ready');
		expect(replay.frames.map((f) => f.timestamp - T0)).toEqual([0, 5, 10, 15, 20, 25]);
		expect(replay.range).toEqual({ from: T0, to: T0 + 25, count: 6 });
		expect(replay.replaying).toBe(false);
		expect(replay.position).toBe(6);

		replay.scrubTo(2);
		flushSync();
		expect(replay.replaying).toBe(true);
		expect(replay.position).toBe(2);
		expect(replay.chain?.timestamp).toBe(T0 + 10);
		expect(replay.chain?.spot).toBe(7010);
		expect(replay.chain?.strikes).toHaveLength(30);

		replay.goLive();
		flushSync();
		expect(replay.replaying).toBe(false);
		expect(replay.chain).toBeUndefined();
		replay.scrubTo(6); // the slider's right end is live
		flushSync();
		expect(replay.replaying).toBe(false);
		stop();
	});

	it('records polled chains into the ring and keeps the scrubbed moment as the timeline grows', async () => {
		const dbName = await seededRing(11);
		let polled = $state<ClassicChain | undefined>(undefined);
		let replay!: SessionReplay;
		const stop = $effect.root(() => {
			replay = new SessionReplay({
				group: () => GROUP,
				ticker: () => 'SPX',
				polled: () => polled,
				open: () => StreamRecorder.open({ dbName }),
				refreshMs: 20
			});
		});
		await until(() => replay.status === 'ready');
		expect(replay.frames).toHaveLength(3);
		replay.scrubTo(1);
		flushSync();
		expect(replay.chain?.timestamp).toBe(T0 + 5);

		// The REST poller's chains: 11..20 s (the first recorder checkpoint is immediate).
		for (let ts = T0 + 11; ts <= T0 + 20; ts++) {
			polled = chainAt(ts);
			flushSync();
		}
		await until(() => replay.frames.length === 5);
		expect(replay.frames.map((f) => f.timestamp - T0)).toEqual([0, 5, 10, 15, 20]);
		// Still on the same recorded moment.
		expect(replay.chain?.timestamp).toBe(T0 + 5);
		expect(replay.position).toBe(1);
		stop();
	});

	it('reads a ring longer than one slice completely, without duplicates', async () => {
		const dbName = await seededRing(25 * 60, 5);
		let replay!: SessionReplay;
		const stop = $effect.root(() => {
			replay = new SessionReplay({
				group: () => GROUP,
				ticker: () => 'SPX',
				polled: () => undefined,
				open: () => StreamRecorder.open({ dbName })
			});
		});
		await until(() => replay.frames.length === 300);
		expect(replay.range).toEqual({ from: T0, to: T0 + 1495, count: 300 });
		expect(new Set(replay.frames.map((f) => f.timestamp)).size).toBe(300);
		stop();
	});

	it('says replay is unavailable when IndexedDB refuses', async () => {
		let replay!: SessionReplay;
		const stop = $effect.root(() => {
			replay = new SessionReplay({
				group: () => GROUP,
				ticker: () => 'SPX',
				polled: () => undefined,
				open: () => Promise.reject(new Error('private mode'))
			});
		});
		await until(() => replay.status === 'unavailable');
		expect(replay.frames).toEqual([]);
		stop();
	});
});
