/**
 * An upstream refusal in a cluster (issue 30): only the slot holder negotiates, for the union of
 * every replica's viewers, so when the upstream refuses a group (a membership over the
 * account's limit, a hub the key's tier lacks) the viewer that asked may be on another replica.
 * It must get the group `revoked` with the upstream's reason, as in one process, while the
 * holder and the other groups keep streaming. Over real sockets: a real redis-server, the
 * embedded service's hubs, two replicas' relays (StreamRelay + RelayCluster, own Redis
 * connections and `/stream` endpoints) in this process.
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
import { demoAccounts } from '../../src/service/accounts/demo';
import { startRedis, type RunningRedis } from '../support/redis';
import { until } from '../support/until';
import { ManualMarket } from './service-hubs.market';
import { StreamViewer } from './stream-relay.viewer';
import { startHubService, type HubService } from './service-support';

const market = new ManualMarket();
const accounts = demoAccounts();
const research = accounts.accounts.find((a) => a._id === 'demo-research')!;
research.group_limit = 4;
const customKeyOf = (id: string) =>
	accounts.accounts.find((a) => a._id === id)!.keys.find((k) => k.key.startsWith('gexbot_custom_'))!
		.key;

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

async function startReplica(id: string, key: string, prefix: string): Promise<Replica> {
	const conns = [connectRedis(redis.url), connectRedis(redis.url)];
	const cluster = new RelayCluster(conns[0], conns[1], id, {
		prefix,
		lease: { ttlMs: 1_500, pollMs: 100 },
		wantsEveryMs: 200
	});
	const relay = new StreamRelay({
		baseUrl: t.service.url,
		key,
		userAgent: 'gexdeck/test',
		backoff: { baseMs: 50, maxMs: 400 },
		cluster
	});
	const server = createServer((_req, res) => res.writeHead(404).end());
	const endpoint = attachStreamEndpoint(server, relay, () => true);
	await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
	const url = `ws://127.0.0.1:${(server.address() as AddressInfo).port}/stream`;
	const replica = { relay, cluster, conns, server, endpoint, url };
	replicas.push(replica);
	return replica;
}

/** Two replicas of one account (their own key prefix): the holder and the standby. */
async function pair(account: string): Promise<{ holder: Replica; standby: Replica }> {
	const two = [
		await startReplica(`${account}-1`, customKeyOf(account), `test:${account}`),
		await startReplica(`${account}-2`, customKeyOf(account), `test:${account}`)
	];
	await until(() => two.some((r) => r.cluster.holding), 5_000, 'a holder');
	const holder = two.find((r) => r.cluster.holding)!;
	return { holder, standby: two.find((r) => r !== holder)! };
}

const isRevoked = (i: StreamViewer['items'][number]) =>
	i.kind === 'message' && i.message.type === 'revoked';

beforeAll(async () => {
	previousSink = setLogSink({ out: () => undefined, err: () => undefined });
	redis = await startRedis();
	t = await startHubService({ market, accounts });
}, 30_000);

afterAll(async () => {
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

/** The standby's viewer asks for `group`; resolves with the refusal it gets. */
async function refusedOnStandby(standby: Replica, group: string) {
	const viewer = await StreamViewer.open(standby.url);
	const revoked = viewer.nextNew(isRevoked, 5_000);
	expect(await viewer.request({ type: 'subscribe', groups: [group] })).toMatchObject({
		accepted: [group]
	});
	const item = await revoked;
	if (item.kind !== 'message' || item.message.type !== 'revoked') throw new Error('no revoke');
	return { viewer, refused: item.message.refused };
}

describe('an upstream refusal of a group another replica asked for', () => {
	it("over the account's membership limit: that viewer is told why, the holder streams on", async () => {
		const { holder, standby } = await pair('demo-research');
		const onHolder = await StreamViewer.open(holder.url);
		await onHolder.request({
			type: 'subscribe',
			groups: ['SPX_classic_gex_full', 'SPX_state_gamma_zero']
		});
		await until(() => holder.relay.state === 'live', 5_000, 'the holder live');
		const { refused } = await refusedOnStandby(standby, 'SPX_orderflow_orderflow');
		expect(refused).toEqual([
			{
				group: 'SPX_orderflow_orderflow',
				reason: expect.stringMatching(/Upstream refused: .*limit/i)
			}
		]);
		await until(
			() => holder.relay.state === 'live' && standby.relay.state === 'standby',
			5_000,
			'the holder live again, the standby standing by'
		);
		expect(onHolder.items.some(isRevoked)).toBe(false);
		const frame = onHolder.nextFrame('SPX_state_gamma_zero');
		market.tick();
		await frame;
		expect(standby.relay.status().groups).not.toContain('SPX_orderflow_orderflow');
	}, 30_000);

	it('a key without the tier: the viewer on the standby is told why, nothing goes in error', async () => {
		const { holder, standby } = await pair('demo-classic');
		const { refused } = await refusedOnStandby(standby, 'SPX_classic_gex_full');
		expect(refused).toEqual([
			{
				group: 'SPX_classic_gex_full',
				reason: expect.stringMatching(/^Upstream refused: .*Quant subscription/)
			}
		]);
		await until(() => holder.relay.state === 'idle', 5_000, 'the holder idle, not in error');
		expect(standby.relay.state).toBe('standby');
	}, 30_000);
});
