/**
 * The shared limits against a real redis-server (tests/support/redis.ts): the quota budget is
 * never exceeded by racing reservations from several connections (the replicas), the 429
 * backoff holds a pool on every connection and lets exactly one probe through, identical calls
 * from several coalescers make one upstream call, and a dead Redis is a clear error, not a hang.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Redis } from 'ioredis';
import { startRedis, type RunningRedis } from '../../../../tests/support/redis';
import type { UpstreamResponse } from '../httpClient';
import { parseQuotaBudget } from './budget';
import { connectRedis, ClusterUnavailableError } from './redis';
import { SharedBackoff } from './sharedBackoff';
import { SharedCoalescer } from './sharedCoalescer';
import { SharedQuota } from './sharedQuota';

let redis: RunningRedis;
const clients: Redis[] = [];
/** One connection per pretend replica. */
function replicas(n: number): Redis[] {
	const made = Array.from({ length: n }, () => connectRedis(redis.url));
	clients.push(...made);
	return made;
}
const ready = (r: Redis) =>
	r.status === 'ready' ? Promise.resolve() : new Promise((ok) => r.once('ready', ok));
let prefix = 0;
const fresh = () => `t${++prefix}`;

beforeAll(async () => {
	redis = await startRedis();
}, 30_000);
afterAll(async () => {
	for (const c of clients) c.disconnect();
	await redis?.stop();
});

describe('budget', () => {
	it('parses pool=daily[/monthly] and refuses anything else', () => {
		expect(parseQuotaBudget('api_majors=5, api_default=10/300')).toEqual({
			api_majors: { daily: 5, monthly: undefined },
			api_default: { daily: 10, monthly: 300 }
		});
		expect(parseQuotaBudget(undefined)).toEqual({});
		expect(() => parseQuotaBudget('api_nope=5')).toThrow(/unknown pool/);
		expect(() => parseQuotaBudget('api_majors=five')).toThrow(/not a count/);
		expect(() => parseQuotaBudget('api_majors')).toThrow(/expected pool=daily/);
	});
});

describe('shared quota', () => {
	it('lets exactly the budget through when three replicas race 100 reservations', async () => {
		const conns = replicas(3);
		await Promise.all(conns.map(ready));
		const p = fresh();
		const ledgers = conns.map(
			(c) => new SharedQuota(c, { api_majors: { daily: 5, monthly: 90 } }, undefined, p)
		);
		const verdicts = await Promise.all(
			Array.from({ length: 100 }, (_, i) => ledgers[i % 3].reserve('acct', 'api_majors'))
		);
		expect(verdicts.filter((v) => v.ok)).toHaveLength(5);
		expect(verdicts.find((v) => !v.ok)).toEqual({ ok: false, window: 'daily', budget: 5 });
		expect((await ledgers[1].usage('acct', 'api_majors')).daily.requests).toBe(5);
		// Other pools and accounts have their own counts; a 429 gives its call back.
		expect((await ledgers[0].reserve('other', 'api_majors')).ok).toBe(true);
		await ledgers[2].record('acct', 'api_majors', 429);
		expect((await ledgers[0].reserve('acct', 'api_majors')).ok).toBe(true);
		expect((await ledgers[0].reserve('acct', 'api_majors')).ok).toBe(false);
		const usage = await ledgers[0].usage('acct', 'api_majors');
		expect(usage.daily).toMatchObject({ requests: 5, rateLimited: 1 });
		expect(usage.monthly).toMatchObject({ requests: 5, rateLimited: 1 });
	});

	it('holds the monthly budget too, and a pool without a budget is only counted', async () => {
		const [c] = replicas(1);
		await ready(c);
		const p = fresh();
		const ledger = new SharedQuota(
			c,
			{ api_default: { daily: undefined, monthly: 2 } },
			undefined,
			p
		);
		expect((await ledger.reserve('a', 'api_default')).ok).toBe(true);
		expect((await ledger.reserve('a', 'api_default')).ok).toBe(true);
		expect(await ledger.reserve('a', 'api_default')).toEqual({
			ok: false,
			window: 'monthly',
			budget: 2
		});
		for (let i = 0; i < 20; i++) expect((await ledger.reserve('a', 'api_majors')).ok).toBe(true);
		expect((await ledger.usage('a', 'api_majors')).daily.requests).toBe(20);
	});
});

describe('shared backoff', () => {
	it('holds the pool on every replica after one 429 and lets one probe through', async () => {
		const conns = replicas(3);
		await Promise.all(conns.map(ready));
		const p = fresh();
		let now = 1_000_000;
		const backoffs = conns.map(
			(c) => new SharedBackoff(c, { prefix: p, now: () => now, random: () => 0.5, baseMs: 2_000 })
		);
		expect((await backoffs[0].admit('a|api_default')).ok).toBe(true);
		await backoffs[0].record('a|api_default', 429);
		for (const b of backoffs) {
			expect(await b.admit('a|api_default')).toEqual({ ok: false, retryAt: now + 2_000 });
		}
		expect((await backoffs[1].admit('a|api_majors')).ok).toBe(true);
		now += 2_000;
		const probes = await Promise.all(backoffs.map((b) => b.admit('a|api_default')));
		expect(probes.filter((v) => v.ok)).toHaveLength(1);
		// A second 429 doubles the hold; a success releases it everywhere.
		await backoffs[2].record('a|api_default', 429);
		expect(await backoffs[0].admit('a|api_default')).toEqual({ ok: false, retryAt: now + 4_000 });
		now += 4_000;
		expect((await backoffs[0].admit('a|api_default')).ok).toBe(true);
		await backoffs[0].record('a|api_default', 200);
		expect((await backoffs[1].admit('a|api_default')).ok).toBe(true);
	});
});

describe('shared coalescer', () => {
	const answer = (n: number): UpstreamResponse => ({
		status: 200,
		contentType: 'application/json',
		headers: {},
		body: Buffer.from(JSON.stringify({ n }))
	});

	it('makes one upstream call for 100 identical calls over three replicas', async () => {
		const conns = replicas(3);
		await Promise.all(conns.map(ready));
		const p = fresh();
		const coalescers = conns.map((c) => new SharedCoalescer(c, p));
		let calls = 0;
		const fetcher = async () => {
			calls++;
			await new Promise((r) => setTimeout(r, 50));
			return answer(calls);
		};
		const results = await Promise.all(
			Array.from({ length: 100 }, (_, i) =>
				coalescers[i % 3].run('GET /v2/SPX/classic/gex_full', 1_000, 5_000, fetcher, () => true)
			)
		);
		expect(calls).toBe(1);
		expect(new Set(results.map((r) => r.value.body.toString()))).toEqual(new Set(['{"n":1}']));
		expect(results.filter((r) => r.outcome === 'miss')).toHaveLength(1);
		// After the cadence a new call goes out; a 429 is not reused.
		await new Promise((r) => setTimeout(r, 1_050));
		await coalescers[1].run('GET /v2/SPX/classic/gex_full', 1_000, 5_000, fetcher, () => true);
		expect(calls).toBe(2);
	});

	it('hands the winner failure to the waiters, and a dead winner to a waiter that calls itself', async () => {
		const conns = replicas(2);
		await Promise.all(conns.map(ready));
		const p = fresh();
		const [a, b] = conns.map((c) => new SharedCoalescer(c, p));
		const failing = async (): Promise<UpstreamResponse> => {
			await new Promise((r) => setTimeout(r, 50));
			throw new Error('budget spent');
		};
		const both = await Promise.allSettled([
			a.run(
				'k1',
				1_000,
				5_000,
				failing,
				() => true,
				() => 'budget'
			),
			new Promise((r) => setTimeout(r, 10)).then(() =>
				b.run(
					'k1',
					1_000,
					5_000,
					async () => answer(9),
					() => true
				)
			)
		]);
		expect(both.map((s) => s.status)).toEqual(['rejected', 'rejected']);
		expect(((both[1] as PromiseRejectedResult).reason as { kind: string }).kind).toBe('budget');
		// A lock left by a replica that died mid-call: the waiter takes over once it expires.
		const lockKey = (a as unknown as { lockKey(k: string): string }).lockKey('dead');
		await conns[0].set(lockKey, 'gone:1', 'PX', 300);
		const took = await b.run(
			'dead',
			1_000,
			1_000,
			async () => answer(7),
			() => true
		);
		expect(took.outcome).toBe('miss');
		expect(took.value.body.toString()).toBe('{"n":7}');
	});
});

describe('Redis away', () => {
	it('fails fast with ClusterUnavailableError and recovers when Redis is back', async () => {
		const [c] = replicas(1);
		await ready(c);
		const ledger = new SharedQuota(c, {}, undefined, fresh());
		await redis.kill();
		const started = Date.now();
		await expect(ledger.reserve('a', 'api_default')).rejects.toBeInstanceOf(
			ClusterUnavailableError
		);
		expect(Date.now() - started).toBeLessThan(3_000);
		await redis.restart();
		await ready(c);
		expect((await ledger.reserve('a', 'api_default')).ok).toBe(true);
	}, 30_000);
});
