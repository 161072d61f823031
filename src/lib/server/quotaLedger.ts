/**
 * What this dashboard has spent upstream, per account and quota pool, in the current daily and
 * monthly windows (00:00 America/New_York resets), persisted in `<dataDir>/ledger.json` so a
 * restart does not forget the day's spending.
 */
import { join } from 'node:path';
import { etWindowIds } from '../contract/newYorkTime';
import { nodeFileOps, readJsonFile, writeJsonFile, type FileOps } from './jsonFile';
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

interface LedgerFile {
	version: 1;
	accounts: Record<string, Record<string, PoolSpend>>;
}

function isLedgerFile(v: unknown): v is LedgerFile {
	const f = v as LedgerFile;
	return (
		typeof v === 'object' &&
		v !== null &&
		f.version === 1 &&
		typeof f.accounts === 'object' &&
		f.accounts !== null
	);
}

export class QuotaLedger {
	private file: LedgerFile;
	private timer: NodeJS.Timeout | undefined;
	/** The last write failure (full disk, read-only folder), until a write succeeds again. */
	lastWriteError: string | undefined;

	/** A ledger file that is not what gexdeck wrote throws CorruptFileError (a copy kept). */
	constructor(
		private readonly path: string,
		private readonly now: () => Date = () => new Date(),
		private readonly flushDelayMs = 500,
		private readonly ops: FileOps = nodeFileOps
	) {
		this.file = readJsonFile(path, isLedgerFile, ops) ?? { version: 1, accounts: {} };
	}

	static inDataDir(dataDir: string): QuotaLedger {
		return new QuotaLedger(join(dataDir, 'ledger.json'));
	}

	private spend(account: string, pool: string): PoolSpend {
		const ids = etWindowIds(this.now());
		const pools = (this.file.accounts[account] ??= {});
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
		this.scheduleFlush();
	}

	/** Current windows of every pool the account has used. */
	usage(account: string): Record<string, PoolSpend> {
		const pools = this.file.accounts[account] ?? {};
		return Object.fromEntries(
			Object.keys(pools).map((pool) => {
				const s = this.spend(account, pool);
				return [pool, { daily: { ...s.daily }, monthly: { ...s.monthly } }];
			})
		);
	}

	private scheduleFlush(): void {
		if (this.timer) return;
		this.timer = setTimeout(() => {
			this.timer = undefined;
			try {
				this.flush();
			} catch {
				// Counts stay in memory; the next record tries again (flush logged why).
			}
		}, this.flushDelayMs);
		this.timer.unref();
	}

	/** Write the ledger now. On failure the file on disk keeps its last good version, the
	 * counts stay in memory for the next attempt, and the error is logged and thrown. */
	flush(): void {
		if (this.timer) clearTimeout(this.timer);
		this.timer = undefined;
		try {
			writeJsonFile(this.path, this.file, this.ops);
			this.lastWriteError = undefined;
		} catch (err) {
			const message = (err as Error).message;
			if (message !== this.lastWriteError) log.error(message);
			this.lastWriteError = message;
			throw err;
		}
	}
}
