/**
 * Bundled by bench/backfill.bench.ts for Chromium: one view opening on a recorded SPX day, the
 * way the app does it, before and after the streamed backfill.
 *
 * - before: the previous worker (bench/time.worker-entry.ts: fetch the whole body, decode it,
 *   post every update in one message);
 * - after: the app's own client and worker (fetchBackfill -> src/lib/stream/backfillWorker.ts,
 *   served at /backfillWorker.ts where the client's `new URL(...)` looks for it).
 *
 * Then the page's work before its first paint: Classic turns the updates into its timeline and
 * the day's last chain (sessionReplay's chunksOf, replayTimeline), Orderflow fills its session
 * series. Measured: request to first paint, the worker's decode time, and the main thread's
 * longest task (the largest gap between ticks of a MessageChannel heartbeat, so blocks under the
 * 50 ms long-task threshold count too).
 */
import { chunksOf } from '../src/routes/[ticker]/classic/[category]/sessionReplay.svelte';
import { framesOf, frameChain, sessionFrames } from '../src/lib/stream/replayTimeline';
import { DaySeries, flowValues } from '../src/lib/stream/orderflowSeries';
import { fetchBackfill, backfillUrl, type BackfillQuery } from '../src/lib/stream/backfillClient';
import type { StreamUpdate } from '../src/lib/stream/updates';

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

/** What the view computes from the backfill before it can draw; returns a checksum. */
function consume(view: View, updates: readonly StreamUpdate[]): number {
	if (view === 'classic') {
		const frames = sessionFrames(framesOf(chunksOf('SPX_classic_gex_full', updates)));
		const last = frames.at(-1);
		return last ? frames.length + frameChain(last, 'SPX').spot : 0;
	}
	const series = new DaySeries();
	for (const u of updates)
		if (u.kind === 'orderflow') series.append(u.timestamp, flowValues(u.value));
	return series.length;
}

async function before(view: View, stream: string, query: BackfillQuery, workerUrl: string) {
	const stop = heartbeat();
	const started = performance.now();
	const worker = new Worker(workerUrl, { type: 'module' });
	const reply = await new Promise<{ updates: StreamUpdate[]; decodeMs: number }>((resolve) => {
		worker.onmessage = (ev) => resolve(ev.data);
		worker.postMessage({ url: new URL(backfillUrl('SPX', stream, query), location.href).href });
	});
	const check = consume(view, reply.updates);
	await nextPaint();
	const firstPaintMs = performance.now() - started;
	worker.terminate();
	return {
		firstPaintMs,
		workerDecodeMs: reply.decodeMs,
		longestTaskMs: stop(),
		updates: reply.updates.length,
		batches: 1,
		check
	};
}

async function after(view: View, stream: string, query: BackfillQuery) {
	const stop = heartbeat();
	const started = performance.now();
	let batches = 0;
	const result = await fetchBackfill('SPX', stream, query, { onProgress: () => batches++ });
	const check = consume(view, result.updates);
	await nextPaint();
	return {
		firstPaintMs: performance.now() - started,
		workerDecodeMs: result.decodeMs,
		longestTaskMs: stop(),
		updates: result.updates.length,
		batches: batches + 1,
		check
	};
}

(globalThis as Record<string, unknown>).backfillBench = { before, after };
