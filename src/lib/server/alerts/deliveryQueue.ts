/**
 * The one queue every webhook delivery attempt of the process waits in: at most `concurrency`
 * attempts in flight, at most `maxQueued` waiting; when full, the oldest waiting attempt is
 * dropped (counted, and told through its onDrop) so a burst of firings can never open more
 * connections or hold more memory than these bounds.
 */

export interface QueueStats {
	inFlight: number;
	queued: number;
	/** Attempts dropped because the queue was full, since the server started. */
	dropped: number;
	concurrency: number;
	maxQueued: number;
}

interface Job {
	run: () => Promise<void>;
	onDrop: () => void;
}

export class DeliveryQueue {
	private readonly waiting: Job[] = [];
	private inFlight = 0;
	private dropped = 0;

	constructor(
		readonly concurrency = 4,
		readonly maxQueued = 200
	) {}

	/** Runs `run` when a slot is free; calls `onDrop` instead if it is pushed out while waiting. */
	push(run: () => Promise<void>, onDrop: () => void): void {
		this.waiting.push({ run, onDrop });
		while (this.waiting.length > this.maxQueued) {
			this.dropped++;
			this.waiting.shift()!.onDrop();
		}
		this.pump();
	}

	/** Drops every waiting job (each told through its onDrop), e.g. at shutdown. */
	clear(): void {
		for (const job of this.waiting.splice(0)) job.onDrop();
	}

	stats(): QueueStats {
		return {
			inFlight: this.inFlight,
			queued: this.waiting.length,
			dropped: this.dropped,
			concurrency: this.concurrency,
			maxQueued: this.maxQueued
		};
	}

	private pump(): void {
		while (this.inFlight < this.concurrency && this.waiting.length > 0) {
			const job = this.waiting.shift()!;
			this.inFlight++;
			void job
				.run()
				.catch(() => undefined)
				.finally(() => {
					this.inFlight--;
					this.pump();
				});
		}
	}
}
