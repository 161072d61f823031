/**
 * The sender's remaining edges, through its injectable post (no sockets): the queue bounds it is
 * given, a delivery pushed out of a full queue (given up, its health saying why), a redirect and
 * a status below 200 retried as failures, and close() giving up a delivery waiting out its
 * backoff at once rather than when the backoff ends.
 */
import { describe, expect, it } from 'vitest';
import type { PostOptions } from './webhookTarget';
import { WebhookSender } from './webhooks';
import { firing, webhook } from './webhooks.test-support';

/** A post answering `status` to every attempt, counting them. */
function answering(status: number) {
	const calls: URL[] = [];
	const post = (url: URL, _o: PostOptions) => {
		calls.push(url);
		return Promise.resolve(status);
	};
	return { post, calls };
}

describe('WebhookSender edges', () => {
	it('builds its queue with the bounds it is given, else 4 in flight and 200 waiting', () => {
		const given = new WebhookSender({ concurrency: 2, maxQueued: 7 }).queue.stats();
		expect([given.concurrency, given.maxQueued]).toEqual([2, 7]);
		const defaults = new WebhookSender().queue.stats();
		expect([defaults.concurrency, defaults.maxQueued]).toEqual([4, 200]);
	});

	it('gives up a delivery pushed out of a full queue, and says so in its health', async () => {
		let release: (status: number) => void = () => undefined;
		const post = () => new Promise<number>((r) => (release = r));
		const sender = new WebhookSender({ post, concurrency: 1, maxQueued: 1 });
		const first = sender.send(webhook(), firing); // in flight, held
		const second = sender.send(webhook(), firing); // waiting
		const third = sender.send(webhook(), firing); // pushes the second out
		expect(await second).toBe(false);
		const h = sender.healthOf('w1');
		expect(h.lastError).toBe('dropped: delivery queue full');
		expect([h.failed, h.pending, h.consecutiveFailures]).toEqual([1, 2, 1]);
		expect(sender.queue.stats().dropped).toBe(1);
		release(204);
		expect(await first).toBe(true);
		await new Promise((r) => setTimeout(r, 0));
		release(204);
		expect(await third).toBe(true);
		expect(sender.healthOf('w1').delivered).toBe(2);
	});

	it('retries a redirect and a status below 200 as failures, naming each', async () => {
		for (const [status, error] of [
			[302, 'HTTP 302 (a redirect; redirects are not followed)'],
			[399, 'HTTP 399 (a redirect; redirects are not followed)'],
			[199, 'HTTP 199'],
			[0, 'HTTP 0']
		] as const) {
			const { post, calls } = answering(status);
			const sender = new WebhookSender({ post, maxAttempts: 3, baseDelayMs: 1 });
			expect(await sender.send(webhook(), firing), String(status)).toBe(false);
			expect(calls, String(status)).toHaveLength(3);
			expect(sender.healthOf('w1').lastError, String(status)).toBe(error);
		}
		for (const status of [200, 299]) {
			const sender = new WebhookSender({ post: answering(status).post });
			expect(await sender.send(webhook(), firing), String(status)).toBe(true);
		}
	});

	it('close() gives up a delivery waiting out its backoff at once', async () => {
		const { post, calls } = answering(503);
		const sender = new WebhookSender({ post, baseDelayMs: 60_000 });
		const done = sender.send(webhook(), firing);
		await new Promise((r) => setTimeout(r, 20)); // the first attempt failed; a minute to wait
		expect(calls).toHaveLength(1);
		sender.close();
		const settled = await Promise.race([
			done,
			new Promise((r) => setTimeout(() => r('still waiting'), 1000))
		]);
		expect(settled).toBe(false);
		expect(calls).toHaveLength(1);
		expect(await sender.send(webhook(), firing)).toBe(false); // closed: nothing is sent
		expect(calls).toHaveLength(1);
	});
});
