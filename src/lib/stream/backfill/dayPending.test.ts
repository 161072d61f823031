import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
	MAX_RETRY_MS,
	MIN_RETRY_MS,
	pendingSummary,
	retryDelayMs,
	secondsLeft,
	type DayPendingNote
} from './dayPending';

const note = (p: Partial<DayPendingNote['pending']>, at = 0): DayPendingNote => ({
	pending: { state: 'generating', position: 0, progress: 0, etaSeconds: null, message: '', ...p },
	at
});

describe('retryDelayMs', () => {
	it("follows the answer's Retry-After", () => {
		expect(retryDelayMs(17, 0)).toBe(17_000);
		expect(retryDelayMs(2, 5)).toBe(2_000);
	});

	it('backs off without one, and never hammers nor stalls', () => {
		expect([0, 1, 2, 3, 4, 5].map((a) => retryDelayMs(undefined, a))).toEqual([
			2_000, 4_000, 8_000, 16_000, 30_000, 30_000
		]);
		expect(retryDelayMs(0, 0)).toBe(MIN_RETRY_MS);
		expect(retryDelayMs(86_400, 0)).toBe(MAX_RETRY_MS);
		fc.assert(
			fc.property(
				fc.option(fc.double(), { nil: undefined }),
				fc.integer({ min: 0, max: 1000 }),
				(after, attempt) => {
					const ms = retryDelayMs(after, attempt);
					expect(ms >= MIN_RETRY_MS && ms <= MAX_RETRY_MS).toBe(true);
				}
			)
		);
	});
});

describe('pendingSummary', () => {
	it('says where the day stands, its wait counting down from when it was said', () => {
		const gen = note({ state: 'generating', progress: 0.787, etaSeconds: 17 }, 1_000);
		expect(pendingSummary(gen, 1_000)).toBe(
			'Generating this day on the service: 78% · about 17 s left'
		);
		expect(secondsLeft(gen, 8_000)).toBe(10);
		expect(pendingSummary(gen, 30_000)).toBe(
			'Generating this day on the service: 78% · almost ready'
		);
		expect(pendingSummary(note({ state: 'queued', position: 2, etaSeconds: 300 }), 0)).toBe(
			'Queued on the service: position 2 · about 5 min left'
		);
		expect(pendingSummary(note({ state: 'requesting' }), 0)).toBe(
			'Asking the service for this day…'
		);
		// Before the service's first answer, the dashboard's estimate from the last days.
		expect(pendingSummary(note({ state: 'requesting', etaSeconds: 40 }), 10_000)).toBe(
			'Asking the service for this day… · about 30 s left (as the last days took)'
		);
	});

	it("says the day's place in this server's import queue, then the download's progress", () => {
		expect(pendingSummary(note({ state: 'import-queued', position: 3 }), 0)).toBe(
			"Waiting to download this day: position 3 in this server's queue"
		);
		expect(pendingSummary(note({ state: 'importing', progress: 0.42 }), 0)).toBe(
			'Downloading this day from the service: 42%'
		);
	});
});
