/**
 * The stream relay in cluster mode over real sockets: a real redis-server, the embedded service
 * with hubs (ticks fired by the test), and three replicas' relays (StreamRelay + RelayCluster,
 * each with its own Redis connections and `/stream` endpoint) in this process. Only the slot
 * lease's holder negotiates, for the union of every replica's viewers; every viewer gets every
 * frame the holder published. The holder cut off from Redis stops using the slot before the
 * lease passes, another replica holds within 5 s and viewers continue; a clean stop hands over.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
	attachStreamEndpoint,
	StreamRelay,
	type StreamEndpoint
} from '../../src/lib/server/stream';
import { RelayCluster } from '../../src/lib/server/stream/relayCluster';
import { connectRedis } from '../../src/lib/server/cluster/redis';
import { setLogSink, type LogSink } from '../../src/lib/server/log';
import type { Hubs } from '../../src/service/hubs/index';
import { startRedis, type RunningRedis } from '../support/redis';
import { ManualMarket } from './service-hubs.market';
import { StreamViewer } from './stream-relay.viewer';
import { quantKey, startHubService, type HubService } from './service-support';

const market = new ManualMarket();
const GROUP = 'SPX_classic_gex_full';
const OTHER = 'SPY_classic_gex_zero';
/** The cluster's one frame stream (relayCluster.ts, default prefix). */
const STREAM = 'gexdeck:slot:frames:relay';
let clock = Date.UTC(2026, 10, 20, 15, 0, 0);

interface Replica {
	id: string;
	relay: StreamRelay;
	cluster: RelayCluster;
	conns: Redis[];
	server: Server;
	endpoint: StreamEndpoint;
	url: string;
}

let redis: RunningRedis;
let t: HubService;
let hubs: Hubs;
let previousSink: LogSink;
const replicas: Replica[] = [];
const posts: number[] = [];
/** Most connections of the slot seen open on one hub at once (sampled every 5 ms). */
let mostPerHub = 0;
let sampler: NodeJS.Timeout;

async function startReplica(id: string): Promise<Replica> {
	const conns = [connectRedis(redis.url), connectRedis(redis.url)];
	const cluster = new RelayCluster(conns[0], conns[1], id, {
		lease: { ttlMs: 1_500, pollMs: 100 },
		wantsEveryMs: 200
	});
	const relay = new StreamRelay({
		baseUrl: t.service.url,
		key: quantKey(),
		userAgent: 'gexdeck/test',
		backoff: { baseMs: 50, maxMs: 400 },
		cluster
	});
	const server = createServer((_req, res) => res.writeHead(404).end());
	const endpoint = attachStreamEndpoint(server, relay, () => true);
	await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
	const url = `ws://127.0.0.1:${(server.address() as AddressInfo).port}/stream`;
	return { id, relay, cluster, conns, server, endpoint, url };
}

async function until(what: () => boolean, ms: number): Promise<number> {
	const start = Date.now();
	while (!what()) {
		if (Date.now() - start > ms) throw new Error('timed out');
		await new Promise((r) => setTimeout(r, 10));
	}
	return Date.now() - start;
}

const holders = () => replicas.filter((r) => r.cluster.holding);

beforeAll(async () => {
	previousSink = setLogSink({ out: () => undefined, err: () => undefined });
	redis = await startRedis();
	t = await startHubService({ market, hubs: { now: () => clock } });
	hubs = t.hubs;
	t.service.server.on('request', (req) => {
		if (req.url?.startsWith('/v2/negotiate') && req.method === 'POST') posts.push(Date.now());
	});
	for (const id of ['r1', 'r2', 'r3']) replicas.push(await startReplica(id));
	sampler = setInterval(() => {
		const slot = hubs.slots.find('demo-quant', 'custom');
		const perHub = new Map<string, number>();
		for (const c of slot?.connections ?? []) perHub.set(c.hub, (perHub.get(c.hub) ?? 0) + 1);
		mostPerHub = Math.max(mostPerHub, ...perHub.values(), 0);
	}, 5);
}, 30_000);

afterAll(async () => {
	clearInterval(sampler);
	for (const r of replicas) {
		r.endpoint.close();
		await r.relay.close().catch(() => undefined);
		for (const c of r.conns) c.disconnect();
		await new Promise((done) => r.server.close(done));
	}
	await t?.close();
	await redis?.stop();
	setLogSink(previousSink);
});

/** Ticks until every viewer has a frame of `group`. */
async function tickUntilAll(viewers: StreamViewer[], group: string, ms = 8_000) {
	const end = Date.now() + ms;
	for (;;) {
		const before = viewers.map((v) => v.frames(group).length);
		clock += 1_000;
		market.tick();
		try {
			await until(() => viewers.every((v, i) => v.frames(group).length > before[i]), 400);
			return;
		} catch {
			if (Date.now() > end) throw new Error(`no ${group} frame reached every viewer`);
		}
	}
}

describe('stream relay on the slot lease', () => {
	const viewers: StreamViewer[] = [];

	it('one replica holds the slot and negotiates the union of every replica viewers', async () => {
		await until(() => holders().length === 1, 5_000);
		for (const r of replicas) viewers.push(await StreamViewer.open(r.url));
		const standby = replicas.findIndex((r) => !r.cluster.holding);
		// Groups wanted only by a viewer of a standby replica reach the upstream too.
		await viewers[standby].request({ type: 'subscribe', groups: [GROUP, OTHER] });
		for (const [i, v] of viewers.entries()) {
			if (i !== standby) await v.request({ type: 'subscribe', groups: [GROUP] });
		}
		await until(() => holders()[0]?.relay.state === 'live', 5_000);
		await until(() => {
			const slot = hubs.slots.find('demo-quant', 'custom');
			const groups = [...(slot?.memberships.values() ?? [])].flatMap((g) => [...g]);
			return groups.includes(OTHER) && groups.includes(GROUP);
		}, 5_000);
		for (const r of replicas) {
			expect(r.relay.state).toBe(r.cluster.holding ? 'live' : 'standby');
		}
		expect(posts.length).toBe(1);
		await tickUntilAll(viewers, GROUP);
		await tickUntilAll([viewers[standby]], OTHER);
		// Only the viewer that asked for OTHER gets it.
		for (const [i, v] of viewers.entries()) {
			if (i !== standby) expect(v.frames(OTHER)).toEqual([]);
		}
	}, 30_000);

	it('the holder cut off from Redis lets go; another holds within 5 s; viewers miss nothing published', async () => {
		const old = holders()[0];
		const oldIndex = replicas.indexOf(old);
		const survivors = viewers.filter((_, i) => i !== oldIndex);
		const probe = connectRedis(redis.url);
		// Frames of the last tick may still be on their way to the viewers: let them land.
		await new Promise((r) => setTimeout(r, 300));
		const seenBefore = survivors.map((v) => v.frames(GROUP).length);
		const [[lastId]] = await probe.xrevrange(STREAM, '+', '-', 'COUNT', 1);
		const since = Date.now();
		for (const c of old.conns) c.disconnect();
		const took = await until(() => holders().some((r) => r !== old), 5_000);
		expect(took).toBeLessThan(5_000);
		expect(old.cluster.holding).toBe(false);
		const next = holders().find((r) => r !== old)!;
		await until(() => next.relay.state === 'live', 5_000);
		expect(posts.filter((at) => at >= since).length).toBe(1);
		for (let i = 0; i < 5; i++) await tickUntilAll(survivors, GROUP);
		// Every GROUP frame the stream holds after the failover began reached each survivor once.
		const entries = (await probe.xrange(STREAM, `(${lastId}`, '+')).filter(
			([, fields]) => fields[1] === GROUP
		);
		probe.disconnect();
		expect(entries.length).toBeGreaterThanOrEqual(5);
		for (const [i, v] of survivors.entries()) {
			expect(v.frames(GROUP).length - seenBefore[i]).toBe(entries.length);
		}
		expect(mostPerHub).toBe(1);
		expect(replicas.some((r) => r.relay.state === 'slot-taken')).toBe(false);
	}, 30_000);

	it('a clean stop hands the slot over at once and the last replica viewers continue', async () => {
		const alive = replicas.filter((r) => r.conns[0].status === 'ready');
		const holder = alive.find((r) => r.cluster.holding)!;
		const last = alive.find((r) => r !== holder)!;
		const viewer = viewers[replicas.indexOf(last)];
		holder.endpoint.close();
		await holder.relay.close();
		const took = await until(() => last.cluster.holding, 5_000);
		expect(took).toBeLessThan(1_000);
		await until(() => last.relay.state === 'live', 5_000);
		await tickUntilAll([viewer], GROUP);
		expect(mostPerHub).toBe(1);
		expect(last.relay.state).toBe('live');
	}, 30_000);
});
