import { afterEach, describe, expect, it, vi } from 'vitest';
import type { HistoryPending } from '../../contract/historyPending';
import {
	BackfillError,
	backfillUrl,
	fetchSessionDay,
	followRecordingDay,
	FOLLOW_MS,
	isAbort,
	sessionQuery,
	type BackfillResult
} from './backfillClient';
import { GIVE_UP_MS, type DayPendingNote } from './dayPending';

describe('sessionQuery', () => {
	it("asks today's recording so far without a day", () => {
		expect(sessionQuery(null)).toEqual({});
		expect(sessionQuery(null, 5)).toEqual({ step: 5 });
		expect(backfillUrl('SPX', 'classic_gex_full', sessionQuery(null, 5))).toBe(
			'/history/SPX/classic_gex_full?step=5'
		);
	});

	it("asks a past day from the recording, else the service's history", () => {
		expect(sessionQuery('2026-11-20')).toEqual({ day: '2026-11-20', fromService: true });
		expect(backfillUrl('SPX', 'classic_gex_zero', sessionQuery('2026-11-20', 5))).toBe(
			'/history/SPX/classic_gex_zero?day=2026-11-20&step=5&source=service'
		);
	});
});

const DAY = { day: '2026-11-23', fromService: true };
const generating = (progress: number, eta: number): HistoryPending => ({
	state: 'generating',
	position: 0,
	progress,
	etaSeconds: eta,
	message: `still being generated (${Math.round(progress * 100)}% done)`
});
const result = { id: 1, ok: true, updates: [], corrupt: 0, bytes: 9 } as unknown as BackfillResult;

describe('fetchSessionDay', () => {
	afterEach(() => vi.useRealTimers());

	it('reports each pending answer and asks again after its Retry-After, then resolves', async () => {
		vi.useFakeTimers();
		const answers: (BackfillError | BackfillResult)[] = [
			new BackfillError(
				504,
				'asking',
				{ ...generating(0, 0), state: 'requesting', etaSeconds: null },
				2
			),
			new BackfillError(504, 'gen', generating(0.4, 20), 20),
			result
		];
		const asked: number[] = [];
		const notes: DayPendingNote[] = [];
		const read = async () => {
			asked.push(Date.now());
			const next = answers.shift()!;
			if (next instanceof BackfillError) throw next;
			return next;
		};
		const start = Date.now();
		const done = fetchSessionDay('SPX', 'orderflow_orderflow', DAY, {
			read,
			onpending: (n) => notes.push(n)
		});
		await vi.advanceTimersByTimeAsync(30_000);
		await expect(done).resolves.toBe(result);
		expect(asked.map((t) => t - start)).toEqual([0, 2_000, 22_000]);
		expect(notes.map((n) => n.pending.state)).toEqual(['requesting', 'generating']);
		expect(notes[1].pending.progress).toBe(0.4);
	});

	it('hands batches to onBatch while the day decodes, and none once the view has left', async () => {
		const update = (timestamp: number) => ({ kind: 'orderflow', timestamp }) as never;
		const stop = new AbortController();
		const read: NonNullable<Parameters<typeof fetchSessionDay>[3]>['read'] = async (
			_t,
			_s,
			_q,
			options = {}
		) => {
			options.onBatch?.([update(1), update(2)]);
			options.onBatch?.([update(3)]);
			stop.abort(); // the view left while the rest decoded
			options.onBatch?.([update(4)]);
			return { ...result, last: 4 };
		};
		const got: number[] = [];
		const done = fetchSessionDay('SPX', 'orderflow_orderflow', DAY, {
			read,
			signal: stop.signal,
			onBatch: (updates) => got.push(...updates.map((u) => u.timestamp))
		});
		await expect(done).rejects.toSatisfy(isAbort);
		expect(got).toEqual([1, 2, 3]);
	});

	it('stops at a final error, at once', async () => {
		let calls = 0;
		const read = async (): Promise<BackfillResult> => {
			calls++;
			throw new BackfillError(502, "The service's history: the service answered 500");
		};
		await expect(fetchSessionDay('SPX', 's', DAY, { read })).rejects.toThrow('answered 500');
		expect(calls).toBe(1);
	});

	it('stops waiting when the signal aborts (another day picked)', async () => {
		vi.useFakeTimers();
		let calls = 0;
		const read = async (): Promise<BackfillResult> => {
			calls++;
			throw new BackfillError(504, 'gen', generating(0.1, 60), 60);
		};
		const stop = new AbortController();
		const done = fetchSessionDay('SPX', 's', DAY, { read, signal: stop.signal });
		const settled = done.catch((e: unknown) => e);
		await vi.advanceTimersByTimeAsync(1_000);
		stop.abort();
		expect(isAbort(await settled)).toBe(true);
		await vi.advanceTimersByTimeAsync(120_000);
		expect(calls).toBe(1);
	});

	it('gives up with a clear error when the day never comes', async () => {
		vi.useFakeTimers();
		const read = async (): Promise<BackfillResult> => {
			throw new BackfillError(
				504,
				'queued',
				{ ...generating(0, 30), state: 'queued', position: 4 },
				30
			);
		};
		const done = fetchSessionDay('SPX', 's', DAY, { read }).catch((e: unknown) => e);
		await vi.advanceTimersByTimeAsync(GIVE_UP_MS + 60_000);
		const err = (await done) as BackfillError;
		expect(err).toBeInstanceOf(BackfillError);
		expect(err.pending).toBeUndefined();
		expect(err.message).toMatch(/still generating 2026-11-23 after 15 minutes/);
	});
});

describe('followRecordingDay', () => {
	afterEach(() => vi.useRealTimers());
	const update = (timestamp: number) => ({ kind: 'orderflow', timestamp }) as never;
	const batch = (stamps: number[], recording: boolean) =>
		({ ...result, updates: stamps.map(update), recording }) as BackfillResult;

	it('asks for what follows the last record until the day is no longer recorded', async () => {
		vi.useFakeTimers();
		const asked: (number | undefined)[] = [];
		const answers = [batch([], true), batch([105, 110], true), batch([115], false)];
		const read = async (_t: string, _s: string, q?: { from?: number }) => {
			asked.push(q?.from);
			return answers.shift()!;
		};
		const got: number[][] = [];
		const following: boolean[] = [];
		const stop = new AbortController();
		const done = followRecordingDay(
			'SPX',
			'orderflow_orderflow',
			{ day: '2026-11-24', fromService: true },
			batch([90, 100.5], true),
			(r) => got.push(r.updates.map((u) => u.timestamp)),
			{ signal: stop.signal, read, onfollowing: (on) => following.push(on) }
		);
		expect(following).toEqual([true]);
		await vi.advanceTimersByTimeAsync(FOLLOW_MS * 5);
		await done;
		expect(asked).toEqual([101, 101, 111]);
		expect(got).toEqual([[105, 110], [115]]);
		// The view says when the day stopped growing.
		expect(following).toEqual([true, false]);
	});

	it('follows from the last update the batches delivered when the result holds none', async () => {
		vi.useFakeTimers();
		const asked: (number | undefined)[] = [];
		const read = async (_t: string, _s: string, q?: { from?: number }) => {
			asked.push(q?.from);
			return { ...batch([], false), last: undefined };
		};
		const done = followRecordingDay(
			'SPX',
			'orderflow_orderflow',
			{},
			{ ...batch([], true), last: 240 },
			() => undefined,
			{ signal: new AbortController().signal, read }
		);
		await vi.advanceTimersByTimeAsync(FOLLOW_MS);
		await done;
		expect(asked).toEqual([241]);
	});

	it('does nothing for a finished day, and stops when the view leaves', async () => {
		vi.useFakeTimers();
		let calls = 0;
		const read = async () => {
			calls++;
			return batch([], true);
		};
		const stop = new AbortController();
		const finished: boolean[] = [];
		await followRecordingDay('SPX', 's', {}, batch([1], false), () => undefined, {
			signal: stop.signal,
			read,
			onfollowing: (on) => finished.push(on)
		});
		expect(calls).toBe(0);
		expect(finished).toEqual([false]);
		const following = followRecordingDay('SPX', 's', {}, batch([1], true), () => undefined, {
			signal: stop.signal,
			read
		});
		await vi.advanceTimersByTimeAsync(FOLLOW_MS * 2 + 10);
		stop.abort();
		await following;
		const after = calls;
		await vi.advanceTimersByTimeAsync(FOLLOW_MS * 5);
		expect(after).toBe(2);
		expect(calls).toBe(after);
	});
});
