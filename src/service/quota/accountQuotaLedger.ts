/**
 * Per-account, per-pool request counters in daily and monthly ET windows, persisted to the data
 * directory (temp file + rename, so a crash never leaves a half-written file) and reloaded at
 * start. The first refused request per account, pool and window writes one alert e-mail entry to
 * the outbox, since the embedded service has no mail server.
 */
import { appendFileSync, mkdirSync, readFileSync } from 'node:fs';
import { rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Allowance, QuotaPool } from './allowances';
import { QUOTA_POOLS } from './allowances';
import { quotaWindowIds, type QuotaWindowIds } from './windows';

export type WindowKind = 'daily' | 'monthly';

interface WindowCounter {
	window: string;
	used: number;
}

interface PoolCounter {
	daily: WindowCounter;
	monthly: WindowCounter;
}

interface LedgerFile {
	version: 1;
	counters: Record<string, Partial<Record<QuotaPool, PoolCounter>>>;
	/** Keys `${account}|${pool}|${kind}|${window}` of alerts already sent. */
	alertsSent: string[];
}

export interface QuotaAlertEmail {
	type: 'quota_alert_email';
	to: string;
	account: string;
	pool: QuotaPool;
	window: WindowKind;
	window_id: string;
	allowance: number;
	subject: string;
	body: string;
	sent_at: string;
}

export type ConsumeResult =
	{ ok: true; daily: number; monthly: number } | { ok: false; window: WindowKind };

export interface PoolUsage {
	pool: QuotaPool;
	daily: { window: string; used: number };
	monthly: { window: string; used: number };
}

export interface QuotaLedgerOptions {
	dataDir: string;
	/** The service clock (simulated), so tests can cross ET midnight. */
	now: () => Date;
	/** Delay between a change and its write to disk. */
	flushDelayMs?: number;
}

export const COUNTERS_FILE = 'quota-counters.json';
export const OUTBOX_FILE = 'outbox.jsonl';

export class QuotaLedger {
	private readonly counters = new Map<string, Map<QuotaPool, PoolCounter>>();
	private readonly alertsSent = new Set<string>();
	private readonly countersPath: string;
	private readonly outboxPath: string;
	private readonly flushDelayMs: number;
	private timer: NodeJS.Timeout | undefined;
	private writing: Promise<void> | undefined;
	private dirty = false;
	private closed = false;

	constructor(private readonly options: QuotaLedgerOptions) {
		mkdirSync(options.dataDir, { recursive: true });
		this.countersPath = join(options.dataDir, COUNTERS_FILE);
		this.outboxPath = join(options.dataDir, OUTBOX_FILE);
		this.flushDelayMs = options.flushDelayMs ?? 200;
		this.load();
	}

	private load(): void {
		let text: string;
		try {
			text = readFileSync(this.countersPath, 'utf8');
		} catch (err) {
			if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
			throw err;
		}
		let file: LedgerFile;
		try {
			file = JSON.parse(text) as LedgerFile;
		} catch (err) {
			throw new Error(`${this.countersPath}: not valid JSON (${(err as Error).message})`, {
				cause: err
			});
		}
		if (file?.version !== 1 || typeof file.counters !== 'object') {
			throw new Error(`${this.countersPath}: unknown quota counter file format`);
		}
		for (const [account, pools] of Object.entries(file.counters)) {
			const map = new Map<QuotaPool, PoolCounter>();
			for (const pool of QUOTA_POOLS) {
				const c = pools[pool];
				if (c) map.set(pool, { daily: { ...c.daily }, monthly: { ...c.monthly } });
			}
			this.counters.set(account, map);
		}
		for (const key of file.alertsSent ?? []) this.alertsSent.add(key);
	}

	private counter(account: string, pool: QuotaPool, ids: QuotaWindowIds): PoolCounter {
		let pools = this.counters.get(account);
		if (!pools) {
			pools = new Map();
			this.counters.set(account, pools);
		}
		let c = pools.get(pool);
		if (!c) {
			c = { daily: { window: ids.daily, used: 0 }, monthly: { window: ids.monthly, used: 0 } };
			pools.set(pool, c);
		}
		// A window that has passed starts again from zero (the reset at 00:00 ET).
		if (c.daily.window !== ids.daily) c.daily = { window: ids.daily, used: 0 };
		if (c.monthly.window !== ids.monthly) c.monthly = { window: ids.monthly, used: 0 };
		return c;
	}

	/** Count one request against the pool, or refuse it when a window's allowance is spent. */
	consume(account: string, pool: QuotaPool, allowance: Allowance): ConsumeResult {
		const ids = quotaWindowIds(this.options.now());
		const c = this.counter(account, pool, ids);
		let breached: WindowKind | undefined;
		if (c.daily.used >= allowance.daily) breached = 'daily';
		else if (c.monthly.used >= allowance.monthly) breached = 'monthly';
		if (breached) {
			this.recordBreach(account, pool, breached, c[breached].window, allowance[breached]);
			return { ok: false, window: breached };
		}
		c.daily.used++;
		c.monthly.used++;
		this.markDirty();
		return { ok: true, daily: c.daily.used, monthly: c.monthly.used };
	}

	/** Current counts of every pool the account has used (windows already rolled over). */
	usage(account: string): PoolUsage[] {
		const ids = quotaWindowIds(this.options.now());
		return QUOTA_POOLS.map((pool) => {
			const c = this.counter(account, pool, ids);
			return { pool, daily: { ...c.daily }, monthly: { ...c.monthly } };
		});
	}

	private recordBreach(
		account: string,
		pool: QuotaPool,
		kind: WindowKind,
		windowId: string,
		allowance: number
	): void {
		const key = `${account}|${pool}|${kind}|${windowId}`;
		if (this.alertsSent.has(key)) return;
		this.alertsSent.add(key);
		const mail: QuotaAlertEmail = {
			type: 'quota_alert_email',
			to: `${account} (registered address)`,
			account,
			pool,
			window: kind,
			window_id: windowId,
			allowance,
			subject: `Quota reached: ${pool} (${kind} window ${windowId})`,
			body:
				`Your account ${account} has used its ${kind} allowance of ${allowance} requests ` +
				`for ${pool}. Further requests answer 429 until the window resets at 00:00 ET.`,
			sent_at: this.options.now().toISOString()
		};
		// One short line appended in one write: readers never see a partial entry.
		appendFileSync(this.outboxPath, JSON.stringify(mail) + '\n');
		this.markDirty();
	}

	private markDirty(): void {
		this.dirty = true;
		if (this.timer || this.closed) return;
		this.timer = setTimeout(() => {
			this.timer = undefined;
			void this.flush();
		}, this.flushDelayMs);
		this.timer.unref();
	}

	private snapshotFile(): LedgerFile {
		const counters: LedgerFile['counters'] = {};
		for (const [account, pools] of this.counters) {
			counters[account] = Object.fromEntries(pools);
		}
		// Alerts of windows that can no longer recur are dropped to keep the file small.
		const ids = quotaWindowIds(this.options.now());
		const alertsSent = [...this.alertsSent].filter((key) => {
			const window = key.split('|')[3];
			return window === ids.daily || window === ids.monthly;
		});
		return { version: 1, counters, alertsSent };
	}

	/** Write the counters now (temp file + rename). Resolves when on disk. */
	async flush(): Promise<void> {
		while (this.writing) await this.writing;
		if (!this.dirty) return;
		this.dirty = false;
		const tmp = `${this.countersPath}.${process.pid}.tmp`;
		const text = JSON.stringify(this.snapshotFile());
		this.writing = (async () => {
			await writeFile(tmp, text);
			await rename(tmp, this.countersPath);
		})();
		try {
			await this.writing;
		} finally {
			this.writing = undefined;
		}
	}

	async close(): Promise<void> {
		this.closed = true;
		if (this.timer) clearTimeout(this.timer);
		this.timer = undefined;
		await this.flush();
	}
}
