/**
 * Each user's memberships across replicas (cluster/sharedHoldings.ts) against a real
 * redis-server (tests/support/redis.ts): the page on any replica counts every replica's viewers
 * by owner, its own read live, and a replica that stopped beating drops out.
 */
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRedis, type RunningRedis } from '../../../../tests/support/redis';
import { membershipsByOwner } from '../usage/memberships';
import { connectRedis } from './redis';
import { SharedHoldings } from './sharedHoldings';

let redis: RunningRedis;
const clients: Redis[] = [];
beforeAll(async () => {
	redis = await startRedis();
}, 30_000);
afterAll(async () => {
	for (const c of clients) c.disconnect();
	await redis?.stop();
});

function replica(id: string, everyMs = 100): SharedHoldings {
	const c = connectRedis(redis.url);
	clients.push(c);
	return new SharedHoldings(c, id, 'test:holdings', everyMs);
}

describe('SharedHoldings', () => {
	it("counts every replica's viewers by owner; a silent replica drops out", async () => {
		const a = replica('a');
		const b = replica('b');
		await b.publish([
			{ owner: 'user:bob', groups: ['SPX_classic_gex_full', 'NDX_classic_gex_full'] },
			{ owner: 'user:alice', groups: ['RUT_classic_gex_full'] }
		]);
		const own = [{ owner: 'user:alice', groups: ['SPX_classic_gex_full'] }];
		const all = await a.all(['a', 'b', 'gone'], own);
		const by = Object.fromEntries(membershipsByOwner(all).map((m) => [m.owner, m]));
		// alice's viewers on both replicas: both groups, each with its spot.
		expect(by['user:alice'].groups).toEqual(['RUT_classic_gex_full', 'SPX_classic_gex_full']);
		expect(by['user:alice'].memberships).toBe(4);
		expect(by['user:bob'].memberships).toBe(4);
		// b stops beating: after three beats its viewers no longer count.
		await new Promise((r) => setTimeout(r, 400));
		expect(await a.all(['a', 'b'], own)).toEqual(own);
	});

	it('beats until stopped, and stop() removes its entry at once', async () => {
		const a = replica('a2');
		const b = replica('b2');
		b.start(() => [{ owner: 'user:bob', groups: ['SPX_classic_gex_full'] }]);
		await new Promise((r) => setTimeout(r, 450));
		expect(await a.all(['a2', 'b2'], [])).toEqual([
			{ owner: 'user:bob', groups: ['SPX_classic_gex_full'] }
		]);
		await b.stop();
		expect(await a.all(['a2', 'b2'], [])).toEqual([]);
	});
});
