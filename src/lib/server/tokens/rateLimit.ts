/**
 * Per-token rate limit for the feed: a token bucket per token id. A platform polling every
 * second uses a fifth of the default rate; a runaway loop (an indicator redrawing on every tick)
 * gets 429 with Retry-After instead of taking the dashboard's CPU from everyone else.
 */
export interface RateLimitOptions {
	/** Requests a token may make at once after a pause. */
	burst: number;
	/** Sustained requests per second. */
	perSecond: number;
}

export const FEED_RATE_LIMIT: RateLimitOptions = { burst: 10, perSecond: 5 };

export type RateVerdict = { ok: true } | { ok: false; retryAfterSeconds: number };

export class RateLimiter {
	private readonly buckets = new Map<string, { tokens: number; at: number }>();

	constructor(
		private readonly options: RateLimitOptions = FEED_RATE_LIMIT,
		private readonly now: () => number = Date.now
	) {}

	take(key: string): RateVerdict {
		const now = this.now();
		const { burst, perSecond } = this.options;
		const b = this.buckets.get(key) ?? { tokens: burst, at: now };
		b.tokens = Math.min(burst, b.tokens + ((now - b.at) / 1000) * perSecond);
		b.at = now;
		this.buckets.set(key, b);
		if (b.tokens >= 1) {
			b.tokens -= 1;
			return { ok: true };
		}
		return { ok: false, retryAfterSeconds: Math.max(1, Math.ceil((1 - b.tokens) / perSecond)) };
	}

	/** Forgets a key (a revoked token). */
	forget(key: string): void {
		this.buckets.delete(key);
	}
}
