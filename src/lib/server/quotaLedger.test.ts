import { mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { QuotaLedger } from './quotaLedger';

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
});
