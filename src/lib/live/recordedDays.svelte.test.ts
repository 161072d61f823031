/**
 * RecordedDays fetches the recorded days of the view's stream for the day picker (a stubbed
 * fetch answers as /history does): the days of that stream only, the day being recorded, and
 * no new fetch when a navigation rebuilds the view but keeps its ticker and stream, and none in
 * the task that created it (the page's hydration, its longest task: issue 26).
 */
import { flushSync } from 'svelte';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { nextTask } from '$lib/stream/nextTask';
import { RecordedDays } from './recordedDays.svelte';

let asked: string[];

beforeEach(() => {
	asked = [];
	vi.stubGlobal('fetch', async (url: string) => {
		asked.push(url);
		return Response.json({
			days: [
				{ day: '2026-11-26', streams: ['classic_gex_full', 'orderflow_orderflow'] },
				{ day: '2026-11-25', streams: ['orderflow_orderflow'] }
			],
			recording: '2026-11-27'
		});
	});
});
afterEach(() => vi.unstubAllGlobals());

/** The effects run, the task they put the asking off to, and its answer. */
async function settle() {
	flushSync();
	await nextTask();
	for (let i = 0; i < 10; i++) await Promise.resolve();
	flushSync();
}

describe('RecordedDays', () => {
	it("offers the stream's days and refetches only when the ticker or stream changes", async () => {
		let view = $state.raw({ ticker: 'SPX', zoom: 1 });
		let recorded!: RecordedDays;
		const stop = $effect.root(() => {
			recorded = new RecordedDays(
				() => view.ticker,
				() => 'classic_gex_full'
			);
		});
		flushSync();
		await settle();
		expect(asked).toEqual(['/history/SPX']);
		expect(recorded.days).toEqual(['2026-11-26']);
		expect(recorded.recording).toBe('2026-11-27');

		// A zoom rebuilds the view object; the ticker is the same.
		view = { ticker: 'SPX', zoom: 2 };
		await settle();
		expect(asked).toHaveLength(1);

		view = { ticker: 'NDX', zoom: 2 };
		await settle();
		expect(asked).toEqual(['/history/SPX', '/history/NDX']);
		stop();
	});

	it('asks in the task after the one that created it, and not at all when torn down first', async () => {
		let recorded!: RecordedDays;
		const stop = $effect.root(() => {
			recorded = new RecordedDays(
				() => 'SPX',
				() => 'classic_gex_full'
			);
		});
		flushSync();
		for (let i = 0; i < 10; i++) await Promise.resolve();
		expect(asked).toEqual([]);
		await settle();
		expect(asked).toEqual(['/history/SPX']);
		expect(recorded.days).toEqual(['2026-11-26']);
		stop();

		const torn = $effect.root(() => {
			new RecordedDays(
				() => 'NDX',
				() => 'classic_gex_full'
			);
		});
		flushSync();
		torn();
		await settle();
		expect(asked).toEqual(['/history/SPX']);
	});
});
