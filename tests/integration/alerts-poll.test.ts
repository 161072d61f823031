/**
 * Alerts for an account that does not stream (demo Classic): the feed holder polls the
 * rules' routes once a second through the dashboard's real REST proxy (which publishes each
 * fresh snapshot on the update tap and counts the quota), against the embedded service at 30x;
 * UNG's spot crossing its zero gamma fires from the polled snapshots alone, and nothing is
 * polled while the market is said to be closed.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AlertFiring } from '../../src/lib/alerts/firing';
import { AlertService } from '../../src/lib/server/alerts/service';
import { openDatabase, type Database } from '../../src/lib/server/db/index';
import { FeedHolder } from '../../src/lib/server/feeds';
import { QuotaLedger } from '../../src/lib/server/quotaLedger';
import { UpstreamProxy } from '../../src/lib/server/proxy';
import { UpdateTap } from '../../src/lib/server/updates/tap';
import { demoAccounts } from '../../src/service/accounts/demo';
import { configuredTarget, startTestService, type TestService } from './service-support';

const classicKey = demoAccounts().accounts.find((a) => a._id === 'demo-classic')!.keys[0].key;

let svc: TestService;
let dataDir: string;
let db: Database;
let alerts: AlertService;
let holder: FeedHolder;
let open = true;
const polled: string[] = [];
const firings: AlertFiring[] = [];

beforeAll(async () => {
	dataDir = mkdtempSync(join(tmpdir(), 'gexdeck-alerts-poll-'));
	// Wednesday 2026-11-18 10:12 ET, just before UNG's spot meets its zero gamma.
	svc = await startTestService({ start: '2026-11-18T15:12:00Z', speed: 30, tickers: ['UNG'] });
	const target = configuredTarget(svc.service.url, classicKey);
	const tap = new UpdateTap();
	const proxy = new UpstreamProxy({
		target: async () => target,
		ledger: new QuotaLedger(),
		userAgent: 'gexdeck/test',
		tap
	});
	holder = new FeedHolder({
		tap,
		poll: (path) => {
			polled.push(path);
			return proxy.handle('GET', path, new URLSearchParams());
		},
		account: async () => ({ streams: false }),
		isMarketOpen: () => open
	});
	await holder.decide();
	db = await openDatabase({ dataDir });
	alerts = await new AlertService({ db, feeds: holder.client('alerts'), watch: false }).start();
	alerts.onFiring((f) => firings.push(f));
	expect(
		(
			await alerts.saveRule({
				id: 'zg',
				ticker: 'UNG',
				kind: 'cross',
				level: 'zero_gamma',
				cooldownSeconds: 0
			})
		).ok
	).toBe(true);
}, 120_000);

afterAll(async () => {
	alerts?.close();
	holder?.close();
	await svc?.close();
	await db?.close();
	rmSync(dataDir, { recursive: true, force: true });
});

describe('alerts on a polling account', () => {
	it('polls the rule route through the proxy and fires on the snapshots', async () => {
		expect(alerts.feedStatus()).toMatchObject({ mode: 'poll', needed: ['UNG_classic_gex_full'] });
		const deadline = Date.now() + 90_000;
		while (firings.length === 0 && Date.now() < deadline) {
			await new Promise((r) => setTimeout(r, 200));
		}
		expect(firings[0]).toMatchObject({ ruleId: 'zg', ticker: 'UNG', kind: 'cross', test: false });
		expect(new Set(polled)).toEqual(new Set(['UNG/classic/gex_full']));
	}, 120_000);

	it('does not poll while the market is closed', async () => {
		open = false;
		await new Promise((r) => setTimeout(r, 1100));
		const before = polled.length;
		await new Promise((r) => setTimeout(r, 2200));
		expect(polled.length).toBe(before);
		open = true;
	});
});
