/**
 * Two alert engines on one database (two replicas, or a process and the one taking over) see the
 * same data and fire the same firings; each firing's row carries its idempotency key (rule id @
 * data time, UNIQUE), and only the engine whose insert won delivers it: a real webhook receiver
 * on loopback gets every firing exactly once, the tabs' listeners of both engines together get
 * each once, and the table holds one row per firing. On both engines (a real PostgreSQL).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useDatabases } from '../../../../tests/support/databases';
import type { AlertFiring } from '../../alerts/firing';
import { openDatabase, type Database } from '../db/index';
import { FeedHolder } from '../feeds';
import { UpdateTap } from '../updates/tap';
import { parseAllowList } from './addressPolicy';
import { firingKey } from './firingLog';
import { AlertService } from './service';
import { snapshot, T0 } from './snapshot.test-support';

const engines = useDatabases();
let server: Server;
let url: string;
const received: AlertFiring[] = [];

beforeAll(async () => {
	server = createServer((req, res) => {
		let body = '';
		req.on('data', (c: Buffer) => (body += c));
		req.on('end', () => {
			received.push(JSON.parse(body) as AlertFiring);
			res.writeHead(204).end();
		});
	});
	await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
	url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
});
afterAll(async () => {
	await new Promise((r) => server.close(r));
});

interface Replica {
	tap: UpdateTap;
	alerts: AlertService;
	heard: AlertFiring[];
	close(): Promise<void>;
}

async function replica(db: Database): Promise<Replica> {
	const tap = new UpdateTap();
	const holder = new FeedHolder({ tap, account: async () => ({ streams: false }) });
	const alerts = await new AlertService({
		db,
		feeds: holder.client('alerts'),
		watch: false,
		sender: { allow: parseAllowList('127.0.0.1'), maxAttempts: 1 }
	}).start();
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

describe.each(engines)('two alert engines on one $engine database', ({ target }) => {
	it('deliver each firing once, by the engine whose insert won', async () => {
		received.length = 0;
		const t = await target();
		const a = await replica(await openDatabase(t));
		let b: Replica | undefined;
		try {
			expect((await a.alerts.saveWebhook({ id: 'hook', url })).ok).toBe(true);
			expect(
				(
					await a.alerts.saveRule({
						id: 'zg',
						ticker: 'SPX',
						kind: 'cross',
						level: 'zero_gamma',
						cooldownSeconds: 0,
						webhooks: ['hook']
					})
				).ok
			).toBe(true);
			b = await replica(await openDatabase(t));
			expect(b.alerts.rules().map((v) => v.rule.id)).toEqual(['zg']);

			// Spot crosses zero gamma on every second step: both engines get the same snapshots.
			const CROSSINGS = 12;
			for (let i = 0; i <= CROSSINGS; i++) {
				const json = snapshot(T0 + i, i % 2 === 0 ? 6790 : 6810);
				for (const r of [a, b!]) {
					r.tap.publish({
						source: 'snapshot',
						ticker: 'SPX',
						stream: 'classic_gex_full',
						receivedAt: 0,
						json
					});
				}
			}
			await Promise.all([a.alerts.idle(), b.alerts.idle()]);
			const deadline = Date.now() + 10_000;
			while (received.length < CROSSINGS && Date.now() < deadline) {
				await new Promise((r) => setTimeout(r, 20));
			}
			// Longer than a delivery takes on loopback: a second delivery would have arrived.
			await new Promise((r) => setTimeout(r, 300));

			const keys = (fs: AlertFiring[]) => fs.map(firingKey).sort();
			const expected = Array.from({ length: CROSSINGS }, (_, i) => `zg@${T0 + i + 1}`).sort();
			expect(keys(received.filter((f) => !f.test))).toEqual(expected);
			expect(keys([...a.heard, ...b.heard])).toEqual(expected);
			const db = await openDatabase(t);
			try {
				expect(
					(await db.all<{ idem_key: string }>(`SELECT idem_key FROM alert_firings`))
						.map((r) => r.idem_key)
						.sort()
				).toEqual(expected);
			} finally {
				await db.close();
			}
			// Every test press is its own firing: each is delivered.
			await a.alerts.testRule('zg');
			await b.alerts.testRule('zg');
			expect(a.heard.filter((f) => f.test).length + b.heard.filter((f) => f.test).length).toBe(2);
			while (received.length < CROSSINGS + 2 && Date.now() < deadline + 10_000) {
				await new Promise((r) => setTimeout(r, 20));
			}
			expect(received.filter((f) => f.test)).toHaveLength(2);
		} finally {
			await a.close();
			await b?.close();
		}
	}, 60_000);
});
