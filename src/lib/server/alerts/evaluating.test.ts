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

const T0 = Date.UTC(2026, 10, 20, 15, 0, 0) / 1000;
const snapshot = (t: number, spot: number) =>
	JSON.stringify({
		timestamp: t,
		ticker: 'SPX',
		min_dte: 0,
		sec_min_dte: 1,
		spot,
		zero_gamma: 6800,
		major_pos_vol: 6850,
		major_pos_oi: 6900,
		major_neg_vol: 6750,
		major_neg_oi: 6700,
		strikes: [[6800, 1, 2, [1, 2, 3, 4, 5]]],
		sum_gex_vol: 100,
		sum_gex_oi: 50,
		delta_risk_reversal: 0.1,
		max_priors: [
			[6800, 1],
			[6805, 2],
			[6810, 3],
			[6815, 4],
			[6820, 5],
			[6825, 6]
		]
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
