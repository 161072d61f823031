/**
 * The quota ledger shared by every replica: per account, pool and window (daily and monthly,
 * 00:00 America/New_York, like the upstream's counters) one Redis hash counts the calls sent
 * and the 429s among them. A call is reserved before it is sent by one Lua script that checks
 * the pool's budget (GEXDECK_QUOTA_BUDGET) and counts it in the same step, so replicas
 * together can never send more than the budget, however many requests race.
 */
import type { Redis } from 'ioredis';
import { etWindowIds } from '$lib/contract/newYorkTime';
import type { QuotaPool } from '$lib/contract/routes';
import type { PoolSpend } from '../quotaLedger';
import type { QuotaBudget } from './budget';
import { guarded } from './redis';

/** Windows kept a little past their end (a late reader still sees the day it asks about). */
const DAILY_TTL_S = 3 * 86_400;
const MONTHLY_TTL_S = 40 * 86_400;

/** 1 = reserved; 0 = the daily budget is spent; -1 = the monthly budget is spent. */
const RESERVE = `
local function spent(key)
  local v = redis.call('HMGET', key, 'sent', 'rateLimited')
  return tonumber(v[1] or '0') - tonumber(v[2] or '0')
end
local daily = tonumber(ARGV[1])
local monthly = tonumber(ARGV[2])
if daily >= 0 and spent(KEYS[1]) >= daily then return 0 end
if monthly >= 0 and spent(KEYS[2]) >= monthly then return -1 end
redis.call('HINCRBY', KEYS[1], 'sent', 1)
redis.call('EXPIRE', KEYS[1], ARGV[3])
redis.call('HINCRBY', KEYS[2], 'sent', 1)
redis.call('EXPIRE', KEYS[2], ARGV[4])
return 1
`;

export type Reservation = { ok: true } | { ok: false; window: 'daily' | 'monthly'; budget: number };

export class SharedQuota {
	constructor(
		private readonly redis: Redis,
		private readonly budget: QuotaBudget,
		private readonly now: () => Date = () => new Date(),
		private readonly prefix = 'gexdeck:quota'
	) {}

	private keys(account: string, pool: string): [string, string] {
		const ids = etWindowIds(this.now());
		const base = `${this.prefix}:${account}:${pool}`;
		return [`${base}:d:${ids.daily}`, `${base}:m:${ids.monthly}`];
	}

	/** Count one call about to be sent, unless the pool's budget is spent in either window. */
	async reserve(account: string, pool: string): Promise<Reservation> {
		const budget = this.budget[pool as QuotaPool];
		const daily = budget?.daily ?? -1;
		const monthly = budget?.monthly ?? -1;
		const verdict = await guarded(() =>
			this.redis.eval(
				RESERVE,
				2,
				...this.keys(account, pool),
				daily,
				monthly,
				DAILY_TTL_S,
				MONTHLY_TTL_S
			)
		);
		if (verdict === 1) return { ok: true };
		return verdict === 0
			? { ok: false, window: 'daily', budget: daily }
			: { ok: false, window: 'monthly', budget: monthly };
	}

	/** The answer of a reserved call: a 429 is counted as such (it spent no quota). */
	async record(account: string, pool: string, status: number): Promise<void> {
		if (status !== 429) return;
		const [d, m] = this.keys(account, pool);
		await guarded(() =>
			this.redis.multi().hincrby(d, 'rateLimited', 1).hincrby(m, 'rateLimited', 1).exec()
		);
	}

	/** The cluster's spend of `pool` in the current windows. */
	async usage(account: string, pool: string): Promise<PoolSpend> {
		const ids = etWindowIds(this.now());
		const [d, m] = this.keys(account, pool);
		const [dv, mv] = await guarded(() =>
			Promise.all([
				this.redis.hmget(d, 'sent', 'rateLimited'),
				this.redis.hmget(m, 'sent', 'rateLimited')
			])
		);
		const spend = (v: (string | null)[], window: string) => {
			const rateLimited = Number(v[1] ?? 0);
			return { window, requests: Number(v[0] ?? 0) - rateLimited, rateLimited };
		};
		return { daily: spend(dv, ids.daily), monthly: spend(mv, ids.monthly) };
	}
}
