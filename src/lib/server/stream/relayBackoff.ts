/**
 * The stream relay's retry delays (see relay.ts): exponential with equal jitter, so a POST
 * (which kicks every connection of the slot) is never retried in a tight loop.
 */
import type { StreamRelayOptions } from './relayOptions';

/** A failure this long after the previous one restarts the backoff from its base delay. */
const BACKOFF_RESET_MS = 5 * 60_000;

export class RelayBackoff {
	private attempt = 0;
	private lastFailureAt = 0;

	constructor(
		private readonly options: StreamRelayOptions,
		private readonly now: () => number,
		private readonly random: () => number
	) {}

	/** The next failure starts from the base delay again (a user's change, a take-back). */
	reset(): void {
		this.attempt = 0;
	}

	/** The delay (ms) before retrying after a failure now; at least `retryAfterMs` if given. */
	next(retryAfterMs: number | undefined): number {
		const base = this.options.backoff?.baseMs ?? 1000;
		const max = this.options.backoff?.maxMs ?? 60_000;
		// Failures far apart start from the base delay again; close together they keep growing.
		const now = this.now();
		if (now - this.lastFailureAt > BACKOFF_RESET_MS) this.attempt = 0;
		this.lastFailureAt = now;
		const exp = Math.min(max, base * 2 ** this.attempt);
		// Equal jitter: at least half the step, so many relays restarting together spread out.
		let delay = exp / 2 + (this.random() * exp) / 2;
		if (retryAfterMs) delay = Math.max(delay, retryAfterMs);
		this.attempt++;
		return delay;
	}
}
