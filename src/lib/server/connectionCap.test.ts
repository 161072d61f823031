/**
 * ConnectionCap and releasingStream: a slot per answer, given back exactly once when the answer
 * ends, fails or is cancelled by a client that left; past the cap, 503 with Retry-After.
 */
import { describe, expect, it } from 'vitest';
import { ConnectionCap, releasingStream } from './connectionCap';
import { TokenBucket } from './tokenBucket';

function source(chunks: number, fail = false): ReadableStream<Uint8Array> {
	let n = 0;
	return new ReadableStream({
		pull(c) {
			if (n < chunks) c.enqueue(new Uint8Array([n++]));
			else if (fail) c.error(new Error('disk'));
			else c.close();
		}
	});
}

describe('ConnectionCap', () => {
	it('refuses past the cap with 503 and Retry-After; a release (even twice) frees one slot', async () => {
		const cap = new ConnectionCap(2, 7);
		const a = cap.acquire()!;
		const b = cap.acquire()!;
		expect(cap.acquire()).toBeUndefined();
		const busy = cap.busy('things');
		expect(busy.status).toBe(503);
		expect(busy.headers.get('retry-after')).toBe('7');
		a();
		a();
		expect(cap.size).toBe(1);
		expect(cap.acquire()).toBeDefined();
		b();
	});

	it('a stream releases its slot when read to the end, on error, and when cancelled', async () => {
		const cap = new ConnectionCap(3, 1);
		const ended = releasingStream(source(3), cap.acquire()!);
		const failed = releasingStream(source(1, true), cap.acquire()!);
		const cancelled = releasingStream(source(1000), cap.acquire()!);
		expect(cap.size).toBe(3);
		expect((await new Response(ended).arrayBuffer()).byteLength).toBe(3);
		await expect(new Response(failed).arrayBuffer()).rejects.toThrow();
		const reader = cancelled.getReader();
		await reader.read();
		expect(cap.size).toBe(1);
		await reader.cancel();
		expect(cap.size).toBe(0);
	});
});

describe('TokenBucket', () => {
	it('allows a burst of its capacity, then its rate', () => {
		let t = 0;
		const b = new TokenBucket(3, 2, () => t);
		expect([b.take(), b.take(), b.take(), b.take()]).toEqual([true, true, true, false]);
		t = 500; // half a second: one token
		expect([b.take(), b.take()]).toEqual([true, false]);
		t = 100_000; // refills to the capacity, not beyond
		expect([b.take(), b.take(), b.take(), b.take()]).toEqual([true, true, true, false]);
	});
});
