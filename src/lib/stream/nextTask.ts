/**
 * A point where a long piece of page work lets the browser run: the promise resolves in a new
 * task, so what ran before and what runs after are two tasks, with input, rendering and other
 * tasks free to run between them. Used where a whole-day view builds its data and then draws
 * it: each half stays under the 50 ms a long task starts at (issue 26).
 *
 * Chromium's scheduler.yield() where it exists (the continuation keeps its priority), else a
 * MessageChannel message (a task without setTimeout's clamping, and one fake timers leave
 * alone); setTimeout(0) where there is neither.
 */
export function nextTask(): Promise<void> {
	const scheduler = (globalThis as { scheduler?: { yield?: () => Promise<void> } }).scheduler;
	if (typeof scheduler?.yield === 'function') return scheduler.yield();
	if (typeof MessageChannel === 'function') {
		return new Promise((resolve) => {
			const channel = new MessageChannel();
			channel.port1.onmessage = () => {
				channel.port1.close();
				resolve();
			};
			channel.port2.postMessage(null);
		});
	}
	return new Promise((resolve) => setTimeout(resolve, 0));
}

/**
 * Runs `work` in a task after this one, unless the returned cancel ran first; cancel also runs
 * what `work` returned (an effect's cleanup). For start-up work that draws nothing (opening a
 * stream, a cache, a list to fetch): registered while the page hydrates, it would run in the
 * hydration's own task, and that task is the page's longest (issue 26: no task over 50 ms).
 */
export function inLaterTask(work: () => void | (() => void)): () => void {
	let cancelled = false;
	let cleanup: void | (() => void);
	void nextTask().then(() => {
		if (!cancelled) cleanup = work();
	});
	return () => {
		cancelled = true;
		cleanup?.();
	};
}
