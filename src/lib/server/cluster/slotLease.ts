/**
 * The lease on the account's one upstream WebSocket slot (issue 30, cluster mode): exactly one
 * replica holds it at a time. The lease is a Redis key with an expiry whose value names the
 * holder and a fencing token (a counter that only grows, so a later holder always has a larger
 * token than any earlier one). The holder renews it every `renewEveryMs`, well inside `ttlMs`;
 * a holder that cannot renew (Redis cut, process stalled) gives the slot up by itself at the
 * last renewal it sent plus `ttlMs - marginMs`, before the key can expire and another replica
 * can take it. Candidates try every `pollMs`, so a dead holder's slot passes within
 * `ttlMs + pollMs`; a holder that stops cleanly (SIGTERM) deletes the key and it passes within
 * `pollMs`. A hash beside the key says who holds it, since when, and the last failover (who
 * from, who to, when, and how long nobody held it) for the Account page.
 */
import type { Redis } from 'ioredis';
import { log } from '../log';
import { guarded } from './redis';

/** KEYS: lease, fence, info. ARGV: replica id, ttl ms, now ms. The token, or 0 when held. */
const ACQUIRE = `
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
local token = redis.call('INCR', KEYS[2])
redis.call('SET', KEYS[1], ARGV[1] .. ' ' .. token, 'PX', ARGV[2])
local prev = redis.call('HMGET', KEYS[3], 'holder', 'renewedAt')
if prev[1] and prev[1] ~= ARGV[1] then
  local gap = tonumber(ARGV[3]) - tonumber(prev[2] or ARGV[3])
  redis.call('HSET', KEYS[3], 'failoverFrom', prev[1], 'failoverTo', ARGV[1],
    'failoverAt', ARGV[3], 'failoverGapMs', gap)
end
redis.call('HSET', KEYS[3], 'holder', ARGV[1], 'token', token, 'since', ARGV[3],
  'renewedAt', ARGV[3])
return token
`;

/** KEYS: lease, info. ARGV: "id token", ttl ms, now ms. 1 renewed, 0 not ours any more. */
const RENEW = `
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('PEXPIRE', KEYS[1], ARGV[2])
redis.call('HSET', KEYS[2], 'renewedAt', ARGV[3])
return 1
`;

/** KEYS: lease, info. ARGV: "id token", now ms. 1 released, 0 not ours. */
const RELEASE = `
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('DEL', KEYS[1])
redis.call('HSET', KEYS[2], 'renewedAt', ARGV[2])
return 1
`;

export interface SlotHold {
	/** Fencing token: larger than every earlier holder's. */
	token: number;
	/** Epoch ms the lease was taken. */
	since: number;
}

export interface SlotFailover {
	from: string;
	to: string;
	/** Epoch ms the new holder took the lease. */
	at: number;
	/** How long nobody held the slot (the old holder's last renewal or release to the take). */
	gapMs: number;
}

export interface SlotInfo {
	holder?: string;
	token?: number;
	since?: number;
	lastFailover?: SlotFailover;
}

export interface SlotLeaseEvents {
	/** This replica holds the slot now: negotiate and relay. */
	acquired(hold: SlotHold): void;
	/** This replica must stop using the slot now (another may take it soon). */
	lost(reason: string): void;
}

export interface SlotLeaseOptions {
	prefix?: string;
	/** Lease lifetime without renewal (default 3 s). */
	ttlMs?: number;
	/** Renewal period (default a third of the TTL). */
	renewEveryMs?: number;
	/** How much before the lease could expire a holder that cannot renew lets go (default TTL/3). */
	marginMs?: number;
	/** Candidates try to take a free lease this often (default 250 ms). */
	pollMs?: number;
	now?: () => number;
}

export class SlotLease {
	private hold: SlotHold | undefined;
	private timer: NodeJS.Timeout | undefined;
	private guard: NodeJS.Timeout | undefined;
	private stopped = true;
	/** A failed step is logged once per outage, not once per poll. */
	private failing = false;
	private readonly ttlMs: number;
	private readonly renewEveryMs: number;
	private readonly marginMs: number;
	private readonly pollMs: number;
	private readonly now: () => number;
	private readonly keys: { lease: string; fence: string; info: string };

	constructor(
		private readonly redis: Redis,
		readonly replicaId: string,
		private readonly events: SlotLeaseEvents,
		options: SlotLeaseOptions = {}
	) {
		const prefix = options.prefix ?? 'gexdeck:slot';
		this.keys = { lease: `${prefix}:lease`, fence: `${prefix}:fence`, info: `${prefix}:info` };
		this.ttlMs = options.ttlMs ?? 3_000;
		this.renewEveryMs = options.renewEveryMs ?? Math.floor(this.ttlMs / 3);
		this.marginMs = options.marginMs ?? Math.floor(this.ttlMs / 3);
		this.pollMs = options.pollMs ?? 250;
		this.now = options.now ?? Date.now;
		if (this.renewEveryMs >= this.ttlMs - this.marginMs) {
			throw new Error('SlotLease: renewals must come well inside the TTL minus the margin');
		}
	}

	/** This replica's hold, when it has one. */
	get holding(): SlotHold | undefined {
		return this.hold;
	}

	/** The lease value while held: `<replica> <token>`. */
	private get value(): string {
		return `${this.replicaId} ${this.hold?.token}`;
	}

	/** Start competing for the slot (the timers do not keep the process alive). */
	start(): void {
		if (!this.stopped) return;
		this.stopped = false;
		this.tick(0);
	}

	/** Stop competing; a holder releases the lease so another replica takes it at once. */
	async stop(): Promise<void> {
		this.stopped = true;
		clearTimeout(this.timer);
		clearTimeout(this.guard);
		const hold = this.hold;
		if (!hold) return;
		const value = this.value;
		this.drop('this replica is stopping');
		await guarded(() =>
			this.redis.eval(RELEASE, 2, this.keys.lease, this.keys.info, value, this.now())
		).catch((err: Error) => log.warn(`cluster: slot lease not released: ${err.message}`));
	}

	/** Who holds the slot, since when, and the last failover. */
	async info(): Promise<SlotInfo> {
		const h = await guarded(() => this.redis.hgetall(this.keys.info));
		const held = await guarded(() => this.redis.get(this.keys.lease));
		const info: SlotInfo = {};
		if (held && h.holder) {
			info.holder = h.holder;
			info.token = Number(h.token);
			info.since = Number(h.since);
		}
		if (h.failoverAt) {
			info.lastFailover = {
				from: h.failoverFrom,
				to: h.failoverTo,
				at: Number(h.failoverAt),
				gapMs: Number(h.failoverGapMs)
			};
		}
		return info;
	}

	private tick(delay: number): void {
		clearTimeout(this.timer);
		if (this.stopped) return;
		this.timer = setTimeout(() => void this.step(), delay);
		this.timer.unref();
	}

	private async step(): Promise<void> {
		if (this.stopped) return;
		try {
			if (this.hold) await this.renew();
			else await this.acquire();
			this.failing = false;
		} catch (err) {
			// Redis is away: a holder's guard lets go in time; a candidate tries again.
			if (!this.failing) log.warn(`cluster: slot lease: ${(err as Error).message}`);
			this.failing = true;
		}
		this.tick(this.hold ? this.renewEveryMs : this.pollMs);
	}

	private async acquire(): Promise<void> {
		const sentAt = this.now();
		const token = Number(
			await guarded(() =>
				this.redis.eval(
					ACQUIRE,
					3,
					this.keys.lease,
					this.keys.fence,
					this.keys.info,
					this.replicaId,
					this.ttlMs,
					sentAt
				)
			)
		);
		if (!token) return;
		if (this.stopped) {
			// Stopped while asking: hand it straight back rather than leave it to expire.
			await guarded(() =>
				this.redis.eval(
					RELEASE,
					2,
					this.keys.lease,
					this.keys.info,
					`${this.replicaId} ${token}`,
					this.now()
				)
			).catch(() => undefined);
			return;
		}
		if (!this.armGuard(sentAt)) return;
		this.hold = { token, since: sentAt };
		log.info(`cluster: this replica holds the upstream slot (token ${token})`);
		this.events.acquired(this.hold);
	}

	private async renew(): Promise<void> {
		const sentAt = this.now();
		const value = this.value;
		const ok = await guarded(() =>
			this.redis.eval(RENEW, 2, this.keys.lease, this.keys.info, value, this.ttlMs, sentAt)
		);
		if (!this.hold || value !== this.value) return;
		if (ok !== 1) this.drop('the lease passed to another replica');
		else this.armGuard(sentAt);
	}

	/**
	 * Let go at `sentAt + ttl - margin` unless a later renewal succeeds first. The lease cannot
	 * expire in Redis before `sentAt + ttl`. False when that moment has already passed (the
	 * answer came too late to use).
	 */
	private armGuard(sentAt: number): boolean {
		const left = sentAt + this.ttlMs - this.marginMs - this.now();
		if (left <= 0) {
			if (this.hold) this.drop('the lease could not be renewed in time');
			return false;
		}
		clearTimeout(this.guard);
		this.guard = setTimeout(() => this.drop('the lease could not be renewed in time'), left);
		this.guard.unref();
		return true;
	}

	private drop(reason: string): void {
		clearTimeout(this.guard);
		if (!this.hold) return;
		this.hold = undefined;
		log.warn(`cluster: this replica gave up the upstream slot: ${reason}`);
		this.events.lost(reason);
		this.tick(this.pollMs);
	}
}
