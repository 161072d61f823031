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
