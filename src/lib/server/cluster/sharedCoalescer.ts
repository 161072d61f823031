/**
 * Coalescing of identical upstream GETs across replicas: one upstream call per key and cadence
 * (1 s) in the whole cluster. The first replica to set the key's lock in Redis (SET NX) makes
 * the call and stores the answer under the call's id for a few seconds; the others read the
 * lock's call id and wait for that answer. The lock lives until `ttlMs` after the call started
 * (or until it ends, for a slow one), so a later request within the cadence reads the stored
 * answer. A winner that dies leaves a lock that expires: a waiter then takes the call itself.
 * Each replica keeps its own Coalescer in front, so one Redis round serves all its sharers.
 */
import { createHash, randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { UpstreamResponse } from '../httpClient';
import { guarded } from './redis';

export type SharedOutcome = 'miss' | 'shared' | 'hit';

/** Delete or shorten the lock only while it is still ours. */
const RELEASE = `
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
if tonumber(ARGV[2]) <= 0 then return redis.call('DEL', KEYS[1]) end
return redis.call('PEXPIRE', KEYS[1], ARGV[2])
`;

/** How long a stored answer stays readable for the waiters of its call. */
const ANSWER_MS = 5_000;
const POLL_MS = 10;

interface StoredAnswer {
	status: number;
	contentType?: string;
	headers: Record<string, string>;
	body: string;
}

/** The winner's call failed without an answer; the waiters fail with its message. */
export class SharedCallError extends Error {
	constructor(
		message: string,
		readonly kind: string
	) {
		super(message);
	}
}

export class SharedCoalescer {
	private readonly replica = randomUUID().slice(0, 8);
	private seq = 0;
	/** Upstream calls this replica made through the shared layer. */
	calls = 0;

	constructor(
		private readonly redis: Redis,
		private readonly prefix = 'gexdeck:coalesce'
	) {}

	private lockKey(key: string): string {
		return `${this.prefix}:lock:${createHash('sha256').update(key).digest('base64url')}`;
	}

	/**
	 * The cluster's one answer for `key`: made here by `fetcher` when no replica holds the key,
	 * else read from the replica that does. `timeoutMs` bounds the call (the lock outlives it);
	 * an answer that is not `reusable` releases the lock at once.
	 */
	async run(
		key: string,
		ttlMs: number,
		timeoutMs: number,
		fetcher: () => Promise<UpstreamResponse>,
		reusable: (r: UpstreamResponse) => boolean,
		errorKind: (err: unknown) => string = () => 'error'
	): Promise<{ value: UpstreamResponse; outcome: SharedOutcome }> {
		const lock = this.lockKey(key);
		const deadline = Date.now() + timeoutMs + 2_000;
		for (;;) {
			const id = `${this.replica}:${++this.seq}`;
			const won = await guarded(() => this.redis.set(lock, id, 'PX', timeoutMs + 2_000, 'NX'));
			if (won === 'OK')
				return {
					value: await this.call(lock, id, ttlMs, fetcher, reusable, errorKind),
					outcome: 'miss'
				};
			const holder = await guarded(() => this.redis.get(lock));
			if (holder) {
				const stored = await this.waitFor(holder, lock, deadline);
				if (stored) return stored;
			}
			if (Date.now() > deadline) throw new SharedCallError('shared call timed out', 'timeout');
		}
	}

	private async call(
		lock: string,
		id: string,
		ttlMs: number,
		fetcher: () => Promise<UpstreamResponse>,
		reusable: (r: UpstreamResponse) => boolean,
		errorKind: (err: unknown) => string
	): Promise<UpstreamResponse> {
		const started = Date.now();
		this.calls++;
		let stored: StoredAnswer | { error: string; kind: string };
		let value: UpstreamResponse | undefined;
		let failure: unknown;
		try {
			value = await fetcher();
			stored = {
				status: value.status,
				contentType: value.contentType,
				headers: value.headers,
				body: value.body.toString('base64')
			};
		} catch (err) {
			failure = err;
			stored = { error: (err as Error)?.message ?? String(err), kind: errorKind(err) };
		}
		const keep = value !== undefined && reusable(value) ? started + ttlMs - Date.now() : 0;
		// The answer first, then the lock: a waiter that still sees the lock finds the answer.
		await guarded(() =>
			this.redis
				.multi()
				.set(this.answerKey(id), JSON.stringify(stored), 'PX', ANSWER_MS)
				.eval(RELEASE, 1, lock, id, Math.max(0, Math.round(keep)))
				.exec()
		).catch(() => undefined);
		if (value === undefined) throw failure;
		return value;
	}

	private answerKey(id: string): string {
		return `${this.prefix}:answer:${id}`;
	}

	/** The answer of call `id`, or undefined when its lock went away without one (a dead winner). */
	private async waitFor(
		id: string,
		lock: string,
		deadline: number
	): Promise<{ value: UpstreamResponse; outcome: SharedOutcome } | undefined> {
		let first = true;
		while (Date.now() <= deadline) {
			const [answer, holder] = await guarded(() =>
				Promise.all([this.redis.get(this.answerKey(id)), this.redis.get(lock)])
			);
			if (answer) {
				const parsed = JSON.parse(answer) as StoredAnswer | { error: string; kind: string };
				if ('error' in parsed) throw new SharedCallError(parsed.error, parsed.kind);
				return {
					value: {
						status: parsed.status,
						contentType: parsed.contentType,
						headers: parsed.headers,
						body: Buffer.from(parsed.body, 'base64')
					},
					outcome: first ? 'hit' : 'shared'
				};
			}
			if (holder !== id) return undefined;
			first = false;
			await new Promise((r) => setTimeout(r, POLL_MS));
		}
		return undefined;
	}
}
