import { afterEach, describe, expect, it, vi } from 'vitest';
import type { HistoryPending } from '../contract/historyPending';
import {
	BackfillError,
	backfillUrl,
	fetchSessionDay,
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
