/**
 * Issue 30's "Done when" on three full built dashboard replicas (`node build`, cluster mode: one
 * real redis-server, one real PostgreSQL database for all three), against the embedded service's
 * hubs in this process, the market ticking all along. Each replica reaches the service through
 * its own loopback TCP proxy, so the service's own log of negotiations and hub connections (by
 * the Host they arrive on) says which replica each came from.
 *
 * Viewers speak the browser's relay protocol over /stream on every replica. The slot holder is
 * SIGKILLed mid-stream: another replica holds the slot within 5 s; the service never sees two
 * replicas' connections at once nor a negotiation from a replica that does not hold the slot;
 * viewers on both surviving replicas get every frame the Redis stream holds, once, in order,
 * and are told where the hand-over's gap is; the killed replica's viewer reconnects to a
 * survivor with its last stream id and gets exactly what it missed, the gap reported. Then Redis
 * is restarted: no replica crashes, they report ready again and the survivors' viewers continue
 * with every frame of the new stream, the gap reported. Last, an alert rule saved on the Alerts
 * page fires to a webhook receiver on loopback while the holder is SIGKILLed with a delivery
 * unanswered: each firing reaches the receiver once (at most once: the one in flight at the kill
 * is not sent again), and the new holder does not fire inside the cooldown the old one started.
 * (The lease and the jobs alone: cluster-slot.test.ts; relay processes: cluster-resume.test.ts.)
 */
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AlertFiring } from '../../src/lib/alerts/firing';
import { firingKey } from '../../src/lib/server/alerts/firingLog';
import { connectRedis } from '../../src/lib/server/cluster/redis';
import { openDatabase } from '../../src/lib/server/db/index';
import { compareIds } from '../../src/lib/server/cluster/slotStream';
import type { RelayMessage } from '../../src/lib/relay/protocol';
import { startPostgres, type RunningPostgres } from '../support/postgres';
import { startDashboard, type RunningDashboard } from '../support/processes';
import { startRedis, type RunningRedis } from '../support/redis';
import { TcpProxy } from '../support/tcpProxy';
import { ManualMarket } from './service-hubs.market';
import { StreamViewer } from './stream-relay.viewer';
import { quantKey, startHubService, type HubService } from './service-support';
import { WebhookReceiver } from './webhook-receiver';

const market = new ManualMarket();
const GROUP = 'SPX_classic_gex_full';
/** The cluster's one frame stream (relayCluster.ts, default prefix). */
const STREAM = 'gexdeck:slot:frames:relay';
let clock = Date.UTC(2026, 10, 20, 15, 0, 0);

let redis: RunningRedis;
let postgres: RunningPostgres;
let t: HubService;
let database: string;
let receiver: WebhookReceiver;
const proxies: TcpProxy[] = [];
const replicas: RunningDashboard[] = [];
let ticker: NodeJS.Timeout | undefined;

/** The service's own view: every negotiation and hub connection, by the replica it came from. */
const negotiations: { replica: number; at: number }[] = [];
const connections: { replica: number; opened: number; closed?: number }[] = [];

const replicaOf = (req: IncomingMessage) =>
	proxies.findIndex((p) => req.headers.host === `127.0.0.1:${p.port}`);

beforeAll(async () => {
	[redis, postgres, t, receiver] = await Promise.all([
		startRedis(),
		startPostgres(),
		startHubService({ market, hubs: { now: () => clock } }),
		WebhookReceiver.start()
	]);
	t.service.server.prependListener('request', (req: IncomingMessage) => {
		if (req.url?.endsWith('/negotiate')) {
			negotiations.push({ replica: replicaOf(req), at: Date.now() });
		}
	});
	t.service.server.prependListener('upgrade', (req: IncomingMessage, socket: Duplex) => {
		if (!req.url?.startsWith('/client/hubs/')) return;
		const c: (typeof connections)[number] = { replica: replicaOf(req), opened: Date.now() };
		connections.push(c);
		socket.once('close', () => (c.closed = Date.now()));
	});
	for (let i = 0; i < 3; i++) proxies.push(await TcpProxy.start(t.service.port));
	database = await postgres.freshDatabase();
	const start = (i: number) =>
		startDashboard(
			{
				GEXDECK_UPSTREAM: `http://127.0.0.1:${proxies[i].port}/v2`,
				GEXDECK_API_KEY: quantKey(),
				GEXDECK_REDIS_URL: redis.url,
				GEXDECK_DATABASE_URL: database,
				GEXDECK_WEBHOOK_ALLOW: '127.0.0.1'
			},
			'build'
		);
	// The first one migrates the empty database; the other two start together.
	replicas.push(await start(0));
	replicas.push(...(await Promise.all([start(1), start(2)])));
}, 240_000);

afterAll(async () => {
	clearInterval(ticker);
	await Promise.all(replicas.map((r) => r.stop()));
	await Promise.all(proxies.map((p) => p.close()));
	await t?.close();
	await receiver?.close();
	await redis?.stop();
	postgres?.stop();
});

async function until(what: () => boolean | Promise<boolean>, ms: number, label: string) {
	const start = Date.now();
	while (!(await what())) {
		if (Date.now() - start > ms) throw new Error(`timed out: ${label}`);
		await new Promise((r) => setTimeout(r, 50));
	}
}

/** Replica `i`'s Account page says it holds the slot. */
async function holds(i: number): Promise<boolean> {
	const html = await fetch(`${replicas[i].base}/account`)
		.then((r) => r.text())
		.catch(() => '');
	const at = html.indexOf('data-testid="cluster-slot"');
	if (at < 0) return false;
	const line = html.slice(at, html.indexOf('</p>', at)).replace(/<[^>]*>/g, '');
	return /held by \S+ \(this page\)/.test(line.replace(/\s+/g, ' '));
}

async function holderAmong(candidates: number[], ms: number): Promise<number> {
	let found = -1;
	await until(
		async () => {
			for (const i of candidates) if (await holds(i)) found = i;
			return found >= 0;
		},
		ms,
		'a replica holds the slot'
	);
	return found;
}

const wsUrl = (i: number) => `${replicas[i].base.replace('http:', 'ws:')}/stream`;
const seqs = (v: StreamViewer) => v.frames(GROUP).map((f) => f.seq!);
const messages = (v: StreamViewer, type: RelayMessage['type']) =>
	v.items.flatMap((i) => (i.kind === 'message' && i.message.type === type ? [i.message] : []));
/** Gap messages at or after stream id `from`. */
const gapsFrom = (v: StreamViewer, from: string) =>
	messages(v, 'gap').filter(
		(m) => m.type === 'gap' && m.at !== undefined && compareIds(m.at, from) >= 0
	);
/** Frames of GROUP whose stream id was appended after unix ms `at`. */
const framesAfter = (v: StreamViewer, at: number) =>
	seqs(v).filter((s) => Number(s.split('-')[0]) > at).length;

/** The stream's entries from `from` on: GROUP's ids and the hand-over markers' ids. */
async function streamFrom(from: string) {
	const probe = connectRedis(redis.url);
	const entries = await probe.xrange(STREAM, from, '+');
	probe.disconnect();
	return {
		group: entries.filter(([, f]) => f[1] === GROUP).map(([id]) => id),
		markers: entries.filter(([, f]) => f[1] === '').map(([id]) => id)
	};
}

/** No two replicas' hub connections were ever open at once on the service. */
function expectOneReplicaAtATime() {
	const now = Date.now();
	for (const a of connections) {
		for (const b of connections) {
			if (a.replica === b.replica) continue;
			const overlap = Math.min(a.closed ?? now, b.closed ?? now) - Math.max(a.opened, b.opened);
			expect(overlap, `replicas ${a.replica} and ${b.replica} connected at once`).toBeLessThan(0);
		}
	}
}

const running = (i: number) =>
	replicas[i].proc.exitCode === null && replicas[i].proc.signalCode === null;

let survivors: StreamViewer[] = [];
let next = -1;

describe('three full replicas, the slot holder SIGKILLed mid-stream', () => {
	it('pass the slot within 5 s; every published frame reaches the viewers once, the gap reported', async () => {
		const holder = await holderAmong([0, 1, 2], 30_000);
		const standbys = [0, 1, 2].filter((i) => i !== holder);
		survivors = await Promise.all(standbys.map((i) => StreamViewer.open(wsUrl(i))));
		const victim = await StreamViewer.open(wsUrl(holder));
		for (const v of [...survivors, victim]) await v.request({ type: 'subscribe', groups: [GROUP] });
		ticker = setInterval(() => {
			clock += 1_000;
			market.tick();
		}, 150);
		await until(
			() => [...survivors, victim].every((v) => seqs(v).length >= 3),
			20_000,
			'frames on every replica'
		);

		const killedAt = Date.now();
		replicas[holder].proc.kill('SIGKILL');
		next = await holderAmong(standbys, 10_000);
		expect(Date.now() - killedAt).toBeLessThan(5_000);
		await until(
			() => survivors.every((v) => framesAfter(v, killedAt) >= 3),
			20_000,
			'frames from the new holder'
		);
		// The killed replica's viewer reconnects to a survivor only now, having missed the
		// hand-over and the new holder's first frames, and resumes after its last frame.
		await victim.closed;
		const lastSeen = seqs(victim).at(-1)!;
		const resumed = await StreamViewer.open(wsUrl(standbys.find((i) => i !== next)!));
		const reply = resumed.nextNew((i) => i.kind === 'message' && i.message.type === 'resumed');
		await resumed.request({ type: 'subscribe', groups: [GROUP], after: lastSeen });
		await reply;
		const replayed = seqs(resumed).length;
		expect(replayed).toBeGreaterThanOrEqual(3);
		await until(() => seqs(resumed).length >= replayed + 2, 15_000, 'live after the replay');
		clearInterval(ticker);
		await new Promise((r) => setTimeout(r, 1_000));

		const first = seqs(survivors[0])[0];
		const stream = await streamFrom(first);
		for (const v of survivors) {
			// Every frame of its group the stream holds since it subscribed, once, in order.
			expect(seqs(v)).toEqual(stream.group.slice(stream.group.indexOf(seqs(v)[0])));
			// The new holder marked the hand-over once, and the viewer was told where.
			expect(gapsFrom(v, seqs(v)[0])).toEqual([
				{ type: 'gap', at: stream.markers[0], reason: expect.stringMatching(/missing/) }
			]);
		}
		expect(stream.markers).toHaveLength(1);
		// The reconnected viewer: what it had, then exactly the rest, the gap replayed too.
		const fromVictim = stream.group.slice(stream.group.indexOf(seqs(victim)[0]));
		expect([...seqs(victim), ...seqs(resumed)]).toEqual(fromVictim);
		expect(gapsFrom(resumed, seqs(victim)[0])).toEqual([
			{ type: 'gap', at: stream.markers[0], reason: expect.stringMatching(/missing/) }
		]);
		expect(messages(resumed, 'resumed')).toMatchObject([{ after: lastSeen }]);

		// The service saw the holder negotiate, then only the new holder: never a standby, and
		// never two replicas' hub connections at once.
		expect(negotiations.length).toBeGreaterThan(0);
		const turn = negotiations.findIndex((n) => n.at > killedAt);
		expect(turn).toBeGreaterThan(0);
		expect(new Set(negotiations.slice(0, turn).map((n) => n.replica))).toEqual(new Set([holder]));
		expect(new Set(negotiations.slice(turn).map((n) => n.replica))).toEqual(new Set([next]));
		expect(connections.some((c) => c.replica === next && c.opened > killedAt)).toBe(true);
		expectOneReplicaAtATime();
		await resumed.close();
	}, 120_000);

	it('recover from a Redis restart: nothing crashes, the viewers continue, the gap reported', async () => {
		const alive = [0, 1, 2].filter(running);
		expect(alive).toHaveLength(2);
		const before = survivors.map((v) => seqs(v).length);
		ticker = setInterval(() => {
			clock += 1_000;
			market.tick();
		}, 150);
		const restartedAt = Date.now();
		await redis.restart();
		await until(
			() => survivors.every((v) => framesAfter(v, restartedAt) >= 3),
			30_000,
			'frames after the restart'
		);
		clearInterval(ticker);
		await new Promise((r) => setTimeout(r, 1_000));

		for (const i of alive) {
			expect(running(i)).toBe(true);
			await until(
				async () => (await fetch(`${replicas[i].base}/readyz`)).status === 200,
				15_000,
				`replica ${i} ready`
			);
		}
		// The restarted Redis holds a new stream: each viewer got every frame of it, once, in
		// order, after what it had, and was told frames around the restart are missing.
		const stream = await streamFrom('-');
		expect(stream.markers.length).toBeGreaterThanOrEqual(1);
		survivors.forEach((v, k) => {
			const after = seqs(v).slice(before[k]);
			const k0 = after.indexOf(stream.group[0]);
			expect(k0).toBeGreaterThanOrEqual(0);
			expect(after.slice(k0)).toEqual(stream.group);
			const all = seqs(v);
			for (let j = 1; j < all.length; j++) expect(compareIds(all[j - 1], all[j])).toBeLessThan(0);
			expect(gapsFrom(v, stream.markers[0]).length).toBeGreaterThanOrEqual(1);
		});
		expectOneReplicaAtATime();
		await Promise.all(survivors.map((v) => v.close()));
	}, 90_000);
});

/** A form action of replica `i`'s Alerts page, as its form posts it; resolves to the status. */
async function alertsAct(i: number, action: string, fields: Record<string, string>) {
	const res = await fetch(`${replicas[i].base}/alerts?/${action}`, {
		method: 'POST',
		redirect: 'manual',
		headers: {
			origin: replicas[i].base,
			accept: 'text/html',
			cookie: 'gexdeck_csrf=fire30',
			'content-type': 'application/x-www-form-urlencoded'
		},
		body: new URLSearchParams({ csrf: 'fire30', ...fields }).toString()
	});
	await res.arrayBuffer();
	return res.status;
}

/** Data seconds the rule stays quiet after a firing. */
const COOLDOWN = 10;

describe('an alert firing across a failover of the slot holder', () => {
	it('reaches the webhook once, the cooldown holds, the delivery cut by the kill is not repeated', async () => {
		const tick = () => {
			clock += 1_000;
			market.tick();
		};
		const alive = [0, 1, 2].filter(running);
		expect(alive.length).toBeGreaterThanOrEqual(2);
		const holder = await holderAmong(alive, 30_000);
		// As a user would: the Alerts page's forms, on a replica that does not hold the slot.
		const page = alive.find((i) => i !== holder)!;
		const hook = { id: 'hook', name: 'receiver', url: receiver.url, format: 'json' };
		expect(await alertsAct(page, 'saveWebhook', hook)).toBe(200);
		// Spot crosses the market's zero gamma on about every second tick (one data second each).
		const rule = {
			...{ id: 'zg', name: 'zero gamma', ticker: 'SPX', kind: 'cross', package: 'classic' },
			...{ category: 'gex_full', level: 'zero_gamma', lookback: 'current', direction: 'either' },
			...{ hysteresis: '0', cooldownSeconds: String(COOLDOWN), allWebhooks: 'on' }
		};
		expect(await alertsAct(page, 'saveRule', rule)).toBe(200);
		ticker = setInterval(tick, 150);
		await until(() => receiver.keys().length >= 3, 40_000, 'firings from the holder');

		// The holder's next firing: its delivery left unanswered, the market stopped at once
		// (no data moves on while nobody holds the slot), and the holder killed.
		const cut = await new Promise<AlertFiring>((ok) =>
			receiver.holdNextFiring((f) => {
				clearInterval(ticker);
				ok(f);
			})
		);
		replicas[holder].proc.kill('SIGKILL');
		await holderAmong(
			alive.filter((i) => i !== holder),
			10_000
		);
		ticker = setInterval(tick, 150);
		const after = () => receiver.received.filter((f) => !f.test && f.at > cut.at);
		await until(() => after().length >= 3, 40_000, 'firings from the new holder');
		clearInterval(ticker);
		// Longer than a delivery takes on loopback: a second delivery would have arrived.
		await new Promise((r) => setTimeout(r, 1_500));

		// Each firing once, and every firing stored reached the receiver: the cut one once, as
		// the old holder sent it (at most once: the new holder does not send it again).
		const keys = receiver.keys();
		expect(new Set(keys).size).toBe(keys.length);
		expect(keys.filter((k) => k === firingKey(cut))).toHaveLength(1);
		const db = await openDatabase({ url: database, dataDir: '' });
		try {
			const rows = await db.all<{ idem_key: string }>(
				`SELECT idem_key FROM alert_firings WHERE test = 0`
			);
			expect(rows.map((r) => r.idem_key).sort()).toEqual([...keys].sort());
		} finally {
			await db.close();
		}
		// The new holder's engine started afresh but kept the cooldown the old one started.
		const ats = receiver.received
			.filter((f) => !f.test)
			.map((f) => f.at)
			.sort((a, b) => a - b);
		for (let j = 1; j < ats.length; j++) {
			expect(ats[j] - ats[j - 1], `firing ${j} after ${j - 1}`).toBeGreaterThanOrEqual(COOLDOWN);
		}
		expect(after()[0].at - cut.at).toBeGreaterThanOrEqual(COOLDOWN);
	}, 150_000);
});
