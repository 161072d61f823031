/**
 * Bundled by bench/backfill.bench.ts for Chromium: one view opening on a recorded SPX day, the
 * way the app does it, before and after the streamed backfill.
 *
 * - before: the previous worker (bench/time.worker-entry.ts: fetch the whole body, decode it,
 *   post every update in one message);
 * - after: the app's own client and worker (fetchBackfill -> src/lib/stream/backfill/backfillWorker.ts,
 *   served at /backfillWorker.ts where the client's `new URL(...)` looks for it).
 *
 * Then the page's work before its first paint: Classic turns the updates into its timeline and
 * the day's last chain (backfillChunker's chunksOf, replayTimeline), Orderflow fills its session
 * series. Measured: request to first paint, the worker's decode time, and the main thread's
 * longest task (the largest gap between ticks of a MessageChannel heartbeat, so blocks under the
 * 50 ms long-task threshold count too).
 */
import { chunksOf } from '../src/lib/stream/backfill/backfillChunker';
import { framesOf, frameChain, sessionFrames } from '../src/lib/stream/backfill/replayTimeline';
import { DaySeries, flowValues } from '../src/lib/stream/series/orderflowSeries';
import {
	fetchBackfill,
	backfillUrl,
	type BackfillQuery
} from '../src/lib/stream/backfill/backfillClient';
import type { StreamUpdate } from '../src/lib/stream/transport/updates';

type View = 'classic' | 'orderflow';

/** Largest gap between heartbeat ticks while running (a task holding the main thread). */
function heartbeat(): () => number {
	const channel = new MessageChannel();
	let last = performance.now();
	let longest = 0;
	let running = true;
	channel.port1.onmessage = () => {
		const now = performance.now();
		longest = Math.max(longest, now - last);
		last = now;
		if (running) setTimeout(() => channel.port2.postMessage(0), 0);
	};
	channel.port2.postMessage(0);
	return () => {
		running = false;
		return longest;
	};
}

const nextPaint = () => new Promise<void>((r) => requestAnimationFrame(() => setTimeout(r, 0)));

/**
 * What a view does with backfilled updates before it can draw: Classic its timeline (ring
 * chunks, frames, the day's last chain), Orderflow its session series. `add` takes a batch (or
 * the whole day at once); `done` gives a checksum both paths must agree on.
 */
function viewOf(view: View) {
	if (view === 'classic') {
		const chunks: ReturnType<typeof chunksOf> = [];
		return {
			add: (updates: readonly StreamUpdate[]) =>
				chunks.push(...chunksOf('SPX_classic_gex_full', updates)),
			done: () => {
				const frames = sessionFrames(framesOf(chunks));
				const last = frames.at(-1);
				return last ? frames.length + frameChain(last, 'SPX').spot : 0;
			}
		};
	}
	const series = new DaySeries();
	return {
		add: (updates: readonly StreamUpdate[]) => {
			for (const u of updates) {
				if (u.kind === 'orderflow') series.append(u.timestamp, flowValues(u.value));
			}
		},
		done: () => series.length
	};
}

/** Runs `fn`, timing it into `longest`. */
function timed<T>(longest: { ms: number }, fn: () => T): T {
	const t = performance.now();
	const out = fn();
	longest.ms = Math.max(longest.ms, performance.now() - t);
	return out;
}

async function before(view: View, stream: string, query: BackfillQuery, workerUrl: string) {
	const stop = heartbeat();
	const started = performance.now();
	const worker = new Worker(workerUrl, { type: 'module' });
	const reply = await new Promise<{ updates: StreamUpdate[]; decodeMs: number }>((resolve) => {
		worker.onmessage = (ev) => resolve(ev.data);
		worker.postMessage({ url: new URL(backfillUrl('SPX', stream, query), location.href).href });
	});
	const v = viewOf(view);
	const consume = { ms: 0 };
	const check = timed(consume, () => (v.add(reply.updates), v.done()));
	await nextPaint();
	const completeMs = performance.now() - started;
	worker.terminate();
	return {
		firstPaintMs: completeMs,
		completeMs,
		workerDecodeMs: reply.decodeMs,
		longestTaskMs: stop(),
		consumeMs: consume.ms,
		updates: reply.updates.length,
		batches: 1,
		check
	};
}

/**
 * The app's client and worker. `batched`: the view takes the updates batch by batch
 * (fetchBackfill's onBatch) and paints after the first; else it gets the day in the result.
 */
async function after(view: View, stream: string, query: BackfillQuery, batched: boolean) {
	const stop = heartbeat();
	const started = performance.now();
	const v = viewOf(view);
	const consume = { ms: 0 };
	let batches = 0;
	let count = 0;
	let firstPaint: Promise<number> | undefined;
	const result = await fetchBackfill('SPX', stream, query, {
		onProgress: () => batches++,
		onBatch: batched
			? (updates) => {
					count += updates.length;
					timed(consume, () => v.add(updates));
					firstPaint ??= nextPaint().then(() => performance.now() - started);
				}
			: undefined
	});
	count += result.updates.length;
	const check = timed(consume, () => (v.add(result.updates), v.done()));
	await nextPaint();
	const completeMs = performance.now() - started;
	return {
		// Classic on a past day draws the day's last chain, known only at the end.
		firstPaintMs: view === 'orderflow' && firstPaint ? await firstPaint : completeMs,
		completeMs,
		workerDecodeMs: result.decodeMs,
		longestTaskMs: stop(),
		consumeMs: consume.ms,
		updates: count,
		batches: batches + 1,
		check
	};
}

(globalThis as Record<string, unknown>).backfillBench = { before, after };
