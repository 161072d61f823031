/**
 * Each user's memberships across a cluster (usage/memberships.ts): every replica writes whose
 * its /stream viewers are and which groups they hold to Redis (one key per replica, re-sent
 * every `everyMs`, expiring after three missed beats), so the Account page on any replica counts
 * every replica's viewers, and a replica that died drops out by itself.
 */
import type { Redis } from 'ioredis';
import type { Holding } from '../usage/memberships';
import { guarded } from './redis';

export class SharedHoldings {
	private timer: ReturnType<typeof setInterval> | undefined;

	constructor(
		private readonly redis: Redis,
		private readonly replicaId: string,
		private readonly prefix = 'gexdeck:holdings',
		private readonly everyMs = 2_000
	) {}

	/** Write this replica's holdings now (expiring after three beats). */
	async publish(holdings: readonly Holding[]): Promise<void> {
		const value = JSON.stringify(holdings.map((h) => ({ owner: h.owner, groups: h.groups })));
		await guarded(() =>
			this.redis.set(`${this.prefix}:${this.replicaId}`, value, 'PX', this.everyMs * 3)
		);
	}

	/** Publish `read()` every beat until stop() (a failed beat is retried on the next). */
	start(read: () => Holding[]): void {
		if (this.timer) return;
		const beat = () => void this.publish(read()).catch(() => undefined);
		beat();
		this.timer = setInterval(beat, this.everyMs);
		this.timer.unref?.();
	}

	async stop(): Promise<void> {
		clearInterval(this.timer);
		this.timer = undefined;
		await guarded(() => this.redis.del(`${this.prefix}:${this.replicaId}`)).catch(() => undefined);
	}

	/** The holdings of `replicas` (this one's as `own`, read live); a silent replica has none. */
	async all(replicas: readonly string[], own: readonly Holding[]): Promise<Holding[]> {
		const others = replicas.filter((id) => id !== this.replicaId);
		const values =
			others.length === 0
				? []
				: await guarded(() => this.redis.mget(others.map((id) => `${this.prefix}:${id}`)));
		const out: Holding[] = [...own];
		for (const v of values) {
			if (!v) continue;
			try {
				out.push(...(JSON.parse(v) as Holding[]));
			} catch {
				// a value no replica of ours wrote: skipped
			}
		}
		return out;
	}
}
