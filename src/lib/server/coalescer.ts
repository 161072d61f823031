/**
 * Request coalescing at the upstream's 1 s cadence: identical GETs that arrive while one is in
 * flight, or within `ttlMs` after it started, share that one upstream call and its response.
 * Polling faster than the data changes would only spend quota on identical bytes.
 */

export type CoalesceOutcome = 'miss' | 'shared' | 'hit';

interface Entry<T> {
	startedAt: number;
	promise: Promise<T>;
	settled: boolean;
}

export interface CoalescerOptions {
	/** How long a call's result is reused, from the moment it was sent. */
	ttlMs?: number;
	/** Keys kept at most (old entries are dropped first). */
	maxEntries?: number;
	now?: () => number;
}

export class Coalescer<T> {
	private readonly entries = new Map<string, Entry<T>>();
	private readonly ttlMs: number;
	private readonly maxEntries: number;
	private readonly now: () => number;
	/** Upstream calls actually made (for the benchmark and the Account page). */
	calls = 0;

	constructor(options: CoalescerOptions = {}) {
		this.ttlMs = options.ttlMs ?? 1000;
		this.maxEntries = options.maxEntries ?? 2000;
		this.now = options.now ?? Date.now;
	}

	/**
	 * The shared result for `key`, calling `fetcher` only when nothing usable exists.
	 * `reusable(result)` decides whether a settled result may serve later callers; a rejected
	 * call is never reused.
	 */
	async run(
		key: string,
		fetcher: () => Promise<T>,
		reusable: (result: T) => boolean = () => true
	): Promise<{ value: T; outcome: CoalesceOutcome }> {
		const now = this.now();
		const existing = this.entries.get(key);
		if (existing && (!existing.settled || now - existing.startedAt < this.ttlMs)) {
			const outcome: CoalesceOutcome = existing.settled ? 'hit' : 'shared';
			return { value: await existing.promise, outcome };
		}
		this.calls++;
		const entry: Entry<T> = { startedAt: now, promise: fetcher(), settled: false };
		this.entries.set(key, entry);
		this.evict();
		try {
			const value = await entry.promise;
			entry.settled = true;
			if (!reusable(value) && this.entries.get(key) === entry) this.entries.delete(key);
			return { value, outcome: 'miss' };
		} catch (err) {
			if (this.entries.get(key) === entry) this.entries.delete(key);
			throw err;
		}
	}

	private evict(): void {
		if (this.entries.size <= this.maxEntries) return;
		const now = this.now();
		for (const [key, entry] of this.entries) {
			if (entry.settled && now - entry.startedAt >= this.ttlMs) this.entries.delete(key);
		}
		// Still full of live entries: drop the oldest (Map iterates in insertion order).
		for (const key of this.entries.keys()) {
			if (this.entries.size <= this.maxEntries) break;
			this.entries.delete(key);
		}
	}
}
