/**
 * The one queue every history generation of the service goes through: at most `concurrency`
 * generations run at a time (each is a whole ticker-day of engine work and up to ~100 MB of
 * buffers), the rest wait in order, requests before background work. A job is identified by a
 * key, so concurrent requests for the same day share one generation. The queue can say where a
 * job stands (its position, its progress) and estimate when it will be done, from the cost of the
 * jobs ahead and the speed measured on the jobs that finished.
 *
 * Fair between accounts: the next request job is the oldest one of the account whose last job
 * started longest ago (one account queueing fifty days does not hold everyone else for an hour);
 * the account is the request's (queueOwner, set by the router once the key is checked). A
 * request job nobody asked about for abandonMs (plus the wait it was told) is dropped when its
 * turn comes: its client left, and the work would be for no one.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

/** The account a request runs for (the router enters it); jobs it submits count against it. */
export const queueOwner = new AsyncLocalStorage<string>();

/** The rejection of a request job dropped because nobody waited for it any more. */
export class AbandonedJobError extends Error {}

export type JobPriority = 'request' | 'background';

export interface JobStatus {
	state: 'queued' | 'running';
	/** 1-based place among the waiting jobs (0 once running). */
	position: number;
	/** Jobs waiting in total. */
	queued: number;
	/** Fraction of a running job done (0 while queued). */
	progress: number;
	/** Estimated milliseconds until the job is done. */
	etaMs: number;
}

interface Job<T = unknown> {
	key: string;
	priority: JobPriority;
	/** Work units (e.g. contracts x seconds), to estimate the duration before it is measured. */
	cost: number;
	run: (progress: (fraction: number) => void) => Promise<T>;
	promise: Promise<T>;
	resolve: (value: T) => void;
	reject: (err: unknown) => void;
	state: 'queued' | 'running';
	startedAt: number;
	progress: number;
	owner: string;
	/** A queued request job not asked about again by then is dropped at its turn. */
	wantedUntil: number;
}

export interface GenerationQueueOptions {
	concurrency: number;
	/** Initial guess of milliseconds per cost unit, replaced by measurements. */
	msPerUnit: number;
	now?: () => number;
	/** How long a queued request job is kept after it was last asked about (default 2 min). */
	abandonMs?: number;
}

export class GenerationQueue {
	private readonly waiting: Job[] = [];
	private readonly running = new Map<string, Job>();
	private msPerUnit: number;
	private readonly now: () => number;
	/** Most jobs ever running at once, and jobs started in all (tests, the benchmark). */
	peakRunning = 0;
	started = 0;
	/** Request jobs dropped because nobody asked about them any more. */
	abandoned = 0;
	/** When each account's last job started (fair turns). */
	private readonly lastStart = new Map<string, number>();

	constructor(private readonly options: GenerationQueueOptions) {
		if (!Number.isInteger(options.concurrency) || options.concurrency < 1)
			throw new RangeError(
				`history concurrency must be a positive integer, got ${options.concurrency}`
			);
		this.msPerUnit = options.msPerUnit;
		this.now = options.now ?? (() => performance.now());
	}

	get concurrency(): number {
		return this.options.concurrency;
	}

	/**
	 * The job's promise: a new job, or the one already queued or running under `key` (a request
	 * for a job queued as background work moves it to the requests).
	 */
	submit<T>(
		key: string,
		priority: JobPriority,
		cost: number,
		run: (progress: (fraction: number) => void) => Promise<T>
	): Promise<T> {
		const known = this.running.get(key) ?? this.waiting.find((j) => j.key === key);
		if (known) {
			this.want(known);
			if (known.state === 'queued' && priority === 'request' && known.priority === 'background') {
				this.waiting.splice(this.waiting.indexOf(known), 1);
				known.priority = 'request';
				this.enqueue(known);
			}
			return known.promise as Promise<T>;
		}
		let resolve!: (value: T) => void;
		let reject!: (err: unknown) => void;
		const promise = new Promise<T>((res, rej) => {
			resolve = res;
			reject = rej;
		});
		// A failed background job has no one waiting for it; its error must not go unhandled.
		promise.catch(() => undefined);
		const job: Job<T> = {
			key,
			priority,
			cost,
			run,
			promise,
			resolve,
			reject,
			state: 'queued',
			startedAt: 0,
			progress: 0,
			owner: queueOwner.getStore() ?? '',
			wantedUntil: 0
		};
		this.want(job as Job);
		this.enqueue(job as Job);
		this.pump();
		return promise;
	}

	/** Requests go behind other requests but ahead of every background job. */
	private enqueue(job: Job): void {
		if (job.priority === 'background') {
			this.waiting.push(job);
			return;
		}
		const firstBackground = this.waiting.findIndex((j) => j.priority === 'background');
		if (firstBackground < 0) this.waiting.push(job);
		else this.waiting.splice(firstBackground, 0, job);
	}

	/** Someone asked about `job` now (a submit, or where it stands). */
	private want(job: Job, waitMs = 0): void {
		const until = this.now() + (this.options.abandonMs ?? 120_000) + waitMs;
		job.wantedUntil = Math.max(job.wantedUntil, until);
	}

	/**
	 * The next job to start: a request job of the account whose last start is oldest (the
	 * earliest of its jobs), else the first background job. Request jobs nobody wants any more
	 * are dropped on the way.
	 */
	private next(): Job | undefined {
		const now = this.now();
		for (let i = this.waiting.length - 1; i >= 0; i--) {
			const job = this.waiting[i];
			if (job.priority === 'request' && now > job.wantedUntil) {
				this.waiting.splice(i, 1);
				this.abandoned++;
				job.reject(new AbandonedJobError(`${job.key}: no client waits for it any more`));
			}
		}
		let best = -1;
		for (let i = 0; i < this.waiting.length; i++) {
			const job = this.waiting[i];
			if (job.priority !== 'request') break;
			const turn = this.lastStart.get(job.owner) ?? -Infinity;
			if (best < 0 || turn < (this.lastStart.get(this.waiting[best].owner) ?? -Infinity)) best = i;
		}
		if (best < 0 && this.waiting.length > 0) best = 0;
		return best < 0 ? undefined : this.waiting.splice(best, 1)[0];
	}

	private pump(): void {
		while (this.running.size < this.options.concurrency && this.waiting.length > 0) {
			const job = this.next();
			if (!job) return;
			this.lastStart.set(job.owner, this.now());
			job.state = 'running';
			job.startedAt = this.now();
			this.running.set(job.key, job);
			this.peakRunning = Math.max(this.peakRunning, this.running.size);
			this.started++;
			// Started from a fresh task, so a synchronous throw in run() rejects like any failure.
			void Promise.resolve()
				.then(() => job.run((f) => (job.progress = Math.min(1, Math.max(0, f)))))
				.then(
					(value) => {
						this.learn(job);
						job.resolve(value);
					},
					(err: unknown) => job.reject(err)
				)
				.finally(() => {
					this.running.delete(job.key);
					this.pump();
				});
		}
	}

	private learn(job: Job): void {
		const elapsed = this.now() - job.startedAt;
		if (job.cost <= 0 || elapsed <= 0) return;
		// Mostly the last measurement: the machine's load changes faster than the model does.
		this.msPerUnit = 0.3 * this.msPerUnit + 0.7 * (elapsed / job.cost);
	}

	private remainingMs(job: Job): number {
		const expected = job.cost * this.msPerUnit;
		if (job.state === 'queued') return expected;
		const elapsed = this.now() - job.startedAt;
		// Once a good part is done, its own pace is the best estimate.
		if (job.progress >= 0.05) return Math.max(0, (elapsed / job.progress) * (1 - job.progress));
		return Math.max(0, expected - elapsed);
	}

	/** Where the job under `key` stands, or undefined when there is none. */
	status(key: string): JobStatus | undefined {
		const run = this.running.get(key);
		if (run)
			return {
				state: 'running',
				position: 0,
				queued: this.waiting.length,
				progress: run.progress,
				etaMs: this.remainingMs(run)
			};
		const index = this.waiting.findIndex((j) => j.key === key);
		if (index < 0) return undefined;
		const job = this.waiting[index];
		// Hand the jobs ahead to the slot that frees first, as the queue will.
		const slots = [...this.running.values()].map((j) => this.remainingMs(j));
		while (slots.length < this.options.concurrency) slots.push(0);
		for (let i = 0; i < index; i++) {
			slots.sort((a, b) => a - b);
			slots[0] += this.remainingMs(this.waiting[i]);
		}
		slots.sort((a, b) => a - b);
		const etaMs = slots[0] + this.remainingMs(job);
		// Asked about: kept at least until the client, told to come back after etaMs, can.
		this.want(job, etaMs);
		return {
			state: 'queued',
			position: index + 1,
			queued: this.waiting.length,
			progress: 0,
			etaMs
		};
	}

	/** Jobs running and waiting (for tests and the benchmark). */
	get size(): { running: number; waiting: number } {
		return { running: this.running.size, waiting: this.waiting.length };
	}
}
