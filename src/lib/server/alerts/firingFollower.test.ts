/**
 * Cluster mode: the rules are evaluated on the slot holder only, yet a tab on any replica hears
 * its firings. Two alert services on one database (both engines): the one evaluating delivers
 * each firing to its own tabs once, the standby's tabs get every one of them once (read from the
 * table), and a Test pressed on the standby reaches the other's tabs the same way. Firings from
 * before a replica started are not handed on.
 */
import { describe, expect, it } from 'vitest';
import { useDatabases } from '../../../../tests/support/databases';
import type { AlertFiring } from '../../alerts/firing';
import { openDatabase, type Database } from '../db/index';
import { FeedHolder } from '../feeds';
import { UpdateTap } from '../updates/tap';
import { firingKey } from './firingLog';
import { AlertService } from './service';
import { snapshot, T0 } from './snapshot.test-support';

const engines = useDatabases();

async function replica(db: Database, evaluating: boolean) {
	const tap = new UpdateTap();
	const holder = new FeedHolder({ tap, account: async () => ({ streams: false }) });
	const alerts = new AlertService({
		db,
		feeds: holder.client('alerts'),
		watch: false,
		followFirings: true
	});
	await alerts.setEvaluating(evaluating);
	await alerts.start();
	const heard: AlertFiring[] = [];
	alerts.onFiring((f) => heard.push(f));
	return {
		tap,
		alerts,
		heard,
		close: async () => {
			alerts.close();
			holder.close();
			await db.close();
		}
	};
}

const keys = (fs: AlertFiring[]) => fs.map(firingKey).sort();

async function until(check: () => boolean, ms = 10_000) {
	const deadline = Date.now() + ms;
	while (!check() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
}

describe.each(engines)('firings across replicas on one $engine database', ({ target }) => {
	it("reach the standby replica's tabs once, and its Test reaches the holder's", async () => {
		const t = await target();
		const holder = await replica(await openDatabase(t), true);
		const rule = {
			id: 'zg',
			ticker: 'SPX',
			kind: 'cross',
			level: 'zero_gamma',
			cooldownSeconds: 0
		};
		expect((await holder.alerts.saveRule(rule)).ok).toBe(true);
		// An old firing, from before the standby started: not news to it.
		await holder.alerts.testRule('zg');
		await holder.alerts.idle();
		await new Promise((r) => setTimeout(r, 20));
		const standby = await replica(await openDatabase(t), false);
		try {
			const CROSSINGS = 6;
			for (let i = 0; i <= CROSSINGS; i++) {
				holder.tap.publish({
					source: 'snapshot',
					ticker: 'SPX',
					stream: 'classic_gex_full',
					receivedAt: 0,
					json: snapshot(T0 + i, i % 2 === 0 ? 6790 : 6810)
				});
			}
			await holder.alerts.idle();
			const expected = Array.from({ length: CROSSINGS }, (_, i) => `zg@${T0 + i + 1}`).sort();
			await until(() => standby.heard.length >= CROSSINGS);
			// Two more reads of the table: nothing arrives twice, on either side.
			await new Promise((r) => setTimeout(r, 2200));
			expect(keys(standby.heard)).toEqual(expected);
			expect(keys(holder.heard.filter((f) => !f.test))).toEqual(expected);

			const pressed = await standby.alerts.testRule('zg');
			expect(pressed).toBeDefined();
			await until(() => holder.heard.some((f) => f.id === pressed!.id));
			await new Promise((r) => setTimeout(r, 1200));
			expect(holder.heard.filter((f) => f.id === pressed!.id)).toHaveLength(1);
			expect(standby.heard.filter((f) => f.id === pressed!.id)).toHaveLength(1);
		} finally {
			await standby.close();
			await holder.close();
		}
	});
});
