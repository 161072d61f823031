import { flushSync } from 'svelte';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { LiveStream } from '$lib/stream';
import type { PageToWorker, WorkerToPage } from '$lib/stream/messages';
import { columnarGex } from '$lib/wire/columnar';
import { spxChain } from '$lib/wire/arbitraries.test-support';
import { STREAM_STALL_MS, StreamFeed, gexChain } from './streamFeed.svelte';

/** A Worker stand-in the test answers as. */
class FakeWorker {
	posted: PageToWorker[] = [];
	onmessage: ((ev: MessageEvent<WorkerToPage>) => void) | null = null;
	onerror: ((ev: ErrorEvent) => void) | null = null;
	onmessageerror: (() => void) | null = null;
	postMessage(m: PageToWorker) {
		this.posted.push(m);
	}
	terminate() {}
	emit(m: WorkerToPage) {
		this.onmessage?.({ data: m } as MessageEvent<WorkerToPage>);
	}
}

const GROUP = 'SPX_classic_gex_full';
const chain = spxChain(20);

function liveStreamOnFakeWorker() {
	let worker!: FakeWorker;
	const live = new LiveStream({
		url: 'ws://dash/stream',
		createWorker: () => (worker = new FakeWorker()) as unknown as Worker
	});
	worker.emit({ type: 'connection', state: 'open' });
	worker.emit({
		type: 'relay',
		message: {
			type: 'status',
			state: 'live',
			usage: { used: 1, limit: 150, perHub: {} },
			groups: [],
			viewers: 1
		}
	});
	const push = (ts: number) =>
		worker.emit({
			type: 'updates',
			updates: [
				{
					kind: 'gex',
					group: GROUP,
					ticker: 'SPX',
					timestamp: ts,
					value: columnarGex({ ...chain, ticker: 'SPX', timestamp: ts })
				}
			]
		});
	return { live, worker, push };
}

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
				gexChain,
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
				gexChain,
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
