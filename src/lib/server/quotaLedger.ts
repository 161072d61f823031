/**
 * What this dashboard has spent upstream, per account and quota pool, in the current daily and
 * monthly windows (00:00 America/New_York resets), kept in the database's `quota_spend` table
 * so a restart does not forget the day's spending (the `ledger.json` of older releases is
 * imported once). Counting is in memory; the changed pools are written in one transaction
 * shortly after a burst, and at shutdown.
 */
import { etWindowIds } from '../contract/newYorkTime';
import type { Database, Queryable } from './db/index';
import { log } from './log';

export interface WindowSpend {
	window: string;
	/** Upstream calls answered (any status but 429). */
	requests: number;
	/** 429 answers received. */
	rateLimited: number;
}

export interface PoolSpend {
	daily: WindowSpend;
	monthly: WindowSpend;
}

export type LedgerAccounts = Record<string, Record<string, PoolSpend>>;

/** The shape of an older release's ledger.json (legacyImport.ts). */
export interface LedgerFile {
	version: 1;
	accounts: LedgerAccounts;
}

export function isLedgerFile(v: unknown): v is LedgerFile {
	const f = v as LedgerFile;
	return (
		typeof v === 'object' &&
		v !== null &&
		f.version === 1 &&
		typeof f.accounts === 'object' &&
		f.accounts !== null
	);
}

const PERIODS = ['daily', 'monthly'] as const;

/** Write the spending of `pools` (account -> pool -> spend) as `quota_spend` rows. */
export async function writeSpendRows(
	tx: Pick<Queryable, 'run'>,
	accounts: LedgerAccounts
): Promise<void> {
	for (const [account, pools] of Object.entries(accounts)) {
		for (const [pool, spend] of Object.entries(pools)) {
			for (const period of PERIODS) {
				const w = spend[period];
				await tx.run(
					`INSERT INTO quota_spend (account, pool, period, window_id, requests, rate_limited)
					VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (account, pool, period) DO UPDATE SET
					window_id = excluded.window_id, requests = excluded.requests,
					rate_limited = excluded.rate_limited`,
					[account, pool, period, w.window, w.requests, w.rateLimited]
				);
			}
		}
	}
}

export class QuotaLedger {
	private accounts: LedgerAccounts = {};
	/** `account\u0000pool` of the pools counted since the last write. */
	private dirty = new Set<string>();
	private timer: NodeJS.Timeout | undefined;
	/** Writes run one after another, so an older snapshot never lands after a newer one. */
	private writing: Promise<void> = Promise.resolve();
	/** The last write failure (full disk, database gone), until a write succeeds again. */
	lastWriteError: string | undefined;

	/** A ledger written to `db`; without one it only counts in memory (tests of the proxy). */
	constructor(
		private readonly db?: Database,
		private readonly now: () => Date = () => new Date(),
		private readonly flushDelayMs = 500
	) {}

	/** The ledger stored in `db`, read now. */
	static async load(db: Database, now?: () => Date, flushDelayMs?: number): Promise<QuotaLedger> {
		const ledger = new QuotaLedger(db, now, flushDelayMs);
		const rows = await db.all<{
			account: string;
			pool: string;
			period: string;
			window_id: string;
			requests: number;
			rate_limited: number;
		}>(`SELECT account, pool, period, window_id, requests, rate_limited FROM quota_spend`);
		for (const r of rows) {
			if (r.period !== 'daily' && r.period !== 'monthly') continue;
			const pools = (ledger.accounts[r.account] ??= {});
			const spend = (pools[r.pool] ??= {
				daily: { window: '', requests: 0, rateLimited: 0 },
				monthly: { window: '', requests: 0, rateLimited: 0 }
			});
			spend[r.period] = {
				window: r.window_id,
				requests: Number(r.requests),
				rateLimited: Number(r.rate_limited)
			};
		}
		return ledger;
	}

	private spend(account: string, pool: string): PoolSpend {
		const ids = etWindowIds(this.now());
		const pools = (this.accounts[account] ??= {});
		const s = (pools[pool] ??= {
			daily: { window: ids.daily, requests: 0, rateLimited: 0 },
			monthly: { window: ids.monthly, requests: 0, rateLimited: 0 }
		});
		// A window that has passed starts again at zero, like the upstream's counters.
		if (s.daily.window !== ids.daily) s.daily = { window: ids.daily, requests: 0, rateLimited: 0 };
		if (s.monthly.window !== ids.monthly) {
			s.monthly = { window: ids.monthly, requests: 0, rateLimited: 0 };
		}
		return s;
	}

	/** Count one upstream answer for `pool`. */
	record(account: string, pool: string, status: number): void {
		const s = this.spend(account, pool);
		const field = status === 429 ? 'rateLimited' : 'requests';
		s.daily[field]++;
		s.monthly[field]++;
		this.dirty.add(`${account}\u0000${pool}`);
		this.scheduleFlush();
	}

	/** Current windows of every pool the account has used. */
	usage(account: string): Record<string, PoolSpend> {
		const pools = this.accounts[account] ?? {};
		return Object.fromEntries(
			Object.keys(pools).map((pool) => {
				const s = this.spend(account, pool);
				return [pool, { daily: { ...s.daily }, monthly: { ...s.monthly } }];
			})
		);
	}

	private scheduleFlush(): void {
		if (this.timer || !this.db) return;
		this.timer = setTimeout(() => {
			this.timer = undefined;
			// Counts stay in memory on failure; the next record tries again (flush logged why).
			this.flush().catch(() => undefined);
		}, this.flushDelayMs);
		this.timer.unref();
	}

	/**
	 * Write the pools counted since the last write, in one transaction. On failure the database
	 * keeps its last good counts, the counts stay in memory for the next attempt, and the error
	 * is logged (once while it repeats) and thrown.
	 */
	flush(): Promise<void> {
		if (this.timer) clearTimeout(this.timer);
		this.timer = undefined;
		const next = this.writing.then(() => this.write());
		this.writing = next.catch(() => undefined);
		return next;
	}

	private async write(): Promise<void> {
		if (!this.db || this.dirty.size === 0) return;
		const keys = [...this.dirty];
		this.dirty.clear();
		const changed: LedgerAccounts = {};
		for (const key of keys) {
			const [account, pool] = key.split('\u0000');
			const s = this.accounts[account][pool];
			(changed[account] ??= {})[pool] = { daily: { ...s.daily }, monthly: { ...s.monthly } };
		}
		try {
			await this.db.transaction((tx) => writeSpendRows(tx, changed));
			this.lastWriteError = undefined;
		} catch (err) {
			for (const key of keys) this.dirty.add(key);
			const message = `the quota ledger could not be saved in ${this.db.name} (${(err as Error).message}); counting goes on in memory.`;
			if (message !== this.lastWriteError) log.error(message);
			this.lastWriteError = message;
			throw new Error(message, { cause: err });
		}
	}
}
