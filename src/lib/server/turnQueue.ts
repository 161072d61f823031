/**
 * Pieces of work that together would hold the event loop for long, run one per turn of it: a
 * burst of 32 /history answers each encoding its next 256 KB chunk finished their file reads
 * in the same poll phase and ran back to back, so a /healthz probe waited 0.4 s behind them.
 * Queued here, each piece starts in a later turn (setImmediate) than the one before it ended,
 * so sockets, timers and probes are served between pieces, at the cost of one turn per piece.
 */
export class TurnQueue {
	private tail: Promise<void> = Promise.resolve();

	/** Runs `work` once every piece queued before it has ended, in a later event-loop turn. */
	run<T>(work: () => Promise<T>): Promise<T> {
		const result = this.tail.then(() => new Promise<void>((r) => setImmediate(r))).then(work);
		this.tail = result.then(
			() => undefined,
			() => undefined
		);
		return result;
	}
}
