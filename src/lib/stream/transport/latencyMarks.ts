/**
 * Tick-to-pixel marks (bench/latency.bench.ts): when a page sets `globalThis.__gexdeckLatencyMarks`
 * (the bench does, before the page loads), every streamed update is marked in the animation frame
 * after the page applied it (Svelte has flushed its DOM and canvas by then: that frame paints
 * it), with the stamps of where its time went: arrival in the worker, posting from the worker,
 * arrival on the main thread. Off (one property read per batch) for everyone else.
 */
import type { StreamUpdate } from './updates';

export const PAINTED_MARK = 'gexdeck:painted';

export interface PaintedDetail {
	group: string;
	/** The frame's data time (unix s): the key to the service's publish time of it. */
	timestamp: number;
	/** Wall clock ms: in the worker, posted by it, on the main thread, in the painting frame. */
	receivedAt?: number;
	postedAt?: number;
	arrivedAt: number;
	paintedAt: number;
}

const wall = () => performance.timeOrigin + performance.now();

export function markPaintedFrame(batch: {
	updates: readonly StreamUpdate[];
	receivedAt?: number;
	postedAt?: number;
}): void {
	if (!(globalThis as { __gexdeckLatencyMarks?: boolean }).__gexdeckLatencyMarks) return;
	const arrivedAt = wall();
	const frames = batch.updates.map((u) => ({ group: u.group, timestamp: u.timestamp }));
	requestAnimationFrame(() => {
		const paintedAt = wall();
		for (const f of frames) {
			const detail: PaintedDetail = {
				...f,
				receivedAt: batch.receivedAt,
				postedAt: batch.postedAt,
				arrivedAt,
				paintedAt
			};
			performance.mark(PAINTED_MARK, { detail });
		}
	});
}
