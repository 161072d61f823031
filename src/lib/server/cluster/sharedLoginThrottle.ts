/**
 * The login throttle shared by the replicas (issue 30, cluster mode): the same rules as the
 * one-process LoginThrottle (auth.ts: free failures, then a delay doubling to a cap; past the
 * dashboard-wide cap of failures in the window every wrong answer waits the longest), counted
 * in Redis, so a guesser gains nothing by spreading its guesses over the replicas behind the
 * balancer. One Lua script per failure keeps the counts exact however the replicas race.
 *
 * While Redis cannot be reached the replica's own LoginThrottle answers (still slowed, only
 * per replica), never no delay at all.
 */
import type { Redis } from 'ioredis';
import { LoginThrottle, type LoginThrottleOptions } from '../auth';
import { guarded } from './redis';

/**
 * KEYS: client, minute prefix. ARGV: window ms, minute (epoch minutes), window minutes.
 * Returns { the client's failures in the window, the dashboard's failures in the window }.
 */
const FAILED = `
local count = redis.call('INCR', KEYS[1])
redis.call('PEXPIRE', KEYS[1], ARGV[1])
local minute = tonumber(ARGV[2])
local key = KEYS[2] .. minute
redis.call('INCR', key)
redis.call('PEXPIRE', key, tonumber(ARGV[1]) + 60000)
local keys = {}
for m = minute - tonumber(ARGV[3]) + 1, minute do keys[#keys + 1] = KEYS[2] .. m end
local recent = 0
for _, n in ipairs(redis.call('MGET', unpack(keys))) do recent = recent + (tonumber(n) or 0) end
return { count, recent }
`;

export interface LoginDelay {
	delayMs: number;
	globalCapped: boolean;
}

/** What the login route asks, in one process or in a cluster. */
export interface LoginDelays {
	failed(client: string): Promise<LoginDelay>;
	succeeded(client: string): Promise<void>;
}

/** The one-process throttle behind the LoginDelays interface. */
export function localLoginDelays(throttle: LoginThrottle): LoginDelays {
	return {
		failed: async (client) => throttle.failed(client),
		succeeded: async (client) => throttle.succeeded(client)
	};
}

export class SharedLoginThrottle implements LoginDelays {
	private readonly o: Required<LoginThrottleOptions>;

	constructor(
		private readonly redis: Redis,
		private readonly fallback: LoginThrottle,
		options: LoginThrottleOptions = {},
		private readonly prefix = 'gexdeck:login'
	) {
		this.o = {
			freeFailures: 5,
			baseDelayMs: 1_000,
			maxDelayMs: 30_000,
			windowMs: 15 * 60_000,
			globalCap: 100,
			now: Date.now,
			...options
		};
	}

	async failed(client: string): Promise<LoginDelay> {
		let count: number;
		let recent: number;
		try {
			[count, recent] = (await guarded(() =>
				this.redis.eval(
					FAILED,
					2,
					`${this.prefix}:client:${client}`,
					`${this.prefix}:minute:`,
					this.o.windowMs,
					Math.floor(this.o.now() / 60_000),
					Math.ceil(this.o.windowMs / 60_000)
				)
			)) as [number, number];
		} catch {
			return this.fallback.failed(client);
		}
		const globalCapped = recent > this.o.globalCap;
		const extra = count - this.o.freeFailures;
		const own = extra <= 0 ? 0 : Math.min(this.o.maxDelayMs, this.o.baseDelayMs * 2 ** (extra - 1));
		return { delayMs: globalCapped ? this.o.maxDelayMs : own, globalCapped };
	}

	async succeeded(client: string): Promise<void> {
		this.fallback.succeeded(client);
		await guarded(() => this.redis.del(`${this.prefix}:client:${client}`)).catch(() => undefined);
	}
}
