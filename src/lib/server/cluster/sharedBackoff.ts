/**
 * The 429 backoff of PoolBackoff (../backoff.ts), kept in Redis so every replica holds a pool
 * once any of them got a 429: the same exponential, jittered delay, one probe when it ends (a
 * probe whose replica died is let go again after `probeMs`), a success releasing the pool.
 * Each step is one Lua script, so two replicas never both take the probe.
 */
import type { Redis } from 'ioredis';
import { guarded } from './redis';

const ADMIT = `
local s = redis.call('HMGET', KEYS[1], 'status', 'retryAt', 'probeUntil')
local now = tonumber(ARGV[1])
if not s[1] or s[1] == 'ok' then return {1, 0} end
if (s[1] == 'backing-off' and now >= tonumber(s[2])) or (s[1] == 'probing' and now >= tonumber(s[3])) then
  redis.call('HSET', KEYS[1], 'status', 'probing', 'probeUntil', now + tonumber(ARGV[2]))
  return {1, 0}
end
return {0, tonumber(s[2])}
`;

/** ARGV: status, now, baseMs, maxMs, random in [0, 1). */
const RECORD = `
local now = tonumber(ARGV[2])
if ARGV[1] ~= '429' then
  redis.call('HSET', KEYS[1], 'status', 'ok', 'consecutive', 0, 'retryAt', 0)
  return 0
end
local n = redis.call('HINCRBY', KEYS[1], 'consecutive', 1)
local raw = math.min(tonumber(ARGV[4]), tonumber(ARGV[3]) * 2 ^ (n - 1))
local retryAt = now + math.floor(raw * (0.5 + tonumber(ARGV[5])) + 0.5)
redis.call('HSET', KEYS[1], 'status', 'backing-off', 'retryAt', retryAt, 'last429At', now)
redis.call('EXPIRE', KEYS[1], 86400)
return retryAt
`;

/** ARGV: now, baseMs, maxMs, random. */
const ABANDON = `
local s = redis.call('HMGET', KEYS[1], 'status', 'consecutive')
if s[1] ~= 'probing' then return 0 end
local n = math.max(1, tonumber(s[2] or '1'))
local raw = math.min(tonumber(ARGV[3]), tonumber(ARGV[2]) * 2 ^ (n - 1))
local retryAt = tonumber(ARGV[1]) + math.floor(raw * (0.5 + tonumber(ARGV[4])) + 0.5)
redis.call('HSET', KEYS[1], 'status', 'backing-off', 'retryAt', retryAt)
return retryAt
`;

export interface SharedBackoffOptions {
	baseMs?: number;
	maxMs?: number;
	/** How long a probe may stay unanswered before another replica may probe. */
	probeMs?: number;
	now?: () => number;
	random?: () => number;
	prefix?: string;
}

export class SharedBackoff {
	private readonly baseMs: number;
	private readonly maxMs: number;
	private readonly probeMs: number;
	private readonly now: () => number;
	private readonly random: () => number;
	private readonly prefix: string;

	constructor(
		private readonly redis: Redis,
		options: SharedBackoffOptions = {}
	) {
		this.baseMs = options.baseMs ?? 2_000;
		this.maxMs = options.maxMs ?? 5 * 60_000;
		this.probeMs = options.probeMs ?? 100_000;
		this.now = options.now ?? Date.now;
		this.random = options.random ?? Math.random;
		this.prefix = options.prefix ?? 'gexdeck:backoff';
	}

	/** May a request for `pool` (account|pool) go upstream now? Else the epoch ms to wait for. */
	async admit(pool: string): Promise<{ ok: true } | { ok: false; retryAt: number }> {
		const now = this.now();
		const [ok, retryAt] = (await guarded(() =>
			this.redis.eval(ADMIT, 1, `${this.prefix}:${pool}`, now, this.probeMs)
		)) as [number, number];
		return ok === 1 ? { ok: true } : { ok: false, retryAt: retryAt || now + this.baseMs };
	}

	async record(pool: string, status: number): Promise<void> {
		await guarded(() =>
			this.redis.eval(
				RECORD,
				1,
				`${this.prefix}:${pool}`,
				String(status),
				this.now(),
				this.baseMs,
				this.maxMs,
				this.random()
			)
		);
	}

	/** The probe failed without an answer: hold the pool again. */
	async abandonProbe(pool: string): Promise<void> {
		await guarded(() =>
			this.redis.eval(
				ABANDON,
				1,
				`${this.prefix}:${pool}`,
				this.now(),
				this.baseMs,
				this.maxMs,
				this.random()
			)
		);
	}
}
