/**
 * Tick-to-pixel marks (bench/latency.bench.ts): when a page sets `globalThis.__gexdeckLatencyMarks`
 * (the bench does, before the page loads), every streamed update is marked in the animation frame
 * after the page applied it (Svelte has flushed its DOM and canvas by then: that frame paints
 * it), with the stamps of where its time went: arrival in the worker, posting from the worker,
 * arrival on the main thread (before the page's handler), applied (after the handler and the
 * Svelte flush it queued: a microtask queued behind it). Off (one property read per batch) for
 * everyone else.
 */
import type { StreamUpdate } from './updates';

export const PAINTED_MARK = 'gexdeck:painted';

export interface PaintedDetail {
	group: string;
	/** The frame's data time (unix s): the key to the service's publish time of it. */
	timestamp: number;
	/**
	 * Wall clock ms: in the worker, posted by it, on the main thread, applied by the page (its
	 * update and the Svelte flush that draws it), in the painting frame.
	 */
	receivedAt?: number;
	postedAt?: number;
	arrivedAt: number;
	appliedAt: number;
	paintedAt: number;
}

const wall = () => performance.timeOrigin + performance.now();

const marking = () => !!(globalThis as { __gexdeckLatencyMarks?: boolean }).__gexdeckLatencyMarks;

/** The arrival stamp of a batch on the main thread, before the page handles it (0 when off). */
export function latencyArrival(): number {
	return marking() ? wall() : 0;
}

/** Called right after the page handled the batch that arrived at `arrivedAt`. */
export function markPaintedFrame(
	batch: {
		updates: readonly StreamUpdate[];
		receivedAt?: number;
		postedAt?: number;
	},
	arrivedAt: number
): void {
	if (!marking()) return;
	const frames = batch.updates.map((u) => ({ group: u.group, timestamp: u.timestamp }));
	let appliedAt = wall();
	// Queued after the handler's state changes: runs after the Svelte flush they scheduled.
	queueMicrotask(() => (appliedAt = wall()));
	requestAnimationFrame(() => {
		const paintedAt = wall();
		for (const f of frames) {
			const detail: PaintedDetail = {
				...f,
				receivedAt: batch.receivedAt,
				postedAt: batch.postedAt,
				arrivedAt,
				appliedAt,
				paintedAt
			};
			performance.mark(PAINTED_MARK, { detail });
		}
	});
}
