/// <reference lib="webworker" />
/**
 * The decode worker (a module worker): owns the `/stream` WebSocket and runs StreamWorkerCore,
 * which posts coalesced updates as soon as it has read the frames that arrived (its own 0 ms
 * timer; see workerCore.ts).
 */
import type { PageToWorker } from './messages';
import { StreamRing } from '../ring/streamRing';
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

// The ring is a convenience: without IndexedDB (private mode, quota) streaming goes on.
StreamRing.open().then(
	(recorder) => core.setRecorder(recorder),
	() => undefined
);

scope.onmessage = (ev: MessageEvent<PageToWorker>) => core.handle(ev.data);
