/**
 * A token bucket: `capacity` tokens, refilled at `perSecond`; take() spends one when there is
 * one. Used to bound how fast one client may make the server work (e.g. /stream control
 * messages), with bursts up to the capacity.
 */
export class TokenBucket {
	private tokens: number;
	private last: number;

	constructor(
		readonly capacity: number,
		readonly perSecond: number,
		private readonly now: () => number = () => performance.now()
	) {
		this.tokens = capacity;
		this.last = now();
	}

	/** Spends a token: true when there was one. */
	take(): boolean {
		const t = this.now();
		this.tokens = Math.min(this.capacity, this.tokens + ((t - this.last) / 1000) * this.perSecond);
		this.last = t;
		if (this.tokens < 1) return false;
		this.tokens -= 1;
		return true;
	}
}
