/**
 * Where the alert rules are evaluated (issue 30, cluster mode: on the slot holder only,
 * alertsMount.ts): a service told not to evaluate reads no update and holds no feed; told to
 * again, it holds its rules' feeds and fires on the next crossing. Taking over from another
 * process (a failover), a rule's cooldown runs on from the last firing in the log, whoever
 * stored it, and a state kept from an earlier turn is not acted on.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AlertFiring } from '../../alerts/firing';
import { openDatabase, type Database } from '../db/index';
import { FeedHolder } from '../feeds';
import { UpdateTap } from '../updates/tap';
import { AlertService } from './service';
import { snapshot, T0 } from './snapshot.test-support';

let dir: string;
let db: Database;
beforeEach(async () => {
	dir = mkdtempSync(join(tmpdir(), 'gexdeck-alerts-evaluating-'));
	db = await openDatabase({ dataDir: dir });
});
afterEach(async () => {
	await db.close();
	rmSync(dir, { recursive: true, force: true });
});

describe('AlertService.setEvaluating', () => {
	it('evaluates only while told to, holding its feeds only then', async () => {
		const tap = new UpdateTap();
		const holder = new FeedHolder({ tap, account: async () => ({ streams: false }) });
		const feeds = holder.client('alerts');
		const service = new AlertService({ db, feeds, watch: false });
		await service.setEvaluating(false);
		await service.start();
		expect(
			(
				await service.saveRule({
					id: 'zg',
					name: 'zg',
					ticker: 'SPX',
					kind: 'cross',
					level: 'zero_gamma'
				})
			).ok
		).toBe(true);
		const tabs: AlertFiring[] = [];
		service.onFiring((f) => tabs.push(f));
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
		expect(tabs).toEqual([]);
		expect(feeds.status().feeds).toEqual([]);

		await service.setEvaluating(true);
		expect(feeds.status().feeds.map((f) => f.group)).toEqual(['SPX_classic_gex_full']);
		publish(T0 + 2, 6790);
		publish(T0 + 3, 6810);
		await service.idle();
		expect(tabs.map((f) => f.direction)).toEqual(['up']);

		await service.setEvaluating(false);
		publish(T0 + 4, 6790);
		publish(T0 + 5, 6810);
		await service.idle();
		expect(tabs).toHaveLength(1);
		expect(feeds.status().feeds).toEqual([]);
		service.close();
		holder.close();
	});

	it('takes over with the cooldown the firing log says, not a fresh or stale state', async () => {
		const tap = new UpdateTap();
		const holder = new FeedHolder({ tap, account: async () => ({ streams: false }) });
		const make = async () => {
			const s = new AlertService({ db, feeds: holder.client('alerts'), watch: false });
			await s.setEvaluating(false);
			await s.start();
			const heard: number[] = [];
			s.onFiring((f) => heard.push(f.at));
			return { s, heard };
		};
		const a = await make();
		const rule = { id: 'zg', ticker: 'SPX', kind: 'cross', level: 'zero_gamma' };
		expect((await a.s.saveRule({ ...rule, cooldownSeconds: 60 })).ok).toBe(true);
		const b = await make();
		const publish = (t: number, spot: number) =>
			tap.publish({
				source: 'snapshot',
				ticker: 'SPX',
				stream: 'classic_gex_full',
				receivedAt: 0,
				json: snapshot(t, spot)
			});
		const crossings = async (from: number, to: number) => {
			for (let t = from; t <= to; t++) publish(t, t % 2 === 0 ? 6790 : 6810);
			await Promise.all([a.s.idle(), b.s.idle()]);
		};
		await a.s.setEvaluating(true);
		await crossings(T0, T0 + 3);
		expect(a.heard).toEqual([T0 + 1]);

		// A fails over to B: B's engine starts fresh, but the cooldown A started holds.
		await a.s.setEvaluating(false);
		await b.s.setEvaluating(true);
		await crossings(T0 + 4, T0 + 60);
		expect(b.heard).toEqual([]);
		await crossings(T0 + 61, T0 + 62);
		expect(b.heard).toEqual([T0 + 61]);

		// Back to A, its cooldown over: the side A kept from its turn (above, at T0 + 3) is not
		// acted on either (B saw spot go below at T0 + 62, inside its cooldown: no firing).
		await b.s.setEvaluating(false);
		await a.s.setEvaluating(true);
		publish(T0 + 122, 6790);
		await a.s.idle();
		expect(a.heard).toEqual([T0 + 1]);
		for (const x of [a, b]) x.s.close();
		holder.close();
	});
});
