/**
 * The cluster's frame streams against a real redis-server: only the lease holder's frames are
 * appended (fenced by its token, also across a hand-over), every reader gets every frame once,
 * in order, byte for byte, and a reconnecting viewer's replay says when frames were trimmed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Redis } from 'ioredis';
import { startRedis, type RunningRedis } from '../../../../tests/support/redis';
import { setLogSink, type LogSink } from '../log';
import { connectRedis } from './redis';
import { SlotLease } from './slotLease';
import {
	compareIds,
	readAfter,
	slotStreamKeys,
	SlotStreamPublisher,
	SlotStreamReader,
	type StreamFrame
} from './slotStream';

let redis: RunningRedis;
const clients: Redis[] = [];
const stops: (() => Promise<void>)[] = [];
let previousSink: LogSink;
let n = 0;

beforeAll(async () => {
	previousSink = setLogSink({ out: () => undefined, err: () => undefined });
	redis = await startRedis();
}, 30_000);
afterAll(async () => {
	for (const stop of stops) await stop().catch(() => undefined);
	for (const c of clients) c.disconnect();
	setLogSink(previousSink);
	await redis?.stop();
});

const conn = () => {
	const c = connectRedis(redis.url);
	clients.push(c);
	return c;
};
const until = async (what: () => boolean, ms: number) => {
	const end = Date.now() + ms;
	while (!what()) {
		if (Date.now() > end) throw new Error('timed out');
		await new Promise((r) => setTimeout(r, 10));
	}
};
/** A frame's bytes: every byte value, and the frame's number. */
const bytes = (i: number) => Uint8Array.from([0, 255, 10, 13, i, ...Array(40).fill(i)]);

function reader(prefix: string, from?: Record<string, string>) {
	const got: StreamFrame[] = [];
	const r = new SlotStreamReader(
		conn(),
		slotStreamKeys(prefix),
		['classic'],
		(f) => got.push(f),
		from,
		200
	);
	r.start();
	stops.push(() => r.stop());
	return { r, got };
}

async function holder(prefix: string, id: string) {
	let held = false;
	const lease = new SlotLease(
		conn(),
		id,
		{ acquired: () => (held = true), lost: () => (held = false) },
		{ prefix, ttlMs: 1_500, renewEveryMs: 300, marginMs: 500, pollMs: 50 }
	);
	stops.push(() => lease.stop());
	lease.start();
	return { lease, isHeld: () => held, value: () => `${id} ${lease.holding?.token}` };
}

describe('slot frame streams', () => {
	it('every reader gets every frame of both holders once, in order; a stale holder is fenced', async () => {
		const prefix = `fs${++n}`;
		const keys = slotStreamKeys(prefix);
		const readers = [reader(prefix), reader(prefix)];
		await new Promise((r) => setTimeout(r, 100)); // the readers pin their start
		const a = await holder(prefix, 'a');
		await until(a.isHeld, 3_000);
		const b = await holder(prefix, 'b');
		const pub = new SlotStreamPublisher(conn(), keys);
		const aValue = a.value();
		for (let i = 0; i < 5; i++)
			expect(await pub.publish(aValue, 'classic', 'SPX_classic_gex_full', bytes(i))).toBeTruthy();
		await a.lease.stop(); // hand-over
		await until(b.isHeld, 3_000);
		// The old holder's late frame is refused: its token no longer holds the lease.
		expect(await pub.publish(aValue, 'classic', 'SPX_classic_gex_full', bytes(99))).toBeUndefined();
		for (let i = 5; i < 10; i++)
			expect(
				await pub.publish(b.value(), 'classic', 'SPX_classic_gex_full', bytes(i))
			).toBeTruthy();
		for (const { got } of readers) {
			await until(() => got.length >= 10, 3_000);
			await new Promise((r) => setTimeout(r, 300));
			expect(got).toHaveLength(10);
			expect(got.map((f) => f.any[4])).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
			expect(Buffer.compare(got[7].any, Buffer.from(bytes(7)))).toBe(0);
			expect(got.every((f) => f.group === 'SPX_classic_gex_full' && f.hub === 'classic')).toBe(
				true
			);
			for (let i = 1; i < got.length; i++)
				expect(compareIds(got[i - 1].id, got[i].id)).toBeLessThan(0);
		}
	}, 20_000);

	it('a reconnecting viewer replays after its last id; frames trimmed by time are a reported gap', async () => {
		const prefix = `fs${++n}`;
		const keys = slotStreamKeys(prefix);
		const h = await holder(prefix, 'h');
		await until(h.isHeld, 3_000);
		const pub = new SlotStreamPublisher(conn(), keys, 300);
		const ids: string[] = [];
		for (let i = 0; i < 4; i++) ids.push((await pub.publish(h.value(), 'classic', 'g', bytes(i)))!);
		const { r } = reader(prefix);
		const replay = await r.after('classic', ids[1]);
		expect(replay.gap).toBe(false);
		expect(replay.frames.map((f) => f.id)).toEqual(ids.slice(2));
		// Past the retention, the next append trims the old frames: asking after one is a gap.
		await new Promise((res) => setTimeout(res, 400));
		const late = (await pub.publish(h.value(), 'classic', 'g', bytes(4)))!;
		const after = await r.after('classic', ids[1]);
		expect(after.gap).toBe(true);
		expect(after.frames.map((f) => f.id)).toEqual([late]);
		expect((await r.after('classic', late)).gap).toBe(false);
	}, 20_000);

	it('a reader started from an id continues from there', async () => {
		const prefix = `fs${++n}`;
		const h = await holder(prefix, 'h');
		await until(h.isHeld, 3_000);
		const pub = new SlotStreamPublisher(conn(), slotStreamKeys(prefix));
		const ids: string[] = [];
		for (let i = 0; i < 3; i++) ids.push((await pub.publish(h.value(), 'classic', 'g', bytes(i)))!);
		const { r, got } = reader(prefix, { classic: ids[0] });
		await until(() => got.length >= 2, 3_000);
		expect(got.map((f) => f.id)).toEqual(ids.slice(1));
		expect(r.position()).toEqual({ classic: ids[2] });
	}, 20_000);

	it('a gap marker sits in order between frames, for live readers and replays alike', async () => {
		const prefix = `fs${++n}`;
		const h = await holder(prefix, 'h');
		await until(h.isHeld, 3_000);
		const pub = new SlotStreamPublisher(conn(), slotStreamKeys(prefix));
		const { got } = reader(prefix);
		await new Promise((r) => setTimeout(r, 100));
		const first = (await pub.publish(h.value(), 'classic', 'g', bytes(0)))!;
		await pub.publishGap(h.value(), 'classic', 'nobody held the slot for 2.1 s');
		await pub.publish(h.value(), 'classic', 'g', bytes(1));
		await until(() => got.length >= 3, 3_000);
		expect(got.map((f) => f.gap)).toEqual([undefined, 'nobody held the slot for 2.1 s', undefined]);
		const replay = await readAfter(conn(), slotStreamKeys(prefix), 'classic', first);
		expect(replay.frames.map((f) => [f.group, f.gap])).toEqual([
			['', 'nobody held the slot for 2.1 s'],
			['g', undefined]
		]);
	}, 20_000);

	it('a replay after an id the stream never had since Redis restarted is a reported gap', async () => {
		const prefix = `fs${++n}`;
		const keys = slotStreamKeys(prefix);
		const h = await holder(prefix, 'h');
		await until(h.isHeld, 3_000);
		const pub = new SlotStreamPublisher(conn(), keys);
		const before = (await pub.publish(h.value(), 'classic', 'g', bytes(0)))!;
		// What a Redis restart without persistence leaves: the stream gone, nothing trimmed.
		await conn().del(keys.frames + 'classic', keys.frames + 'classic:trimmed');
		await new Promise((r) => setTimeout(r, 5));
		const after = (await pub.publish(h.value(), 'classic', 'g', bytes(1)))!;
		const replay = await readAfter(conn(), keys, 'classic', before);
		expect(replay).toMatchObject({ gap: true, frames: [{ id: after }] });
		expect((await readAfter(conn(), keys, 'classic', after)).gap).toBe(false);
	}, 20_000);
});
