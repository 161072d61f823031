import { flushSync } from 'svelte';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { GROUP, liveStreamOnFakeWorker } from './fakeStream.test-support';
import { GAP_SHOWN_MS, STREAM_STALL_MS, StreamFeed, gexColumns } from './streamFeed.svelte';

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

	it('shows a gap the relay reports (a cluster hand-over) on the badge for a minute', () => {
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
		push(1);
		flushSync();
		expect(feed.badge.gap).toBe(undefined);
		worker.emit({
			type: 'relay',
			message: { type: 'gap', at: '9-0', reason: 'the upstream slot passed from a to b' }
		});
		push(2);
		flushSync();
		expect(feed.badge).toMatchObject({
			mode: 'stream',
			gap: 'the upstream slot passed from a to b'
		});
		vi.advanceTimersByTime(GAP_SHOWN_MS + 1_000);
		push(3);
		flushSync();
		expect(feed.badge.gap).toBe(undefined);
		stop();
		live.close();
	});
});
