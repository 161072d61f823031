/**
 * Where the alert rules are evaluated (issue 30, cluster mode: on the slot holder only,
 * alertsMount.ts): a service told not to evaluate reads no update and holds no feed; told to
 * again, it holds its rules' feeds and fires on the next crossing.
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
		service.setEvaluating(false);
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

		service.setEvaluating(true);
		expect(feeds.status().feeds.map((f) => f.group)).toEqual(['SPX_classic_gex_full']);
		publish(T0 + 2, 6790);
		publish(T0 + 3, 6810);
		await service.idle();
		expect(tabs.map((f) => f.direction)).toEqual(['up']);

		service.setEvaluating(false);
		publish(T0 + 4, 6790);
		publish(T0 + 5, 6810);
		await service.idle();
		expect(tabs).toHaveLength(1);
		expect(feeds.status().feeds).toEqual([]);
		service.close();
		holder.close();
	});
});
