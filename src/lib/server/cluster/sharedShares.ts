/**
 * Each user's share of the account's upstream calls in cluster mode (see usage/callShares.ts):
 * one Redis hash per account, pool and window (daily and monthly, 00:00 America/New_York, like
 * the shared quota ledger), its fields `<caller>` (calls the caller caused) and
 * `<caller>|shared` (answers it got from a call another request caused), so every replica
 * counts into, and shows, the same numbers. Windows expire a little after their end.
 */
import type { Redis } from 'ioredis';
import { etWindowIds } from '$lib/contract/newYorkTime';
import type { CallerCount, PoolShares, ShareKind, ShareStore } from '../usage/callShares';
import { guarded } from './redis';

const DAILY_TTL_S = 3 * 86_400;
const MONTHLY_TTL_S = 40 * 86_400;
const SHARED = '|shared';

export class SharedShares implements ShareStore {
	readonly kind = 'redis' as const;

	constructor(
		private readonly redis: Redis,
		private readonly now: () => Date = () => new Date(),
		private readonly prefix = 'gexdeck:shares'
	) {}

	private keys(account: string, pool: string): [string, string] {
		const ids = etWindowIds(this.now());
		const base = `${this.prefix}:${account}:${pool}`;
		return [`${base}:d:${ids.daily}`, `${base}:m:${ids.monthly}`];
	}

	async add(account: string, pool: string, caller: string, kind: ShareKind): Promise<void> {
		const [d, m] = this.keys(account, pool);
		const field = kind === 'shared' ? `${caller}${SHARED}` : caller;
		await guarded(() =>
			this.redis
				.multi()
				.hincrby(d, field, 1)
				.expire(d, DAILY_TTL_S)
				.hincrby(m, field, 1)
				.expire(m, MONTHLY_TTL_S)
				.exec()
		);
	}

	async read(account: string, pools: readonly string[]): Promise<Record<string, PoolShares>> {
		const keys = pools.flatMap((pool) => this.keys(account, pool));
		const hashes = await guarded(() => Promise.all(keys.map((k) => this.redis.hgetall(k))));
		const out: Record<string, PoolShares> = {};
		pools.forEach((pool, i) => {
			const daily = hashes[2 * i];
			const monthly = hashes[2 * i + 1];
			if (Object.keys(daily).length + Object.keys(monthly).length === 0) return;
			out[pool] = { daily: countsOf(daily), monthly: countsOf(monthly) };
		});
		return out;
	}
}

function countsOf(hash: Record<string, string>): Record<string, CallerCount> {
	const out: Record<string, CallerCount> = {};
	for (const [field, value] of Object.entries(hash)) {
		const shared = field.endsWith(SHARED);
		const caller = shared ? field.slice(0, -SHARED.length) : field;
		const c = (out[caller] ??= { calls: 0, shared: 0 });
		c[shared ? 'shared' : 'calls'] += Number(value);
	}
	return out;
}
