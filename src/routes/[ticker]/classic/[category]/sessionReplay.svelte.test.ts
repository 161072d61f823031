import 'fake-indexeddb/auto';
import { flushSync } from 'svelte';
import { describe, expect, it, vi } from 'vitest';
import { StreamRing } from '$lib/stream';
import {
	BackfillError,
	FOLLOW_MS,
	type BackfillQuery,
	type BackfillResult
} from '$lib/stream/backfill/backfillClient';
import type { StreamUpdate } from '$lib/stream/transport/updates';
import type { ClassicChain } from '$lib/charts/histogram/classicChain';
import { columnarGex, type ColumnarGex } from '$lib/wire/columnar';
import { spxChain } from '$lib/wire/arbitraries.test-support';
import { SessionReplay, type SessionReplayOptions } from './sessionReplay.svelte';

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

/** A SessionReplay of GROUP on SPX (nothing polled unless given) in its own effect root. */
function replayOf(options: Partial<SessionReplayOptions>) {
	let replay!: SessionReplay;
	const stop = $effect.root(() => {
		replay = new SessionReplay({
			group: () => GROUP,
			ticker: () => 'SPX',
			polled: () => undefined,
			...options
		});
	});
	return { replay, stop };
}

let n = 0;
async function seededRing(seconds: number, step = 1) {
	const dbName = `replay-page-${n++}`;
	const worker = await StreamRing.open({ dbName });
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
		const { replay, stop } = replayOf({
			open: () => StreamRing.open({ dbName }),
			refreshMs: 20
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
		let polled = $state.raw<ColumnarGex | undefined>(undefined);
		const { replay, stop } = replayOf({
			polled: () => polled,
			open: () => StreamRing.open({ dbName }),
			refreshMs: 20
		});
		await until(() => replay.status === 'ready');
		expect(replay.frames).toHaveLength(3);
		replay.scrubTo(1);
		flushSync();
		expect(replay.chain?.timestamp).toBe(T0 + 5);

		// The REST poller's chains: 11..20 s (the first recorder checkpoint is immediate).
		for (let ts = T0 + 11; ts <= T0 + 20; ts++) {
			polled = columnarGex(chainAt(ts));
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
		const { replay, stop } = replayOf({
			open: () => StreamRing.open({ dbName })
		});
		await until(() => replay.frames.length === 300);
		expect(replay.range).toEqual({ from: T0, to: T0 + 1495, count: 300 });
		expect(new Set(replay.frames.map((f) => f.timestamp)).size).toBe(300);
		stop();
	});

	it('says replay is unavailable when IndexedDB refuses', async () => {
		const { replay, stop } = replayOf({
			open: () => Promise.reject(new Error('private mode'))
		});
		await until(() => replay.status === 'unavailable');
		expect(replay.frames).toEqual([]);
		stop();
	});

	describe('a past day', () => {
		const DAY = '2025-12-31';
		const D0 = T0 - 86_400; // 09:30 ET the day before
		const updatesOf = (from: number, seconds: number): StreamUpdate[] => {
			const out: StreamUpdate[] = [];
			for (let ts = from; ts < from + seconds; ts += 5) {
				out.push({
					kind: 'gex',
					group: GROUP,
					ticker: 'SPX',
					timestamp: ts,
					value: columnarGex(chainAt(ts))
				});
			}
			return out;
		};
		const served = (updates: StreamUpdate[]): BackfillResult => ({
			id: 0,
			ok: true,
			updates,
			corrupt: 0,
			bytes: 0,
			fetchMs: 0,
			decodeMs: 0,
			day: DAY
		});

		it("replays the day's recording alone, from its last snapshot, the slider ending there", async () => {
			// Today's ring holds other moments: a past day does not show them.
			const dbName = await seededRing(30);
			const asked: [string, string, BackfillQuery][] = [];
			const { replay, stop } = replayOf({
				stream: () => 'classic_gex_full',
				day: () => DAY,
				open: () => StreamRing.open({ dbName }),
				backfill: async (ticker, stream, query = {}) => {
					asked.push([ticker, stream, query]);
					return served(updatesOf(D0, 60));
				}
			});
			await until(() => replay.frames.length === 12);
			expect(asked).toEqual([
				['SPX', 'classic_gex_full', { step: 5, day: DAY, fromService: true }]
			]);
			expect(replay.frames.every((f) => f.timestamp >= D0 && f.timestamp < D0 + 60)).toBe(true);
			// No moment picked: the day's last snapshot, not a live edge.
			expect(replay.replaying).toBe(true);
			expect(replay.chain?.timestamp).toBe(D0 + 55);
			expect(replay.last).toBe(11);
			expect(replay.position).toBe(11);

			replay.scrubTo(0);
			flushSync();
			expect(replay.chain?.timestamp).toBe(D0);
			expect(replay.chain?.spot).toBe(7000 - 86_400);
			replay.scrubTo(12); // past the end: still the last snapshot
			flushSync();
			expect(replay.chain?.timestamp).toBe(D0 + 55);
			stop();
		});

		it('opens at a linked moment (the nearest snapshot) and says when nothing was recorded', async () => {
			let answer: () => Promise<BackfillResult> = async () => served(updatesOf(D0, 60));
			let day = $state<string | null>(DAY);
			const { replay, stop } = replayOf({
				stream: () => 'classic_gex_full',
				day: () => day,
				open: () => Promise.reject(new Error('no ring in this test')),
				backfill: () => answer()
			});
			replay.at = D0 + 22;
			await until(() => replay.frames.length === 12);
			expect(replay.chain?.timestamp).toBe(D0 + 20);

			// Another day with nothing recorded (404): empty, not an error; the moment is dropped.
			answer = () => Promise.reject(new BackfillError(404, 'nothing recorded'));
			day = '2025-12-30';
			await until(() => replay.backfilled === 0);
			expect(replay.backfillError).toBeNull();
			expect(replay.frames).toEqual([]);
			expect(replay.at).toBeNull();
			expect(replay.chain).toBeUndefined();

			// A failing read is an error the view shows.
			answer = () => Promise.reject(new BackfillError(403, "The service's history: locked"));
			day = '2025-12-29';
			await until(() => replay.backfillError !== null);
			expect(replay.backfillError).toBe("The service's history: locked");
			stop();
		});

		it('shows the service generating the day, then the day; a day still recorded grows', async () => {
			vi.useFakeTimers({ toFake: ['setTimeout', 'setInterval', 'clearTimeout', 'clearInterval'] });
			try {
				const asked: BackfillQuery[] = [];
				const answers: (() => BackfillResult)[] = [
					() => {
						throw new BackfillError(
							504,
							'still being generated',
							{
								state: 'generating',
								position: 0,
								progress: 0.42,
								etaSeconds: 9,
								message: 'still being generated (42% done)'
							},
							3
						);
					},
					() => ({ ...served(updatesOf(D0, 60)), recording: true }),
					() => ({ ...served(updatesOf(D0 + 60, 30)), recording: false })
				];
				const { replay, stop } = replayOf({
					stream: () => 'classic_gex_full',
					day: () => DAY,
					open: () => Promise.reject(new Error('no ring in this test')),
					backfill: async (_t, _s, query = {}) => {
						asked.push(query);
						return answers.shift()!();
					}
				});
				await vi.advanceTimersByTimeAsync(0);
				flushSync();
				expect(replay.pending?.pending.progress).toBe(0.42);
				expect(replay.backfilled).toBeNull();
				expect(replay.frames).toEqual([]);
				// Asked again after the Retry-After (3 s): the day, and the pending state is gone.
				await vi.advanceTimersByTimeAsync(3_000);
				flushSync();
				expect(replay.pending).toBeNull();
				expect(replay.frames.length).toBe(12);
				// Still recorded: what follows its last record is asked for and added.
				await vi.advanceTimersByTimeAsync(FOLLOW_MS);
				flushSync();
				expect(replay.frames.length).toBe(18);
				expect(asked.map((q) => q.from)).toEqual([undefined, undefined, D0 + 55 + 1]);
				await vi.advanceTimersByTimeAsync(FOLLOW_MS * 3);
				expect(asked.length).toBe(3);
				stop();
			} finally {
				vi.useRealTimers();
			}
		});

		it('grows the timeline batch by batch as the day decodes, and follows from the last batch', async () => {
			vi.useFakeTimers({ toFake: ['setTimeout', 'setInterval', 'clearTimeout', 'clearInterval'] });
			try {
				const asked: BackfillQuery[] = [];
				let release!: () => void;
				const released = new Promise<void>((resolve) => (release = resolve));
				const { replay, stop } = replayOf({
					stream: () => 'classic_gex_full',
					day: () => DAY,
					open: () => Promise.reject(new Error('no ring in this test')),
					// As the decode worker does with onBatch: the updates come in batches (a
					// batch may end inside a minute) and the result holds none of them.
					backfill: async (_t, _s, query = {}, options = {}) => {
						asked.push(query);
						if (query.from !== undefined) {
							return { ...served(updatesOf(D0 + 180, 10)), recording: false };
						}
						const day = updatesOf(D0, 180);
						options.onBatch?.(day.slice(0, 15)); // 0:00-1:10 of the first minutes
						await released;
						options.onBatch?.(day.slice(15));
						return { ...served([]), recording: true, last: day.at(-1)!.timestamp };
					}
				});
				await vi.advanceTimersByTimeAsync(0);
				flushSync();
				// The first minute is complete and shown while the rest still decodes.
				expect(replay.frames.map((f) => f.timestamp)).toEqual(
					Array.from({ length: 12 }, (_, i) => D0 + i * 5)
				);
				expect(replay.backfilled).toBeNull();
				release();
				await vi.advanceTimersByTimeAsync(0);
				flushSync();
				expect(replay.frames.length).toBe(36);
				expect(new Set(replay.frames.map((f) => f.timestamp)).size).toBe(36);
				expect(replay.backfilled).toBe(36);
				// Following the day asks from after the last batch, not from the (empty) result.
				await vi.advanceTimersByTimeAsync(FOLLOW_MS);
				flushSync();
				expect(asked.map((q) => q.from)).toEqual([undefined, D0 + 175 + 1]);
				expect(replay.frames.length).toBe(38);
				stop();
			} finally {
				vi.useRealTimers();
			}
		});

		it('returns to today: the ring and the live edge again', async () => {
			const dbName = await seededRing(30);
			let day = $state<string | null>(DAY);
			const { replay, stop } = replayOf({
				stream: () => 'classic_gex_full',
				day: () => day,
				open: () => StreamRing.open({ dbName }),
				refreshMs: 20,
				backfill: async (_t, _s, query = {}) => (query.day ? served(updatesOf(D0, 60)) : served([]))
			});
			await until(() => replay.frames.length === 12);
			replay.scrubTo(3);
			day = null;
			await until(() => replay.status === 'ready' && replay.frames.length === 6);
			expect(replay.frames[0].timestamp).toBe(T0);
			expect(replay.at).toBeNull();
			expect(replay.replaying).toBe(false);
			expect(replay.last).toBe(6);
			stop();
		});
	});
});
