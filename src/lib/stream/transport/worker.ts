/// <reference lib="webworker" />
/**
 * The decode worker (a module worker): owns the `/stream` WebSocket and runs StreamWorkerCore,
 * which posts coalesced updates as soon as it has read the frames that arrived (its own 0 ms
 * timer; see workerCore.ts).
 */
import type { PageToWorker } from './messages';
import { StreamRing } from '../ring/streamRing';
import { RING_LOCK_IDLE_MS, RingWriterLocks, type RingLocks } from '../ring/ringWriterLock';
import { StreamWorkerCore, type WorkerSocket } from './workerCore';

const scope = self as unknown as DedicatedWorkerGlobalScope;

const core = new StreamWorkerCore({
	post: (message, transfer) => scope.postMessage(message, transfer ?? []),
	openSocket: (url) => new WebSocket(url) as unknown as WorkerSocket,
	now: () => performance.now(),
	wallClock: () => performance.timeOrigin + performance.now(),
	setTimer: (fn, ms) => setTimeout(fn, ms),
	clearTimer: (h) => clearTimeout(h as ReturnType<typeof setTimeout>)
});

setInterval(() => core.postStats(), 1000);

// The ring is a convenience: without IndexedDB (private mode, quota) streaming goes on. One tab's
// worker writes each group (ringWriterLock.ts); without Web Locks (not a secure context) every
// tab's does, as before.
StreamRing.open().then(
	(ring) => {
		const locks = (navigator as Navigator & { locks?: RingLocks }).locks;
		const writer = new RingWriterLocks(ring, locks);
		setInterval(() => writer.sweep(), RING_LOCK_IDLE_MS / 2);
		core.setRecorder(writer);
	},
	() => undefined
);

scope.onmessage = (ev: MessageEvent<PageToWorker>) => core.handle(ev.data);
