/**
 * Alerts end to end over real sockets: the embedded service on the session clock at high speed
 * with its hubs, the dashboard's stream relay holding the rules' group (the alerts service is a
 * viewer of it through the feed holder, no tab open), the update tap, and local webhook receivers (http servers on
 * 127.0.0.1:0).
 *
 * UNG's spot trades around its zero gamma in the seeded test market, so a rule on spot
 * crossing zero gamma fires within a few simulated minutes. The webhook POST must arrive within
 * 2 s of the relay receiving the frame that crossed, with the documented fields; a receiver
 * that answers 500 three times then 200 gets exactly one delivery.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AlertFiring } from '../../src/lib/alerts/firing';
import { parseAllowList } from '../../src/lib/server/alerts/addressPolicy';
import { AlertService } from '../../src/lib/server/alerts/service';
import { openDatabase, type Database } from '../../src/lib/server/db/index';
import { FeedHolder } from '../../src/lib/server/feeds';
import { StreamRelay } from '../../src/lib/server/stream';
import { UpdateTap } from '../../src/lib/server/updates/tap';
import { decodeFrame } from '../../src/lib/wire/decode';
import { demoAccounts } from '../../src/service/accounts/demo';
import { attachHubs } from '../../src/service/hubs/index';
import { startTestService, type TestService } from './service-support';

interface Received {
	at: number;
	status: number;
	body: string;
	headers: IncomingMessage['headers'];
}

/** A webhook receiver answering `statuses` in turn (then 200), recording every request. */
async function receiver(statuses: number[] = []) {
	const got: Received[] = [];
	const waiters: (() => void)[] = [];
	const server: Server = createServer((req, res) => {
		const chunks: Buffer[] = [];
		req.on('data', (c: Buffer) => chunks.push(c));
		req.on('end', () => {
			const status = statuses[got.length] ?? 200;
			got.push({
				at: Date.now(),
				status,
				body: Buffer.concat(chunks).toString('utf8'),
				headers: req.headers
			});
			res.writeHead(status).end();
			for (const w of waiters.splice(0)) w();
		});
	});
	await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
	const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
	return {
		url,
		got,
		/** Resolves once `n` requests arrived. */
		async count(n: number, timeoutMs = 60_000) {
			const deadline = Date.now() + timeoutMs;
			while (got.length < n) {
				if (Date.now() > deadline) throw new Error(`only ${got.length} of ${n} requests`);
				await new Promise<void>((r) => {
					waiters.push(r);
					setTimeout(r, 200);
				});
			}
		},
		close: () => new Promise((r) => server.close(r))
	};
}

const key = demoAccounts()
	.accounts.find((a) => a._id === 'demo-quant')!
	.keys.find((k) => k.integration === 'custom')!.key;

let svc: TestService;
let relay: StreamRelay;
let alerts: AlertService;
let holder: FeedHolder;
let dataDir: string;
let db: Database;
const tap = new UpdateTap();
/** Data second -> when the relay first received a UNG frame of that second (wall ms). */
const receivedAt = new Map<number, number>();
/** UNG zero gamma by data second, from the relay's own frames. */
const zeroGamma = new Map<number, number>();
let fast: Awaited<ReturnType<typeof receiver>>;
let flaky: Awaited<ReturnType<typeof receiver>>;
const logs: string[] = [];

beforeAll(async () => {
	dataDir = mkdtempSync(join(tmpdir(), 'gexdeck-alerts-'));
	fast = await receiver();
	flaky = await receiver([500, 500, 500]);
	// Wednesday 2026-11-18, 10:05 ET (spot meets zero gamma near 10:14), 120 simulated seconds per second.
	svc = await startTestService({ start: '2026-11-18T15:05:00Z', speed: 120, tickers: ['UNG'] });
	await attachHubs(svc.service);
	tap.subscribe((u) => {
		if (u.source !== 'stream' || !u.group.startsWith('UNG_')) return;
		const f = decodeFrame(u.any);
		const t = Number((f.value as { timestamp: number }).timestamp);
		if (!receivedAt.has(t)) receivedAt.set(t, u.receivedAt);
		if (f.kind === 'gex') zeroGamma.set(t, f.value.zero_gamma);
	});
	relay = new StreamRelay({
		baseUrl: svc.service.url,
		key,
		userAgent: 'gexdeck/test',
		tap,
		backoff: { baseMs: 50, maxMs: 400 }
	});
	holder = new FeedHolder({ tap, relay, account: async () => ({ streams: true }) });
	await holder.decide();
	db = await openDatabase({ dataDir });
	alerts = await new AlertService({
		db,
		feeds: holder.client('alerts'),
		// The receivers listen on loopback, which a webhook reaches only when allowed.
		sender: { baseDelayMs: 50, maxDelayMs: 400, allow: parseAllowList('127.0.0.1') },
		log: (m) => logs.push(m)
	}).start();
	expect((await alerts.saveWebhook({ id: 'fast', url: fast.url, format: 'json' })).ok).toBe(true);
	expect((await alerts.saveWebhook({ id: 'flaky', url: flaky.url, format: 'json' })).ok).toBe(true);
	const rules = [
		{ id: 'zg', name: 'UNG zero gamma', webhooks: ['fast'], cooldownSeconds: 0 },
		// Fires once in the test's lifetime: the flaky receiver sees one firing's retries only.
		{ id: 'zg-once', webhooks: ['flaky'], cooldownSeconds: 86_400 }
	];
	for (const r of rules) {
		const saved = await alerts.saveRule({
			ticker: 'UNG',
			kind: 'cross',
			level: 'zero_gamma',
			...r
		});
		expect(saved.ok).toBe(true);
	}
}, 120_000);

afterAll(async () => {
	alerts?.close();
	holder?.close();
	await relay?.close();
	await svc?.close();
	await fast?.close();
	await flaky?.close();
	await db?.close();
	rmSync(dataDir, { recursive: true, force: true });
});

describe('alerts over the relay', () => {
	it('holds the rule group as a relay viewer (no tab open)', async () => {
		await relay.settled();
		expect(relay.viewerCount).toBe(1);
		expect(relay.status().groups).toEqual(['UNG_classic_gex_full', 'UNG_spot']);
		expect(alerts.feedStatus()).toMatchObject({
			mode: 'stream',
			needed: ['UNG_classic_gex_full'],
			refused: [],
			usage: { used: 2, limit: 150 },
			rulesNeed: 2
		});
	});

	it('posts a zero gamma crossing to the webhook within 2 s of the crossing frame', async () => {
		await fast.count(1, 90_000);
		const first = fast.got[0];
		expect(first.headers['content-type']).toBe('application/json');
		const body = JSON.parse(first.body) as AlertFiring;
		expect(body).toMatchObject({
			type: 'gexdeck.alert',
			ruleId: 'zg',
			ruleName: 'UNG zero gamma',
			description: 'UNG spot crosses zero gamma (Full)',
			ticker: 'UNG',
			kind: 'cross',
			package: 'classic',
			category: 'gex_full',
			test: false
		});
		expect(typeof body.id).toBe('string');
		expect(body.time).toBe(new Date(body.at * 1000).toISOString());
		expect(body.link).toBe(`/UNG/classic/gex_full?at=${body.at}`);
		expect(['up', 'down']).toContain(body.direction);
		// The values are the ones the relay's frames carried: spot on the side it crossed to, of
		// the zero gamma of the latest chain at that second.
		const latestChain = Math.max(...[...zeroGamma.keys()].filter((t) => t <= body.at));
		expect(body.values.level).toBe(zeroGamma.get(latestChain));
		expect(Math.sign(body.values.spot - body.values.level)).toBe(body.direction === 'up' ? 1 : -1);
		const crossingFrameAt = receivedAt.get(body.at);
		expect(crossingFrameAt).toBeDefined();
		expect(first.at - crossingFrameAt!).toBeLessThan(2000);
		expect((await alerts.firings()).some((f) => f.id === body.id)).toBe(true);
	}, 120_000);

	it('a receiver answering 500 three times then 200 gets exactly one delivery', async () => {
		await flaky.count(4, 60_000);
		// Longer than every retry delay of the sender: nothing more may arrive.
		await new Promise((r) => setTimeout(r, 1500));
		expect(flaky.got.map((g) => g.status)).toEqual([500, 500, 500, 200]);
		const ids = new Set(flaky.got.map((g) => (JSON.parse(g.body) as AlertFiring).id));
		expect(ids.size).toBe(1);
		const health = alerts.webhooks().find((w) => w.webhook.id === 'flaky')!.health;
		expect(health).toMatchObject({ delivered: 1, failed: 0, consecutiveFailures: 0, pending: 0 });
	}, 90_000);
});
