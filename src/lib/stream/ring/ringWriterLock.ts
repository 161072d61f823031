/**
 * One ring writer per group across the tabs. Every open tab's decode worker receives the same
 * frames, and each wrote them all to the one shared IndexedDB ring, merging with what the others
 * had written (ringMerge.ts): ten tabs on Classic SPX were ten copies of the same writes in the
 * workers and in the browser's IndexedDB backend, where one suffices (`npm run bench -- latency`).
 *
 * A worker records a group only while it holds that group's Web Lock (`navigator.locks`,
 * exclusive, origin-wide). The first update of a group asks for the lock if it is free
 * (`ifAvailable`), and what arrives until the answer is kept (copied: the worker transfers the
 * arrays to its page) and written if the lock is granted, so the first writer misses nothing.
 * A tab that finds the lock taken queues for it, and takes over from its next update once the
 * writer lets go: when the writer's updates of that group stop (RING_LOCK_IDLE_MS after the last:
 * its tab left that view) or, by the browser, when its worker ends with its tab. What the old
 * writer had not yet checkpointed (at most the ring's checkpoint interval) is then not in the
 * ring: it is a cache of what was seen, not the recording (the dashboard server keeps that).
 * Without Web Locks every worker writes, as before.
 */
import type { StreamUpdate } from '../transport/updates';

/** The part of the Web Locks API used here (navigator.locks in a page or a worker). */
export interface RingLocks {
	request(
		name: string,
		options: { ifAvailable?: boolean },
		callback: (lock: unknown) => Promise<void>
	): Promise<void>;
}

export interface RingSink {
	record(update: StreamUpdate): void;
}

export const RING_LOCK_PREFIX = 'gexdeck-ring-writer:';
/** A group whose updates stopped this long ago is let go for another tab to write. */
export const RING_LOCK_IDLE_MS = 10_000;
/** Updates kept while the first answer for a group's lock is awaited (a few ms: one or two). */
export const RING_LOCK_PROBE_KEPT = 8;

export class RingWriterLocks implements RingSink {
	/** Groups this worker writes, with what lets their lock go. */
	private readonly held = new Map<string, () => void>();
	/** Groups whose first lock answer is awaited, with the updates kept meanwhile. */
	private readonly probing = new Map<string, StreamUpdate[]>();
	/** Groups queued for the lock behind another tab's writer. */
	private readonly queued = new Set<string>();
	/** When each group's last update arrived here. */
	private readonly seen = new Map<string, number>();

	constructor(
		private readonly ring: RingSink,
		private readonly locks: RingLocks | undefined,
		private readonly now: () => number = () => Date.now(),
		private readonly copy: (u: StreamUpdate) => StreamUpdate = (u) => structuredClone(u)
	) {}

	/** Whether this worker writes `group` now. */
	writes(group: string): boolean {
		return this.locks === undefined || this.held.has(group);
	}

	record(u: StreamUpdate): void {
		if (!this.locks) return this.ring.record(u);
		const group = u.group;
		this.seen.set(group, this.now());
		if (this.held.has(group)) return this.ring.record(u);
		const kept = this.probing.get(group);
		if (kept) {
			if (kept.length < RING_LOCK_PROBE_KEPT) kept.push(this.copy(u));
			return;
		}
		if (this.queued.has(group)) return;
		this.probing.set(group, [this.copy(u)]);
		this.locks
			.request(RING_LOCK_PREFIX + group, { ifAvailable: true }, (lock) => {
				const updates = this.probing.get(group) ?? [];
				this.probing.delete(group);
				if (lock === null) {
					this.queue(group);
					return Promise.resolve();
				}
				return this.hold(group, updates);
			})
			.catch(() => this.probing.delete(group));
	}

	/** Lets go of the groups whose updates stopped arriving (call every few seconds). */
	sweep(): void {
		for (const [group, release] of this.held) {
			if (!this.idle(group)) continue;
			this.held.delete(group);
			release();
		}
	}

	/** Waits behind the writer of `group`; once granted, writes from the next update on. */
	private queue(group: string): void {
		this.queued.add(group);
		this.locks!.request(RING_LOCK_PREFIX + group, {}, () => {
			this.queued.delete(group);
			// Granted after waiting for a group no longer seen here: let it go at once.
			return this.idle(group) ? Promise.resolve() : this.hold(group, []);
		}).catch(() => this.queued.delete(group));
	}

	/** Holds the lock of `group` until sweep() lets it go, writing `updates` first. */
	private hold(group: string, updates: StreamUpdate[]): Promise<void> {
		return new Promise<void>((release) => {
			this.held.set(group, release);
			for (const u of updates) {
				try {
					this.ring.record(u);
				} catch {
					// A failing ring must not stop the live view (as the worker's own call).
				}
			}
		});
	}

	private idle(group: string): boolean {
		return this.now() - (this.seen.get(group) ?? Number.NEGATIVE_INFINITY) >= RING_LOCK_IDLE_MS;
	}
}
