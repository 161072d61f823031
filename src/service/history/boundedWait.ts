/**
 * A history request's wait on its generation job (see historyStore.ts): bounded by the
 * client-facing wait, answered with the job's place and estimate (HistoryPendingError) past it.
 */
import { HistoryPendingError, HistoryUnavailableError } from '../source';
import type { GenerationQueue, JobStatus } from './generationQueue';

/**
 * Wait for a job within the client-facing bound. A job still queued whose estimated end is
 * past the bound is answered at once with its place and wait; one running (or soon to run)
 * is waited for up to waitMs. Either way the job goes on and its result is kept.
 */
export function boundedWait<T>(
	queue: GenerationQueue,
	waitMs: number,
	key: string,
	job: Promise<T>,
	what: string,
	signal?: AbortSignal
): Promise<T> {
	const status = queue.status(key);
	if (status && status.state === 'queued' && status.etaMs > waitMs)
		return Promise.reject(pendingError(what, status));
	return new Promise<T>((resolve, reject) => {
		const timer = setTimeout(() => {
			cleanup();
			const now = queue.status(key);
			reject(
				pendingError(
					what,
					now ?? { state: 'running', position: 0, queued: 0, progress: 1, etaMs: 0 }
				)
			);
		}, waitMs);
		const onAbort = () => {
			cleanup();
			reject(new HistoryUnavailableError('Request aborted.', 503));
		};
		const cleanup = () => {
			clearTimeout(timer);
			signal?.removeEventListener('abort', onAbort);
		};
		signal?.addEventListener('abort', onAbort, { once: true });
		job.then(
			(value) => {
				cleanup();
				resolve(value);
			},
			(err: unknown) => {
				cleanup();
				reject(err instanceof Error ? err : new Error(String(err)));
			}
		);
	});
}

function pendingError(what: string, status: JobStatus): HistoryPendingError {
	const etaSeconds = Math.max(1, Math.ceil(status.etaMs / 1000));
	if (status.state === 'queued')
		return new HistoryPendingError(
			`History for ${what} is queued (position ${status.position} of ${status.queued}); estimated wait ${etaSeconds} s, retry then.`,
			{ state: 'queued', position: status.position, progress: 0, etaSeconds }
		);
	return new HistoryPendingError(
		`History for ${what} is still being generated (${Math.round(status.progress * 100)}% done); retry in ${etaSeconds} s.`,
		{ state: 'generating', position: 0, progress: status.progress, etaSeconds }
	);
}
