/**
 * Issue 30's cluster-wide limits over real sockets: a real redis-server, the embedded service's
 * hubs, two replicas' relays (StreamRelay + RelayCluster, own Redis connections and `/stream`
 * endpoints) in this process, with a membership limit of 4. The limit holds for the union of
 * both replicas' viewers, and the refusal reaches the viewer that asked, on its own replica;
 * the holder's state (the slot taken by another program) is what a standby replica reports,
 * and a take-back asked there reaches the holder.
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
import { startRedis, type RunningRedis } from '../support/redis';
import { ManualMarket } from './service-hubs.market';
import { StreamViewer } from './stream-relay.viewer';
import { quantKey, startHubService, type HubService } from './service-support';

const LIMIT = 4;
const clock = Date.UTC(2026, 10, 20, 15, 0, 0);

interface Replica {
	relay: StreamRelay;
	cluster: RelayCluster;
	conns: Redis[];
	server: Server;
	endpoint: StreamEndpoint;
	url: string;
}

let redis: RunningRedis;
let t: HubService;
let previousSink: LogSink;
const replicas: Replica[] = [];
let mostMemberships = 0;
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
		groupLimit: LIMIT,
		cluster
	});
	const server = createServer((_req, res) => res.writeHead(404).end());
	const endpoint = attachStreamEndpoint(server, relay, () => true);
	await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
	const url = `ws://127.0.0.1:${(server.address() as AddressInfo).port}/stream`;
	return { relay, cluster, conns, server, endpoint, url };
}

async function until(what: () => boolean, ms: number): Promise<void> {
	const end = Date.now() + ms;
	while (!what()) {
		if (Date.now() > end) throw new Error('timed out');
		await new Promise((r) => setTimeout(r, 10));
	}
}

const upstreamGroups = () => {
	const slot = t.hubs.slots.find('demo-quant', 'custom');
	return [...(slot?.memberships.values() ?? [])].flatMap((g) => [...g]);
};

beforeAll(async () => {
	previousSink = setLogSink({ out: () => undefined, err: () => undefined });
	redis = await startRedis();
	t = await startHubService({ market: new ManualMarket(), hubs: { now: () => clock } });
	for (const id of ['u1', 'u2']) replicas.push(await startReplica(id));
	sampler = setInterval(() => {
		mostMemberships = Math.max(mostMemberships, upstreamGroups().length);
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

describe('limits and state across replicas', () => {
	let holder: Replica;
	let standby: Replica;
	let onStandby: StreamViewer;

	it('the membership limit holds for the union; the refusal reaches the viewer that asked', async () => {
		await until(() => replicas.some((r) => r.cluster.holding), 5_000);
		holder = replicas.find((r) => r.cluster.holding)!;
		standby = replicas.find((r) => r !== holder)!;
		const onHolder = await StreamViewer.open(holder.url);
		onStandby = await StreamViewer.open(standby.url);
		// 3 memberships: two classic groups and SPX_spot on the classic hub.
		await onHolder.request({
			type: 'subscribe',
			groups: ['SPX_classic_gex_full', 'SPX_classic_gex_zero']
		});
		await until(() => upstreamGroups().includes('SPX_classic_gex_zero'), 5_000);
		// 2 more on the other replica: within its own viewers' 4, over the cluster's.
		const revoked = onStandby.nextNew(
			(i) => i.kind === 'message' && i.message.type === 'revoked',
			5_000
		);
		const reply = await onStandby.request({ type: 'subscribe', groups: ['SPY_classic_gex_full'] });
		expect(reply).toMatchObject({ accepted: ['SPY_classic_gex_full'] });
		const item = await revoked;
		expect(item.kind === 'message' && item.message).toMatchObject({
			type: 'revoked',
			refused: [
				{ group: 'SPY_classic_gex_full', reason: expect.stringMatching(/membership limit/i) }
			]
		});
		// The holder's viewer kept its groups; the upstream never held more than the limit.
		expect(onHolder.items.some((i) => i.kind === 'message' && i.message.type === 'revoked')).toBe(
			false
		);
		await new Promise((r) => setTimeout(r, 600));
		expect(upstreamGroups()).not.toContain('SPY_classic_gex_full');
		expect(mostMemberships).toBeLessThanOrEqual(LIMIT);
		expect((await onStandby.request({ type: 'status' })).type === 'status').toBe(true);
		expect(standby.relay.status().groups).not.toContain('SPY_classic_gex_full');
	}, 30_000);

	it('a standby replica reports the holder losing the slot, and its take-back reaches the holder', async () => {
		expect(standby.relay.state).toBe('standby');
		const foreign = await fetch(`${t.service.url}/negotiate`, {
			method: 'POST',
			headers: {
				Authorization: `Bearer ${quantKey()}`,
				'User-Agent': 'other-script/1.0',
				'Content-Type': 'application/json'
			},
			body: JSON.stringify({ groups: ['SPY_classic_gex_full', 'SPY_spot'] })
		});
		expect(foreign.status).toBe(200);
		const taken = await onStandby.status('slot-taken');
		expect(taken.type === 'status' && taken.reason).toMatch(/Websocket Session Limit Reached/);
		expect(holder.relay.state).toBe('slot-taken');
		await onStandby.request({ type: 'takeBack' });
		await until(() => holder.relay.state === 'live', 5_000);
		await onStandby.status('standby');
	}, 30_000);

	it('a standby that mirrored "slot taken" negotiates afresh once it holds the slot', async () => {
		await onStandby.request({ type: 'subscribe', groups: ['SPX_classic_gex_zero'] });
		const foreign = await fetch(`${t.service.url}/negotiate`, {
			method: 'POST',
			headers: {
				Authorization: `Bearer ${quantKey()}`,
				'User-Agent': 'other-script/1.0',
				'Content-Type': 'application/json'
			},
			body: JSON.stringify({ groups: ['SPY_classic_gex_full', 'SPY_spot'] })
		});
		expect(foreign.status).toBe(200);
		await until(() => holder.relay.state === 'slot-taken', 5_000);
		await until(() => standby.relay.state === 'slot-taken', 5_000);
		holder.endpoint.close();
		await holder.relay.close();
		await until(() => standby.cluster.holding, 5_000);
		await until(() => standby.relay.state === 'live', 5_000);
		expect(upstreamGroups()).toContain('SPX_classic_gex_zero');
	}, 30_000);
});
