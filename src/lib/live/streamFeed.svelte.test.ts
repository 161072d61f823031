import { flushSync } from 'svelte';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { GROUP, liveStreamOnFakeWorker } from './fakeStream.test-support';
import { STREAM_STALL_MS, StreamFeed, gexColumns } from './streamFeed.svelte';

describe('StreamFeed', () => {
	beforeEach(() => vi.useFakeTimers());
	afterEach(() => vi.useRealTimers());

	it('streams while updates arrive, hands back to REST when the group goes silent, resumes on the next update', () => {
		const { live, worker, push } = liveStreamOnFakeWorker();
		let feed!: StreamFeed;
		const stop = $effect.root(() => {
			feed = new StreamFeed(
				() => ({ ok: true, reason: '' }),
				() => GROUP,
				gexColumns,
				() => live
			);
		});
		flushSync();
		expect(worker.posted.some((m) => m.type === 'subscribe' && m.groups.includes(GROUP))).toBe(
			true
		);
		expect(feed.streaming).toBe(false);
		expect(feed.badge.text).toMatch(/waiting for the first streamed update/);

		push(1);
		flushSync();
		expect(feed.streaming).toBe(true);
		expect(feed.badge).toMatchObject({ mode: 'stream', text: 'Streaming' });
		expect(feed.value?.timestamp).toBe(1);

		vi.advanceTimersByTime(STREAM_STALL_MS - 1_000);
		flushSync();
		expect(feed.streaming).toBe(true);

		vi.advanceTimersByTime(2_000);
		flushSync();
		expect(feed.streaming).toBe(false);
		expect(feed.badge.text).toMatch(/no streamed update/);

		push(2);
		flushSync();
		expect(feed.streaming).toBe(true);
		expect(feed.value?.timestamp).toBe(2);
		stop();
		live.close();
	});

	it('polls with the access reason when the account may not stream', () => {
		let feed!: StreamFeed;
		const open = vi.fn();
		const stop = $effect.root(() => {
			feed = new StreamFeed(
				() => ({ ok: false, reason: 'streaming needs the Quant tier' }),
				() => GROUP,
				gexColumns,
				open
			);
		});
		flushSync();
		expect(open).not.toHaveBeenCalled();
		expect(feed.streaming).toBe(false);
		expect(feed.badge).toMatchObject({ mode: 'polling' });
		expect(feed.badge.text).toMatch(/Quant tier/);
		stop();
	});
});
