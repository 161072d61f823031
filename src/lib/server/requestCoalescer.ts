/**
 * Request coalescing at the upstream's 1 s cadence: identical GETs that arrive while one is in
 * flight, or within `ttlMs` after it started, share that one upstream call and its response.
 * Polling faster than the data changes would only spend quota on identical bytes.
 *
 * Memory is bounded: a finished entry is dropped once its `ttlMs` has passed (swept on the next
 * call and by a timer when idle), and the finished results held are capped by count and bytes.
 */

export type CoalesceOutcome = 'miss' | 'shared' | 'hit';

interface Entry<T> {
	startedAt: number;
	promise: Promise<T>;
	settled: boolean;
	bytes: number;
}

export interface CoalescerOptions<T> {
	/** How long a call's result is reused, from the moment it was sent. */
	ttlMs?: number;
	/** Keys kept at most (old entries are dropped first). */
	maxEntries?: number;
	/** Bytes of finished results kept at most (per `sizeOf`). */
	maxBytes?: number;
	/** Size of a result in bytes (default: 0, only the count cap applies). */
	sizeOf?: (value: T) => number;
	now?: () => number;
}

export class Coalescer<T> {
	private readonly entries = new Map<string, Entry<T>>();
	private readonly ttlMs: number;
	private readonly maxEntries: number;
	private readonly maxBytes: number;
	private readonly sizeOf: (value: T) => number;
	private readonly now: () => number;
	private bytes = 0;
	private sweepTimer: NodeJS.Timeout | undefined;
	/** Upstream calls actually made (for the benchmark and the Account page). */
	calls = 0;

	constructor(options: CoalescerOptions<T> = {}) {
		this.ttlMs = options.ttlMs ?? 1000;
		this.maxEntries = options.maxEntries ?? 2000;
		this.maxBytes = options.maxBytes ?? Number.POSITIVE_INFINITY;
		this.sizeOf = options.sizeOf ?? (() => 0);
		this.now = options.now ?? Date.now;
	}

	/** Entries held (in flight or finished and still reusable). */
	get size(): number {
		return this.entries.size;
	}

	/** Bytes of finished results held. */
	get heldBytes(): number {
		return this.bytes;
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
		this.sweep(now);
		const existing = this.entries.get(key);
		if (existing && (!existing.settled || now - existing.startedAt < this.ttlMs)) {
			const outcome: CoalesceOutcome = existing.settled ? 'hit' : 'shared';
			return { value: await existing.promise, outcome };
		}
		if (existing) this.remove(key, existing);
		this.calls++;
		const entry: Entry<T> = { startedAt: now, promise: fetcher(), settled: false, bytes: 0 };
		// Insertion order is start order: the sweep stops at the first entry still fresh.
		this.entries.set(key, entry);
		this.evict();
		try {
			const value = await entry.promise;
			entry.settled = true;
			if (this.entries.get(key) === entry) {
				if (!reusable(value)) this.remove(key, entry);
				else {
					entry.bytes = this.sizeOf(value);
					this.bytes += entry.bytes;
					this.evict();
					this.scheduleSweep();
				}
			}
			return { value, outcome: 'miss' };
		} catch (err) {
			if (this.entries.get(key) === entry) this.remove(key, entry);
			throw err;
		}
	}

	private remove(key: string, entry: Entry<T>): void {
		this.entries.delete(key);
		this.bytes -= entry.bytes;
	}

	/** Drop finished entries whose ttl has passed (oldest first; in-flight ones are kept). */
	private sweep(now: number): void {
		for (const [key, entry] of this.entries) {
			if (now - entry.startedAt < this.ttlMs) break;
			if (entry.settled) this.remove(key, entry);
		}
	}

	private scheduleSweep(): void {
		if (this.sweepTimer) return;
		this.sweepTimer = setTimeout(() => {
			this.sweepTimer = undefined;
			this.sweep(this.now());
			if (this.bytes > 0 || this.entries.size > 0) this.scheduleSweep();
		}, this.ttlMs);
		this.sweepTimer.unref?.();
	}

	private evict(): void {
		if (this.entries.size <= this.maxEntries && this.bytes <= this.maxBytes) return;
		this.sweep(this.now());
		// Still over: drop the oldest finished results first, then the oldest of any kind.
		for (const [key, entry] of this.entries) {
			if (this.entries.size <= this.maxEntries && this.bytes <= this.maxBytes) return;
			if (entry.settled) this.remove(key, entry);
		}
		for (const [key, entry] of this.entries) {
			if (this.entries.size <= this.maxEntries) return;
			this.remove(key, entry);
		}
	}
}
