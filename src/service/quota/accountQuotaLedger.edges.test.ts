/**
 * The service's quota ledger at its edges (what `npm run mutate` found untested): the counter
 * file it refuses to load, what a restart keeps (counts, alerts already sent), usage of every
 * pool, the alert e-mail's text, and when it writes (delayed, never after close, never idle).
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { QUOTA_POOLS } from './allowances';
import { COUNTERS_FILE, OUTBOX_FILE, QuotaLedger } from './accountQuotaLedger';
import { tempDir } from './accountQuotaLedger.test-support';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const NOON = new Date('2026-04-02T16:00:00Z'); // 12:00 ET
const counters = (dir: string) => JSON.parse(readFileSync(join(dir, COUNTERS_FILE), 'utf8'));
const mails = (dir: string) =>
	readFileSync(join(dir, OUTBOX_FILE), 'utf8')
		.trim()
		.split('\n')
		.map((l) => JSON.parse(l));

describe('service QuotaLedger files', () => {
	it('refuses a counter file it did not write, naming it', () => {
		const cases: [string, RegExp][] = [
			['{', /quota-counters\.json: not valid JSON/],
			['null', /unknown quota counter file format/],
			['{"version":2,"counters":{}}', /unknown quota counter file format/],
			['{"version":1,"counters":"x"}', /unknown quota counter file format/],
			['{"version":1}', /unknown quota counter file format/]
		];
		for (const [text, error] of cases) {
			const dir = tempDir();
			writeFileSync(join(dir, COUNTERS_FILE), text);
			expect(() => new QuotaLedger({ dataDir: dir, now: () => NOON }), text).toThrow(error);
		}
		// Unreadable is not missing: the error is not swallowed.
		const dir = tempDir();
		mkdirSync(join(dir, COUNTERS_FILE));
		expect(() => new QuotaLedger({ dataDir: dir, now: () => NOON })).toThrow(/EISDIR/);
		// An older file without alertsSent loads.
		const old = tempDir();
		writeFileSync(join(old, COUNTERS_FILE), '{"version":1,"counters":{}}');
		expect(new QuotaLedger({ dataDir: old, now: () => NOON }).usage('a')).toHaveLength(
			QUOTA_POOLS.length
		);
	});

	it('a restart keeps every pool count and the alerts already sent in the window', async () => {
		const dir = tempDir();
		const allowance = { daily: 2, monthly: 100 };
		const first = new QuotaLedger({ dataDir: dir, now: () => NOON });
		first.consume('a', 'api_majors', allowance);
		first.consume('a', 'api_majors', allowance);
		first.consume('a', 'api_default', allowance);
		expect(first.consume('a', 'api_majors', allowance).ok).toBe(false);
		await first.close();
		const second = new QuotaLedger({ dataDir: dir, now: () => NOON });
		const usage = Object.fromEntries(second.usage('a').map((u) => [u.pool, u]));
		expect(usage.api_majors).toEqual({
			pool: 'api_majors',
			daily: { window: '2026-04-02', used: 2 },
			monthly: { window: '2026-04', used: 2 }
		});
		expect(usage.api_default.daily.used).toBe(1);
		expect(second.consume('a', 'api_majors', allowance).ok).toBe(false);
		await second.close();
		expect(mails(dir)).toHaveLength(1);
	});

	it('reports every pool, rolled over to the current windows', async () => {
		let now = NOON;
		const ledger = new QuotaLedger({ dataDir: tempDir(), now: () => now });
		ledger.consume('a', 'api_default', { daily: 10, monthly: 10 });
		const usage = ledger.usage('a');
		expect(usage.map((u) => u.pool)).toEqual([...QUOTA_POOLS]);
		expect(usage.find((u) => u.pool === 'api_default')?.daily).toEqual({
			window: '2026-04-02',
			used: 1
		});
		now = new Date('2026-04-03T16:00:00Z');
		const next = ledger.usage('a').find((u) => u.pool === 'api_default');
		expect(next).toEqual({
			pool: 'api_default',
			daily: { window: '2026-04-03', used: 0 },
			monthly: { window: '2026-04', used: 1 }
		});
		// A new month starts its counter from zero and counts again.
		now = new Date('2026-05-01T16:00:00Z');
		expect(ledger.consume('a', 'api_default', { daily: 10, monthly: 10 })).toEqual({
			ok: true,
			daily: 1,
			monthly: 1
		});
		expect(ledger.usage('a').find((u) => u.pool === 'api_default')?.monthly).toEqual({
			window: '2026-05',
			used: 1
		});
		await ledger.close();
	});

	it('writes the alert e-mail in full, once per account, pool and window', async () => {
		const dir = tempDir();
		const ledger = new QuotaLedger({ dataDir: dir, now: () => NOON });
		const allowance = { daily: 1, monthly: 100 };
		ledger.consume('acct-1', 'api_majors', allowance);
		ledger.consume('acct-1', 'api_majors', allowance);
		ledger.consume('acct-1', 'api_majors', allowance);
		ledger.consume('acct-2', 'api_majors', allowance);
		ledger.consume('acct-2', 'api_majors', allowance);
		await ledger.close();
		const [mail, other] = mails(dir);
		expect(mail).toEqual({
			type: 'quota_alert_email',
			to: 'acct-1 (registered address)',
			account: 'acct-1',
			pool: 'api_majors',
			window: 'daily',
			window_id: '2026-04-02',
			allowance: 1,
			subject: 'Quota reached: api_majors (daily window 2026-04-02)',
			body: 'Your account acct-1 has used its daily allowance of 1 requests for api_majors. Further requests answer 429 until the window resets at 00:00 ET.',
			sent_at: NOON.toISOString()
		});
		expect(other.account).toBe('acct-2');
		expect(counters(dir).alertsSent).toEqual([
			'acct-1|api_majors|daily|2026-04-02',
			'acct-2|api_majors|daily|2026-04-02'
		]);
	});

	it('forgets sent alerts of windows that have passed, keeps the current month', async () => {
		const dir = tempDir();
		let now = NOON;
		const ledger = new QuotaLedger({ dataDir: dir, now: () => now });
		ledger.consume('a', 'api_majors', { daily: 0, monthly: 100 });
		ledger.consume('a', 'api_default', { daily: 100, monthly: 0 });
		await ledger.flush();
		expect(counters(dir).alertsSent).toHaveLength(2);
		now = new Date('2026-04-03T16:00:00Z');
		ledger.consume('a', 'api_history_cache', { daily: 5, monthly: 5 });
		await ledger.close();
		expect(counters(dir).alertsSent).toEqual(['a|api_default|monthly|2026-04']);
	});
});

describe('service QuotaLedger writes', () => {
	it('writes shortly after a change by itself; nothing when nothing changed', async () => {
		const dir = tempDir();
		const idle = new QuotaLedger({ dataDir: dir, now: () => NOON, flushDelayMs: 10 });
		await idle.close();
		expect(existsSync(join(dir, COUNTERS_FILE))).toBe(false);
		const ledger = new QuotaLedger({ dataDir: dir, now: () => NOON, flushDelayMs: 10 });
		ledger.consume('a', 'api_default', { daily: 9, monthly: 9 });
		await sleep(150);
		expect(counters(dir).counters.a.api_default.daily.used).toBe(1);
		await ledger.close();
	});

	it('after close, changes are not written behind the caller', async () => {
		const dir = tempDir();
		const ledger = new QuotaLedger({ dataDir: dir, now: () => NOON, flushDelayMs: 10 });
		ledger.consume('a', 'api_default', { daily: 9, monthly: 9 });
		await ledger.close();
		ledger.consume('a', 'api_default', { daily: 9, monthly: 9 });
		await sleep(150);
		expect(counters(dir).counters.a.api_default.daily.used).toBe(1);
	});

	it('concurrent flushes write one after another, the last state last', async () => {
		const dir = tempDir();
		const ledger = new QuotaLedger({ dataDir: dir, now: () => NOON, flushDelayMs: 60_000 });
		const allowance = { daily: 100, monthly: 100 };
		const flushes: Promise<void>[] = [];
		for (let i = 0; i < 20; i++) {
			ledger.consume('a', 'api_default', allowance);
			flushes.push(ledger.flush());
		}
		await Promise.all(flushes);
		expect(counters(dir).counters.a.api_default.daily.used).toBe(20);
		await ledger.close();
	});
});
