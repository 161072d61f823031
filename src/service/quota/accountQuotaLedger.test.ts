import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { defaultAllowances, LEVELS } from './allowances';
import { COUNTERS_FILE, OUTBOX_FILE, QuotaLedger } from './accountQuotaLedger';
import { tempDir } from './accountQuotaLedger.test-support';

describe('QuotaLedger', () => {
	it('refuses past the daily allowance, resets at ET midnight, writes one alert per window', async () => {
		const dir = tempDir();
		let now = new Date('2026-03-10T03:59:00Z'); // 23:59 ET (EDT)
		const ledger = new QuotaLedger({ dataDir: dir, now: () => now, flushDelayMs: 5 });
		const allowance = { daily: 2, monthly: 100 };
		expect(ledger.consume('a', 'api_majors', allowance).ok).toBe(true);
		expect(ledger.consume('a', 'api_majors', allowance).ok).toBe(true);
		expect(ledger.consume('a', 'api_majors', allowance)).toEqual({ ok: false, window: 'daily' });
		expect(ledger.consume('a', 'api_majors', allowance)).toEqual({ ok: false, window: 'daily' });
		// Other pools and accounts are independent.
		expect(ledger.consume('a', 'api_default', allowance).ok).toBe(true);
		expect(ledger.consume('b', 'api_majors', allowance).ok).toBe(true);
		now = new Date('2026-03-10T04:00:00Z'); // 00:00 ET
		expect(ledger.consume('a', 'api_majors', allowance).ok).toBe(true);
		await ledger.close();
		const mails = readFileSync(join(dir, OUTBOX_FILE), 'utf8')
			.trim()
			.split('\n')
			.map((l) => JSON.parse(l));
		expect(mails).toHaveLength(1);
		expect(mails[0]).toMatchObject({
			account: 'a',
			pool: 'api_majors',
			window: 'daily',
			window_id: '2026-03-09'
		});
	});

	it('applies the monthly window independently of the daily one', () => {
		const dir = tempDir();
		let now = new Date('2026-05-30T16:00:00Z');
		const ledger = new QuotaLedger({ dataDir: dir, now: () => now });
		const allowance = { daily: 10, monthly: 3 };
		for (let i = 0; i < 3; i++) {
			if (i === 2) now = new Date('2026-05-31T16:00:00Z');
			expect(ledger.consume('a', 'api_default', allowance).ok).toBe(true);
		}
		expect(ledger.consume('a', 'api_default', allowance)).toEqual({ ok: false, window: 'monthly' });
		now = new Date('2026-06-01T04:00:00Z'); // 1 June 00:00 ET
		expect(ledger.consume('a', 'api_default', allowance).ok).toBe(true);
	});

	it('survives a restart: counters are reloaded from the data directory', async () => {
		const dir = tempDir();
		const now = new Date('2026-04-02T15:00:00Z');
		const first = new QuotaLedger({ dataDir: dir, now: () => now });
		const allowance = { daily: 3, monthly: 100 };
		first.consume('a', 'api_history_cache', allowance);
		first.consume('a', 'api_history_cache', allowance);
		await first.close();
		expect(JSON.parse(readFileSync(join(dir, COUNTERS_FILE), 'utf8')).version).toBe(1);
		const second = new QuotaLedger({ dataDir: dir, now: () => now });
		expect(second.consume('a', 'api_history_cache', allowance).ok).toBe(true);
		expect(second.consume('a', 'api_history_cache', allowance).ok).toBe(false);
		await second.close();
	});
});

describe('default allowances', () => {
	it('follow the published rules', () => {
		const all = LEVELS.map((l) => defaultAllowances(l));
		for (let i = 0; i < all.length; i++) {
			const a = all[i];
			expect(a.api_majors).toEqual(a.api_max_change);
			expect(a.api_majors.daily).toBeLessThan(a.api_default.daily);
			expect(a.api_research_command).toEqual({ daily: 1_000_000, monthly: 30_000_000 });
			if (i > 0) {
				expect(a.api_default.daily).toBeGreaterThan(all[i - 1].api_default.daily);
				expect(a.api_history_cache).toEqual(all[0].api_history_cache);
				expect(a.api_futures_conversion).toEqual(all[0].api_futures_conversion);
			}
		}
		const [classic, state, orderflow, quant] = all;
		expect(state.api_majors.daily).toBeGreaterThan(classic.api_majors.daily);
		expect(orderflow.api_majors.daily).toBeGreaterThan(state.api_majors.daily);
		expect(quant.api_majors).toEqual(orderflow.api_majors);
	});
});
