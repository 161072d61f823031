/**
 * The alerts service without a network: rules held in the relay count against the membership
 * limit and a refused group shows on its rule; polled snapshots on the tap fire to the tabs'
 * listeners and only to the webhooks a rule names; Test fires with the latest values.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AlertFiring } from '../../alerts/firing';
import { FeedHolder } from '../feeds';
import { StreamRelay } from '../stream/relay';
import { UpdateTap } from '../updates/tap';
import { openDatabase, type Database } from '../db/index';
import { AlertService } from './service';
import { snapshot, T0 } from './snapshot.test-support';

let dir: string;
let db: Database;
let service: AlertService | undefined;
let relay: StreamRelay | undefined;
let holder: FeedHolder | undefined;

/** The alerts client of a holder on `tap` with no relay and no proxy (updates only). */
function tapFeeds(tap: UpdateTap) {
	holder = new FeedHolder({ tap, account: async () => ({ streams: false }) });
	return holder.client('alerts');
}
beforeEach(async () => {
	dir = mkdtempSync(join(tmpdir(), 'gexdeck-alerts-service-'));
	db = await openDatabase({ dataDir: dir });
});
afterEach(async () => {
	service?.close();
	holder?.close();
	await relay?.close();
	service = undefined;
	holder = undefined;
	relay = undefined;
	await db.close();
	rmSync(dir, { recursive: true, force: true });
});

describe('AlertService', () => {
	it('holds rule groups in the relay and shows a group refused by the membership limit', async () => {
		relay = new StreamRelay({
			baseUrl: 'http://127.0.0.1:9/v2',
			key: 'gexbot_custom_test',
			userAgent: 'gexdeck/test',
			groupLimit: 2,
			// No upstream in this test: negotiation fails and backs off; the book decides alone.
			fetch: () => Promise.reject(new Error('offline')),
			backoff: { baseMs: 60_000, maxMs: 60_000 }
		});
		holder = new FeedHolder({
			tap: new UpdateTap(),
			relay,
			account: async () => ({ streams: true })
		});
		await holder.decide();
		service = new AlertService({ db, feeds: holder.client('alerts'), watch: false });
		await service.start();
		expect((await service.saveRule({ id: 'a', ticker: 'SPX', kind: 'gex_sign' })).ok).toBe(true);
		expect((await service.saveRule({ id: 'b', ticker: 'NDX', kind: 'gex_sign' })).ok).toBe(true);
		expect(relay.status().groups).toEqual(['SPX_classic_gex_full', 'SPX_spot']);
		const views = service.rules();
		expect(views.find((v) => v.rule.id === 'a')!.feedError).toBeNull();
		expect(views.find((v) => v.rule.id === 'b')!.feedError).toMatch(
			/^budget exhausted: Membership limit: adding NDX_classic_gex_full/
		);
		expect(service.feedStatus()).toMatchObject({
			refused: [{ group: 'NDX_classic_gex_full' }],
			usage: { used: 2, limit: 2 },
			rulesNeed: 4
		});
		// The relay cannot reach its upstream in this test: the page says so.
		await relay.settled();
		expect(service.feedStatus().streamProblem).toMatch(/^reconnecting: .*offline/);
		// Pausing the SPX rule releases its group; the NDX one then fits.
		expect(await service.setRulePaused('a', true)).toBe(true);
		expect(relay.status().groups).toEqual(['NDX_classic_gex_full', 'NDX_spot']);
		expect(service.feedStatus().refused).toEqual([]);
		service.close();
		service = undefined;
		expect(relay.viewerCount).toBe(0);
	});

	it('fires polled snapshots to the tabs and only to the webhooks a rule names', async () => {
		const tap = new UpdateTap();
		const posted: { url: string; body: string }[] = [];
		const s = await new AlertService({
			db,
			feeds: tapFeeds(tap),
			watch: false,
			sender: {
				// Public names pinned to a public address; the post is recorded, not sent.
				resolve: async () => [{ address: '93.184.215.14', family: 4 }],
				post: async (url, o) => {
					posted.push({ url: String(url), body: o.body });
					return 204;
				}
			}
		}).start();
		service = s;
		expect((await s.saveWebhook({ id: 'one', url: 'https://one.example/hook' })).ok).toBe(true);
		expect(
			(await s.saveWebhook({ id: 'two', url: 'https://two.example/hook', format: 'slack' })).ok
		).toBe(true);
		expect(
			(
				await s.saveRule({
					id: 'zg',
					name: 'SPX zg',
					ticker: 'SPX',
					kind: 'cross',
					level: 'zero_gamma',
					webhooks: ['two']
				})
			).ok
		).toBe(true);
		const tabs: AlertFiring[] = [];
		const stop = s.onFiring((f) => tabs.push(f));
		const publish = (t: number, spot: number) =>
			tap.publish({
				source: 'snapshot',
				ticker: 'SPX',
				stream: 'classic_gex_full',
				receivedAt: 0,
				json: snapshot(t, spot)
			});
		publish(T0, 6790);
		publish(T0 + 1, 6810);
		// A snapshot of a stream no rule reads is not even parsed.
		tap.publish({
			source: 'snapshot',
			ticker: 'SPX',
			stream: 'classic_gex_zero',
			receivedAt: 0,
			json: '{'
		});
		expect(s.failures).toBe(0);
		await s.idle();
		expect(tabs.map((f) => [f.ruleId, f.direction, f.values])).toEqual([
			['zg', 'up', { spot: 6810, level: 6800 }]
		]);
		await new Promise((r) => setTimeout(r, 10));
		expect(posted.map((p) => p.url)).toEqual(['https://two.example/hook']);
		expect(JSON.parse(posted[0].body).text).toContain(
			'SPX spot 6810 crossed above zero gamma 6800'
		);
		expect((await s.firings())[0].id).toBe(tabs[0].id);
		expect(s.rules()[0].lastFiredAt).toBe((T0 + 1) * 1000);

		// Test: the latest values, marked as a test, to the same places.
		const test = (await s.testRule('zg'))!;
		expect(test).toMatchObject({ test: true, values: { spot: 6810, level: 6800 }, at: T0 + 1 });
		expect(tabs).toHaveLength(2);
		stop();
	});

	it('counts a corrupt snapshot and goes on', async () => {
		const tap = new UpdateTap();
		holder = new FeedHolder({ tap, account: async () => ({ streams: false }) });
		service = new AlertService({ db, feeds: holder.client('alerts'), watch: false });
		await service.start();
		await service.saveRule({ id: 'zg', ticker: 'SPX', kind: 'cross', level: 'zero_gamma' });
		tap.publish({
			source: 'snapshot',
			ticker: 'SPX',
			stream: 'classic_gex_full',
			receivedAt: 0,
			json: '{"timestamp":'
		});
		tap.publish({
			source: 'snapshot',
			ticker: 'SPX',
			stream: 'classic_gex_full',
			receivedAt: 0,
			json: '{"timestamp":1}'
		});
		// Bad JSON fails in the holder's one decode; a body that is no chain in the alerts' check.
		expect(holder.fanout.counters.decodeFailures).toBe(1);
		expect(service.failures).toBe(1);
		expect(tap.failures).toBe(0);
	});
});
