/**
 * Readiness without the upstream (issue 30): the proxy of deploy/compose.yaml sends requests only
 * to replicas whose /readyz answers 200, so an upstream outage must not make every replica
 * unready (they still serve pages and history and tell their viewers the upstream is down). A
 * built replica on a real redis-server and PostgreSQL, its upstream an address nothing listens
 * on: /readyz answers 200 and reports the upstream failing; Redis killed, it answers 503.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPostgres, type RunningPostgres } from '../support/postgres';
import { freePort, startDashboard, type RunningDashboard } from '../support/processes';
import { startRedis, type RunningRedis } from '../support/redis';
import { TEST_KEY } from './dashboard-support';

let postgres: RunningPostgres;
let redis: RunningRedis;
let replica: RunningDashboard;

beforeAll(async () => {
	[postgres, redis] = await Promise.all([startPostgres(), startRedis()]);
	replica = await startDashboard(
		{
			GEXDECK_UPSTREAM: `http://127.0.0.1:${await freePort()}/v2`,
			GEXDECK_API_KEY: TEST_KEY,
			GEXDECK_REDIS_URL: redis.url,
			GEXDECK_DATABASE_URL: await postgres.freshDatabase()
		},
		'build'
	);
}, 240_000);

afterAll(async () => {
	await replica?.stop();
	await redis?.stop();
	postgres?.stop();
});

const ready = async () => {
	const r = await fetch(`${replica.base}/readyz`);
	return { status: r.status, body: (await r.json()) as { status: string; checks: object } };
};

describe('a replica whose upstream is down', () => {
	it('is ready while it reaches Redis and the database, and reports the upstream', async () => {
		expect(await ready()).toEqual({
			status: 200,
			body: {
				status: 'ready',
				checks: expect.objectContaining({
					upstream: 'failing',
					redis: 'ok',
					database: 'ok',
					shutdown: 'no'
				})
			}
		});
		// It serves a page meanwhile.
		expect((await fetch(`${replica.base}/`)).status).toBe(200);
	});

	it('is not ready once it cannot reach Redis', async () => {
		await redis.kill();
		expect(await ready()).toMatchObject({
			status: 503,
			body: { status: 'not ready', checks: { upstream: 'failing', redis: 'failing' } }
		});
	});
});
