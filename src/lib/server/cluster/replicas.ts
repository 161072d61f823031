/**
 * Which replicas of the cluster are alive: each writes its card (id, host, pid, started) to
 * Redis every few seconds with an expiry, and a sorted set orders them by the last beat; a
 * replica that stops beating drops off the list within `staleMs`. Read by the Account page.
 */
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { Redis } from 'ioredis';
import { log } from '../log';
import { guarded } from './redis';

export interface ReplicaCard {
	id: string;
	host: string;
	pid: number;
	/** Epoch ms the replica started. */
	startedAt: number;
	/** Epoch ms of its last beat. */
	seenAt: number;
}

export class ReplicaRegistry {
	readonly id = randomUUID().slice(0, 8);
	private readonly startedAt = Date.now();
	private timer: NodeJS.Timeout | undefined;

	constructor(
		private readonly redis: Redis,
		private readonly prefix = 'gexdeck:replicas',
		private readonly beatMs = 3_000,
		private readonly staleMs = 10_000
	) {}

	/** Beat now and every `beatMs` (the timer does not keep the process alive). */
	start(): void {
		if (this.timer) return;
		const beat = () => void this.beat().catch((err: Error) => log.warn(`cluster: ${err.message}`));
		beat();
		this.timer = setInterval(beat, this.beatMs);
		this.timer.unref();
	}

	async beat(): Promise<void> {
		const now = Date.now();
		const card: ReplicaCard = {
			id: this.id,
			host: hostname(),
			pid: process.pid,
			startedAt: this.startedAt,
			seenAt: now
		};
		await guarded(() =>
			this.redis
				.multi()
				.set(`${this.prefix}:card:${this.id}`, JSON.stringify(card), 'PX', this.staleMs)
				.zadd(this.prefix, now, this.id)
				.zremrangebyscore(this.prefix, '-inf', now - this.staleMs)
				.exec()
		);
	}

	/** The replicas seen within `staleMs`, oldest start first. */
	async list(): Promise<ReplicaCard[]> {
		const ids = await guarded(() =>
			this.redis.zrangebyscore(this.prefix, Date.now() - this.staleMs, '+inf')
		);
		if (ids.length === 0) return [];
		const cards = await guarded(() =>
			this.redis.mget(ids.map((id) => `${this.prefix}:card:${id}`))
		);
		return cards
			.filter((c): c is string => c !== null)
			.map((c) => JSON.parse(c) as ReplicaCard)
			.sort((a, b) => a.startedAt - b.startedAt);
	}

	/** Take this replica off the list (a clean stop). */
	async leave(): Promise<void> {
		clearInterval(this.timer);
		this.timer = undefined;
		await guarded(() =>
			this.redis.multi().del(`${this.prefix}:card:${this.id}`).zrem(this.prefix, this.id).exec()
		);
	}
}
