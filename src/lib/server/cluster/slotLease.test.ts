/**
 * The slot lease against a real redis-server (tests/support/redis.ts): of several replicas
 * exactly one holds the slot, the fencing token only grows, a holder cut off from Redis lets
 * go before anyone else can take the lease (never two holders at once), and a clean stop
 * hands the slot over at once, recorded as the last failover.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Redis } from 'ioredis';
import { startRedis, type RunningRedis } from '../../../../tests/support/redis';
import { setLogSink, type LogSink } from '../log';
import { connectRedis } from './redis';
import { SlotLease, type SlotLeaseOptions } from './slotLease';

let redis: RunningRedis;
const clients: Redis[] = [];
const leases: SlotLease[] = [];
let prefix = 0;
const lines: string[] = [];
let previousSink: LogSink;

beforeAll(async () => {
	previousSink = setLogSink({ out: (l) => lines.push(l), err: (l) => lines.push(l) });
	redis = await startRedis();
}, 30_000);
afterAll(async () => {
	setLogSink(previousSink);
	for (const l of leases) await l.stop().catch(() => undefined);
	for (const c of clients) c.disconnect();
	await redis?.stop();
});

/** One held period of one replica: [from, to) in ms (to undefined while held). */
interface Held {
	id: string;
	token: number;
	from: number;
	to?: number;
}

/** `n` replicas competing for one slot, each on its own connection, with a log of holds. */
function replicas(n: number, options: SlotLeaseOptions) {
	const p = `slot${++prefix}`;
	const held: Held[] = [];
	const made = Array.from({ length: n }, (_, i) => {
		const conn = connectRedis(redis.url);
		clients.push(conn);
		const id = `r${i}`;
		const lease = new SlotLease(
			conn,
			id,
			{
				acquired: (hold) => held.push({ id, token: hold.token, from: performance.now() }),
				lost: () => {
					const open = held.findLast((h) => h.id === id && h.to === undefined);
					if (open) open.to = performance.now();
				}
			},
			{ prefix: p, ...options }
		);
		leases.push(lease);
		return { id, conn, lease };
	});
	return { made, held };
}

const until = async (what: () => boolean, ms: number) => {
	const end = Date.now() + ms;
	while (!what()) {
		if (Date.now() > end) throw new Error('timed out');
		await new Promise((r) => setTimeout(r, 10));
	}
};

/** No two holds overlap, and each later hold has a larger token. */
function expectOneAtATime(held: Held[]) {
	const sorted = [...held].sort((a, b) => a.from - b.from);
	for (let i = 1; i < sorted.length; i++) {
		expect(
			sorted[i - 1].to,
			`${sorted[i - 1].id} still held when ${sorted[i].id} took it`
		).toBeDefined();
		expect(sorted[i - 1].to!).toBeLessThanOrEqual(sorted[i].from);
		expect(sorted[i].token).toBeGreaterThan(sorted[i - 1].token);
	}
}

const fast: SlotLeaseOptions = { ttlMs: 1_500, renewEveryMs: 300, marginMs: 500, pollMs: 100 };

describe('slot lease', () => {
	it('three replicas: exactly one holds, and keeps it while it renews', async () => {
		const { made, held } = replicas(3, fast);
		for (const r of made) r.lease.start();
		await until(() => held.length > 0, 3_000);
		// Several TTLs pass: the holder renews, nobody else ever takes it.
		await new Promise((r) => setTimeout(r, 3 * fast.ttlMs!));
		expect(held).toHaveLength(1);
		expect(held[0].to).toBeUndefined();
		expect(made.filter((r) => r.lease.holding)).toHaveLength(1);
		const info = await made[0].lease.info();
		expect(info.holder).toBe(held[0].id);
		expect(info.token).toBe(held[0].token);
	}, 15_000);

	it('a holder cut off from Redis lets go before another takes the slot, within TTL + poll', async () => {
		const { made, held } = replicas(3, fast);
		for (const r of made) r.lease.start();
		await until(() => held.length === 1, 3_000);
		const first = made.find((r) => r.lease.holding)!;
		const cutAt = performance.now();
		first.conn.disconnect(); // no reconnect: its renewals fail from now on
		await until(() => held.length === 2, 5_000);
		expectOneAtATime(held);
		expect(held[1].id).not.toBe(first.id);
		// The last renewal was at most renewEvery before the cut; the lease expires TTL after it.
		expect(held[1].from - cutAt).toBeLessThan(fast.ttlMs! + 2 * fast.pollMs! + 200);
		const info = await made.find((r) => r.id === held[1].id)!.lease.info();
		expect(info.lastFailover).toMatchObject({ from: first.id, to: held[1].id });
		expect(info.lastFailover!.gapMs).toBeGreaterThanOrEqual(0);
		expect(lines.some((l) => l.includes('gave up the upstream slot: the lease could not'))).toBe(
			true
		);
		// The cut-off replica keeps trying, but says so once per outage, not once per poll.
		await new Promise((r) => setTimeout(r, 5 * fast.pollMs!));
		expect(lines.filter((l) => l.includes('slot lease: Redis unreachable')).length).toBe(1);
	}, 15_000);

	it('a clean stop releases the lease: another holds it within a few polls', async () => {
		const { made, held } = replicas(2, fast);
		for (const r of made) r.lease.start();
		await until(() => held.length === 1, 3_000);
		const first = made.find((r) => r.lease.holding)!;
		const stoppedAt = performance.now();
		await first.lease.stop();
		await until(() => held.length === 2, 3_000);
		expectOneAtATime(held);
		// Released, not left to expire (that would take most of a TTL).
		expect(held[1].from - stoppedAt).toBeLessThan(fast.ttlMs! / 2);
		const info = await made.find((r) => r.id === held[1].id)!.lease.info();
		expect(info.lastFailover!.gapMs).toBeLessThan(fast.ttlMs! / 2);
	}, 15_000);

	it('five hand-overs by cut connections: never two holders, tokens only grow', async () => {
		const { made, held } = replicas(3, fast);
		for (const r of made) r.lease.start();
		for (let kill = 0; kill < 5; kill++) {
			// Liveness waits are generous (a loaded machine delays timers by seconds); what the
			// test guards is the safety below: never two holders, tokens only grow.
			await until(() => held.filter((h) => h.to === undefined).length === 1, 15_000);
			const holder = made.find((r) => r.lease.holding)!;
			// Cut it, then bring a fresh connection back as a new replica in its place.
			holder.conn.disconnect();
			await until(() => held.filter((h) => h.to === undefined).length === 0, 10_000);
			await holder.lease.stop().catch(() => undefined);
			const conn = connectRedis(redis.url);
			clients.push(conn);
			const id = `${holder.id}+`;
			const lease = new SlotLease(
				conn,
				id,
				{
					acquired: (h) => held.push({ id, token: h.token, from: performance.now() }),
					lost: () => {
						const open = held.findLast((h) => h.id === id && h.to === undefined);
						if (open) open.to = performance.now();
					}
				},
				{ prefix: `slot${prefix}`, ...fast }
			);
			leases.push(lease);
			Object.assign(holder, { id, conn, lease });
			lease.start();
		}
		await until(() => held.length >= 6, 15_000);
		expectOneAtATime(held);
	}, 150_000);

	it('refuses settings whose renewals would not come inside the TTL minus the margin', () => {
		const conn = connectRedis(redis.url);
		clients.push(conn);
		const events = { acquired: () => undefined, lost: () => undefined };
		expect(
			() => new SlotLease(conn, 'x', events, { ttlMs: 1_000, renewEveryMs: 700, marginMs: 400 })
		).toThrow(/inside the TTL/);
	});
});
