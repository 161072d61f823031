/**
 * The dashboard's quota ledger on both databases: counts per account, pool and New York window,
 * kept across a restart, written once after a burst, and kept in memory through write failures.
 */
import { afterEach, describe, expect, it, onTestFinished, vi } from 'vitest';
import { useDatabases } from '../../../tests/support/databases';
import { etWindowIds } from '../contract/newYorkTime';
import { openDatabase, type Database } from './db/index';
import { setLogSink } from './log';
import { QuotaLedger } from './quotaLedger';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const engines = useDatabases();

/** The real database, counting committed ledger writes and refusing them on demand. */
function counting(db: Database) {
	const state = { writes: 0, fail: false };
	const wrapped: Database = {
		...db,
		transaction: async (fn) => {
			if (state.fail) throw new Error('database or disk is full');
			const result = await db.transaction(fn);
			state.writes++;
			return result;
		}
	};
	return { db: wrapped, state };
}

afterEach(() => vi.restoreAllMocks());

describe.each(engines)('QuotaLedger on $engine', ({ target }) => {
	it('counts per account and pool, resets at 00:00 New York, and survives a restart', async () => {
		const t = await target();
		const db = await openDatabase(t);
		// 23:59:30 EST on Jan 31 = 04:59:30 UTC Feb 1.
		let now = new Date('2026-02-01T04:59:30Z');
		const ledger = await QuotaLedger.load(db, () => now);
		ledger.record('acct', 'api_default', 200);
		ledger.record('acct', 'api_default', 429);
		ledger.record('other', 'api_default', 200);
		expect(ledger.usage('acct').api_default.daily).toEqual({
			window: '2026-01-31',
			requests: 1,
			rateLimited: 1
		});
		await ledger.flush();
		await db.close();

		const again = await openDatabase(t);
		const restarted = await QuotaLedger.load(again, () => now);
		expect(restarted.usage('acct').api_default.monthly).toEqual({
			window: '2026-01',
			requests: 1,
			rateLimited: 1
		});
		expect(restarted.usage('other').api_default.daily.requests).toBe(1);
		now = new Date('2026-02-01T05:00:30Z'); // 00:00:30 ET Feb 1: new day and new month
		restarted.record('acct', 'api_default', 200);
		const u = restarted.usage('acct').api_default;
		expect(u.daily).toEqual({ window: '2026-02-01', requests: 1, rateLimited: 0 });
		expect(u.monthly).toEqual({ window: '2026-02', requests: 1, rateLimited: 0 });
		await again.close();
	});

	it('keeps the month across a daily reset', async () => {
		const db = await openDatabase(await target());
		let now = new Date('2026-07-14T15:00:00Z');
		const ledger = await QuotaLedger.load(db, () => now);
		ledger.record('a', 'api_majors', 200);
		now = new Date('2026-07-15T15:00:00Z');
		ledger.record('a', 'api_majors', 200);
		expect(ledger.usage('a').api_majors.daily.requests).toBe(1);
		expect(ledger.usage('a').api_majors.monthly.requests).toBe(2);
		await db.close();
	});

	it('counts in the current ET windows by default, in the quota_spend table', async () => {
		const db = await openDatabase(await target());
		const ledger = await QuotaLedger.load(db);
		ledger.record('a', 'api_default', 200);
		const ids = etWindowIds(new Date());
		expect(ledger.usage('a').api_default).toEqual({
			daily: { window: ids.daily, requests: 1, rateLimited: 0 },
			monthly: { window: ids.monthly, requests: 1, rateLimited: 0 }
		});
		await ledger.flush();
		expect(
			await db.all(`SELECT period, window_id, requests FROM quota_spend ORDER BY period`)
		).toEqual([
			{ period: 'daily', window_id: ids.daily, requests: 1 },
			{ period: 'monthly', window_id: ids.monthly, requests: 1 }
		]);
		await db.close();
	});

	it('writes once shortly after a burst of records; an explicit flush cancels the pending write', async () => {
		const real = await openDatabase(await target());
		const { db, state } = counting(real);
		const ledger = await QuotaLedger.load(db, () => new Date(), 20);
		for (let i = 0; i < 5; i++) ledger.record('a', 'api_default', 200);
		expect(state.writes).toBe(0);
		await sleep(150);
		expect(state.writes).toBe(1);
		expect(
			await real.get(`SELECT requests FROM quota_spend WHERE period = 'daily' AND account = 'a'`)
		).toEqual({ requests: 5 });
		ledger.record('a', 'api_default', 200);
		await ledger.flush();
		expect(state.writes).toBe(2);
		await sleep(150);
		expect(state.writes).toBe(2);
		// Nothing counted since: no write at all.
		await ledger.flush();
		expect(state.writes).toBe(2);
		await real.close();
	});

	it('keeps counting through write failures, says so once, and recovers', async () => {
		const errors: string[] = [];
		// Only this ledger's failures: another test's ledger may still log as its database closes.
		const previous = setLogSink({
			out: () => undefined,
			err: (line) => void (line.includes('disk is full') && errors.push(line))
		});
		onTestFinished(() => void setLogSink(previous));
		const real = await openDatabase(await target());
		const { db, state } = counting(real);
		const ledger = await QuotaLedger.load(db, () => new Date(), 20);
		ledger.record('a', 'api_default', 200);
		await ledger.flush();
		state.fail = true;
		ledger.record('a', 'api_default', 200);
		await expect(ledger.flush()).rejects.toThrow(/could not be saved .*database or disk is full/);
		expect(errors).toHaveLength(1);
		expect(errors[0]).toMatch(/^gexdeck: the quota ledger could not be saved in /);
		await expect(ledger.flush()).rejects.toThrow(/disk is full/);
		expect(errors).toHaveLength(1);
		expect(ledger.lastWriteError).toMatch(/disk is full/);
		// The database keeps its last good counts.
		const daily = `SELECT requests FROM quota_spend WHERE period = 'daily' AND account = 'a'`;
		expect(await real.get(daily)).toEqual({ requests: 1 });
		// A scheduled write that fails does not throw out of its timer.
		ledger.record('a', 'api_default', 200);
		await sleep(80);
		state.fail = false;
		await ledger.flush();
		expect(ledger.lastWriteError).toBeUndefined();
		expect(ledger.usage('a').api_default.daily.requests).toBe(3);
		expect(await real.get(daily)).toEqual({ requests: 3 });
		await real.close();
	});

	it('a failed write carries the database error as its cause', async () => {
		const previous = setLogSink({ out: () => undefined, err: () => undefined });
		onTestFinished(() => void setLogSink(previous));
		const real = await openDatabase(await target());
		const refused = new Error('database or disk is full');
		const ledger = await QuotaLedger.load(
			{ ...real, transaction: () => Promise.reject(refused) },
			() => new Date(),
			20
		);
		ledger.record('a', 'api_default', 200);
		const err = await ledger.flush().then(
			() => undefined,
			(e: unknown) => e as Error
		);
		expect(err?.cause).toBe(refused);
		await real.close();
	});

	it('loads only the daily and monthly rows; a period without a row starts at zero', async () => {
		const db = await openDatabase(await target());
		const now = new Date('2026-03-10T15:00:00Z');
		const ids = etWindowIds(now);
		const insert = `INSERT INTO quota_spend (account, pool, period, window_id, requests, rate_limited)
			VALUES (?, ?, ?, ?, ?, ?)`;
		// A period this release does not count (another release's, or a damaged row): ignored.
		await db.run(insert, ['a', 'api_old', 'weekly', '2026-W11', 9, 1]);
		await db.run(insert, ['b', 'api_old', 'hourly', '2026-03-10T10', 3, 0]);
		// Only the day's row of this pool was stored: the month starts at zero.
		await db.run(insert, ['a', 'api_default', 'daily', ids.daily, 4, 2]);
		const ledger = await QuotaLedger.load(db, () => now);
		expect(ledger.usage('a')).toEqual({
			api_default: {
				daily: { window: ids.daily, requests: 4, rateLimited: 2 },
				monthly: { window: ids.monthly, requests: 0, rateLimited: 0 }
			}
		});
		expect(ledger.usage('b')).toEqual({});
		ledger.record('a', 'api_default', 200);
		expect(ledger.usage('a').api_default.monthly.requests).toBe(1);
		await ledger.flush();
		await db.close();
	});

	it('a burst of records schedules one write, not one per record', async () => {
		const db = await openDatabase(await target());
		const ledger = await QuotaLedger.load(db, () => new Date(), 20);
		const timers = vi.spyOn(globalThis, 'setTimeout');
		for (let i = 0; i < 5; i++) ledger.record('a', 'api_default', 200);
		expect(timers).toHaveBeenCalledTimes(1);
		timers.mockRestore();
		await ledger.flush();
		await db.close();
	});
});

describe('QuotaLedger without a database', () => {
	it('only counts in memory', async () => {
		const ledger = new QuotaLedger();
		ledger.record('a', 'api_default', 200);
		await ledger.flush();
		expect(ledger.usage('a').api_default.daily.requests).toBe(1);
	});

	it('schedules no write', () => {
		const ledger = new QuotaLedger();
		const timers = vi.spyOn(globalThis, 'setTimeout');
		ledger.record('a', 'api_default', 200);
		ledger.record('a', 'api_default', 429);
		expect(timers).not.toHaveBeenCalled();
	});

	it("counts in the windows of the process's clock by default", () => {
		// Only Date is faked: the ledger's default clock must be the one the rest of the app reads.
		vi.useFakeTimers({ toFake: ['Date'] });
		onTestFinished(() => void vi.useRealTimers());
		vi.setSystemTime(new Date('2020-03-01T17:00:00Z'));
		const ledger = new QuotaLedger();
		ledger.record('a', 'api_default', 200);
		expect(ledger.usage('a').api_default).toEqual({
			daily: { window: '2020-03-01', requests: 1, rateLimited: 0 },
			monthly: { window: '2020-03', requests: 1, rateLimited: 0 }
		});
	});
});
