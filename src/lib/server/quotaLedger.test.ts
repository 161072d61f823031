import * as fs from 'node:fs';
import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, onTestFinished, vi } from 'vitest';
import { etWindowIds } from '../contract/newYorkTime';
import { CorruptFileError, nodeFileOps, type FileOps } from './jsonFile';
import { setLogSink } from './log';
import { QuotaLedger } from './quotaLedger';

const fresh = () => join(mkdtempSync(join(tmpdir(), 'gexdeck-ledger-')), 'ledger.json');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The real file operations, counting renames (one per completed write) and failing on demand. */
function countingOps() {
	const state = { writes: 0, fail: false };
	const ops: FileOps = {
		...nodeFileOps,
		openSync: ((...args: Parameters<typeof fs.openSync>) => {
			if (state.fail) throw Object.assign(new Error('no space'), { code: 'ENOSPC' });
			return fs.openSync(...args);
		}) as typeof fs.openSync,
		renameSync: (a, b) => {
			state.writes++;
			fs.renameSync(a, b);
		}
	};
	return { ops, state };
}

afterEach(() => vi.restoreAllMocks());

describe('QuotaLedger', () => {
	it('counts per account and pool, resets at 00:00 New York, and survives a restart', () => {
		const path = join(mkdtempSync(join(tmpdir(), 'gexdeck-ledger-')), 'ledger.json');
		// 23:59:30 EST on Jan 31 = 04:59:30 UTC Feb 1.
		let now = new Date('2026-02-01T04:59:30Z');
		const ledger = new QuotaLedger(path, () => now);
		ledger.record('acct', 'api_default', 200);
		ledger.record('acct', 'api_default', 429);
		ledger.record('other', 'api_default', 200);
		expect(ledger.usage('acct').api_default.daily).toEqual({
			window: '2026-01-31',
			requests: 1,
			rateLimited: 1
		});
		ledger.flush();
		expect(statSync(path).mode & 0o777).toBe(0o600);

		now = new Date('2026-02-01T05:00:30Z'); // 00:00:30 ET Feb 1: new day and new month
		const reloaded = new QuotaLedger(path, () => now);
		reloaded.record('acct', 'api_default', 200);
		const u = reloaded.usage('acct').api_default;
		expect(u.daily).toEqual({ window: '2026-02-01', requests: 1, rateLimited: 0 });
		expect(u.monthly).toEqual({ window: '2026-02', requests: 1, rateLimited: 0 });
	});

	it('keeps the month across a daily reset', () => {
		const path = join(mkdtempSync(join(tmpdir(), 'gexdeck-ledger-')), 'ledger.json');
		let now = new Date('2026-07-14T15:00:00Z');
		const ledger = new QuotaLedger(path, () => now);
		ledger.record('a', 'api_majors', 200);
		now = new Date('2026-07-15T15:00:00Z');
		ledger.record('a', 'api_majors', 200);
		expect(ledger.usage('a').api_majors.daily.requests).toBe(1);
		expect(ledger.usage('a').api_majors.monthly.requests).toBe(2);
	});

	it('refuses a file gexdeck did not write, keeping it', () => {
		for (const text of [
			'null',
			'"ledger"',
			'{"accounts":{}}',
			'{"version":2,"accounts":{}}',
			'{"version":1}',
			'{"version":1,"accounts":null}',
			'{"version":1,"accounts":"x"}'
		]) {
			const path = fresh();
			writeFileSync(path, text);
			expect(() => new QuotaLedger(path), text).toThrow(CorruptFileError);
			expect(readFileSync(path, 'utf8'), text).toBe(text);
		}
		const ok = fresh();
		writeFileSync(ok, '{"version":1,"accounts":{}}');
		expect(new QuotaLedger(ok).usage('a')).toEqual({});
	});

	it('counts in the current ET windows by default and lives in <dataDir>/ledger.json', () => {
		const dir = mkdtempSync(join(tmpdir(), 'gexdeck-ledger-'));
		const ledger = QuotaLedger.inDataDir(dir);
		ledger.record('a', 'api_default', 200);
		const ids = etWindowIds(new Date());
		expect(ledger.usage('a').api_default).toEqual({
			daily: { window: ids.daily, requests: 1, rateLimited: 0 },
			monthly: { window: ids.monthly, requests: 1, rateLimited: 0 }
		});
		ledger.flush();
		expect(JSON.parse(readFileSync(join(dir, 'ledger.json'), 'utf8')).accounts.a).toBeDefined();
	});

	it('writes once shortly after a burst of records; an explicit flush cancels the pending write', async () => {
		const { ops, state } = countingOps();
		const path = fresh();
		const ledger = new QuotaLedger(path, () => new Date(), 20, ops);
		for (let i = 0; i < 5; i++) ledger.record('a', 'api_default', 200);
		expect(state.writes).toBe(0);
		await sleep(120);
		expect(state.writes).toBe(1);
		expect(JSON.parse(readFileSync(path, 'utf8')).accounts.a.api_default.daily.requests).toBe(5);
		ledger.record('a', 'api_default', 200);
		ledger.flush();
		expect(state.writes).toBe(2);
		await sleep(120);
		expect(state.writes).toBe(2);
	});

	it('keeps counting through write failures, says so once, and recovers', async () => {
		const errors: string[] = [];
		const previous = setLogSink({ out: () => undefined, err: (line) => errors.push(line) });
		onTestFinished(() => void setLogSink(previous));
		const { ops, state } = countingOps();
		const ledger = new QuotaLedger(fresh(), () => new Date(), 20, ops);
		state.fail = true;
		ledger.record('a', 'api_default', 200);
		expect(() => ledger.flush()).toThrow(/could not be saved \(ENOSPC\)/);
		expect(errors).toHaveLength(1);
		expect(errors[0]).toMatch(/^gexdeck: .*could not be saved \(ENOSPC\)/);
		expect(() => ledger.flush()).toThrow(/ENOSPC/);
		expect(errors).toHaveLength(1);
		expect(ledger.lastWriteError).toMatch(/ENOSPC/);
		// A scheduled write that fails does not throw out of its timer.
		ledger.record('a', 'api_default', 200);
		await sleep(80);
		state.fail = false;
		ledger.flush();
		expect(ledger.lastWriteError).toBeUndefined();
		expect(ledger.usage('a').api_default.daily.requests).toBe(2);
	});
});
