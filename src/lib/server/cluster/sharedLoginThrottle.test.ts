/**
 * The shared login throttle against a real redis-server: two replicas' throttles (their own
 * connections) count one client's failures together, so spreading guesses over replicas gains
 * nothing; a right password on either clears them; the dashboard-wide cap is shared too; with
 * Redis gone the replica's own throttle still slows the answers.
 */
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRedis, type RunningRedis } from '../../../../tests/support/redis';
import { LoginThrottle } from '../auth';
import { setLogSink, type LogSink } from '../log';
import { connectRedis } from './redis';
import { SharedLoginThrottle } from './sharedLoginThrottle';

let redis: RunningRedis;
const clients: Redis[] = [];
let previousSink: LogSink;
let n = 0;

beforeAll(async () => {
	previousSink = setLogSink({ out: () => undefined, err: () => undefined });
	redis = await startRedis();
}, 30_000);
afterAll(async () => {
	for (const c of clients) c.disconnect();
	setLogSink(previousSink);
	await redis?.stop();
});

function replicas(count: number, globalCap = 100) {
	const prefix = `login${++n}`;
	return Array.from({ length: count }, () => {
		const c = connectRedis(redis.url);
		clients.push(c);
		return new SharedLoginThrottle(c, new LoginThrottle({ globalCap }), { globalCap }, prefix);
	});
}

describe('SharedLoginThrottle', () => {
	it('counts a client failures across replicas; a success on any clears them', async () => {
		const [a, b] = replicas(2);
		const delays: number[] = [];
		for (let i = 0; i < 8; i++) delays.push((await (i % 2 ? b : a).failed('10.0.0.1')).delayMs);
		expect(delays).toEqual([0, 0, 0, 0, 0, 1_000, 2_000, 4_000]);
		// Another client is not slowed by this one.
		expect((await b.failed('10.0.0.2')).delayMs).toBe(0);
		await b.succeeded('10.0.0.1');
		expect((await a.failed('10.0.0.1')).delayMs).toBe(0);
	});

	it('shares the dashboard-wide cap', async () => {
		const [a, b] = replicas(2, 5);
		for (let i = 0; i < 5; i++) await (i % 2 ? b : a).failed(`client-${i}`);
		expect(await a.failed('fresh')).toEqual({ delayMs: 30_000, globalCapped: true });
	});

	it('falls back to the replica own throttle while Redis is away', async () => {
		const [a] = replicas(1);
		await redis.kill();
		try {
			const delays: number[] = [];
			for (let i = 0; i < 6; i++) delays.push((await a.failed('10.0.0.9')).delayMs);
			expect(delays.at(-1)).toBe(1_000);
		} finally {
			await redis.restart();
		}
	}, 30_000);
});
