/**
 * The dashboard's imports (past days downloaded from the service's history, EOD reports opened)
 * run a few at a time: each is streamed, but two dozen at once would still be two dozen
 * downloads, gunzips and disk writers competing with the relay. The rest wait in order, and a
 * waiting request can say where its import stands (its place, or how far the running one got).
 * A queued import nobody asked about for a while (the page went elsewhere) is dropped when its
 * turn comes, and the queue has a length limit: past it an import is refused at once.
 */

export type ImportStatus =
	{ state: 'queued'; position: number; queued: number } | { state: 'running'; progress: number };

export class ImportQueueFullError extends Error {}
export class ImportAbandonedError extends Error {}

interface Entry {
	key: string;
	start: () => void;
	drop: (err: Error) => void;
	askedAt: number;
}

export interface ImportQueueOptions {
	/** Imports running at once (default 1). */
	concurrency?: number;
	/** Imports waiting at most (default 64). */
	maxQueued?: number;
	/** A waiting import not asked about for this long is dropped at its turn (default 2 min). */
	abandonAfterMs?: number;
	now?: () => number;
}

export class ImportQueue {
	private readonly waiting: Entry[] = [];
	private readonly progress = new Map<string, number>();
	private running = 0;
	private readonly now: () => number;

	constructor(private readonly options: ImportQueueOptions = {}) {
		this.now = options.now ?? Date.now;
	}

	/** Imports running now. */
	get active(): number {
		return this.running;
	}

	/**
	 * Runs `task` when a slot is free (at once if one is); `task` reports its progress (0..1).
	 * Rejects with ImportQueueFullError when too many wait, ImportAbandonedError when nobody
	 * asked about it (status) while it waited.
	 */
	run<T>(key: string, task: (progress: (fraction: number) => void) => Promise<T>): Promise<T> {
		return new Promise<T>((resolve, reject) => {
			const start = () => {
				this.running++;
				this.progress.set(key, 0);
				task((f) => this.progress.set(key, Math.min(1, Math.max(0, f))))
					.then(resolve, reject)
					.finally(() => {
						this.running--;
						this.progress.delete(key);
						this.next();
					});
			};
			if (this.running < (this.options.concurrency ?? 1)) return start();
			if (this.waiting.length >= (this.options.maxQueued ?? 64)) {
				reject(new ImportQueueFullError(`${this.waiting.length} imports are already waiting`));
				return;
			}
			this.waiting.push({ key, start, drop: reject, askedAt: this.now() });
		});
	}

	/** Where `key`'s import stands (undefined when it is neither waiting nor running); a call
	 * counts as someone still waiting for it. */
	status(key: string): ImportStatus | undefined {
		const running = this.progress.get(key);
		if (running !== undefined) return { state: 'running', progress: running };
		const i = this.waiting.findIndex((e) => e.key === key);
		if (i < 0) return undefined;
		this.waiting[i].askedAt = this.now();
		return { state: 'queued', position: i + 1, queued: this.waiting.length };
	}

	private next(): void {
		const limit = this.options.abandonAfterMs ?? 120_000;
		while (this.running < (this.options.concurrency ?? 1) && this.waiting.length > 0) {
			const entry = this.waiting.shift()!;
			if (this.now() - entry.askedAt > limit) {
				entry.drop(new ImportAbandonedError('nobody waited for this import any more'));
				continue;
			}
			entry.start();
		}
	}
}

let shared: ImportQueue | undefined;

/** The dashboard's one import queue: history days and EOD reports, one at a time. */
export function importQueue(): ImportQueue {
	shared ??= new ImportQueue({ concurrency: 1 });
	return shared;
}
