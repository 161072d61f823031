/**
 * Webhook messages and the sender's schedule at their edges (what `npm run mutate` found
 * untested), through the sender's injectable post (one attempt) and fake timers: the title and link rules of
 * every format, which statuses are retried, the backoff steps with jitter and cap, health
 * counters, and close() stopping retries. Delivery over real sockets: webhooks.test.ts.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { AlertFiring } from '../../alerts/firing';
import type { PostOptions } from './webhookTarget';
import { webhookRequest, WebhookSender } from './webhooks';
import { firing, webhook } from './webhooks.test-support';

afterEach(() => vi.useRealTimers());

describe('message shapes at their edges', () => {
	it('a test firing is marked, an unnamed rule shows its description, no link no dash', () => {
		const f: AlertFiring = { ...firing, test: true, ruleName: '', link: '' };
		expect(JSON.parse(webhookRequest(webhook('slack'), f).body).text).toBe(
			`*[test] gexdeck: ${firing.description}*\n${firing.message}`
		);
		expect(webhookRequest(webhook('json'), f).headers).toEqual({
			'content-type': 'application/json'
		});
		expect(webhookRequest(webhook('discord'), f).headers).toEqual({
			'content-type': 'application/json'
		});
	});

	it('Discord content stops at 2000 characters', () => {
		const long = { ...firing, message: 'x'.repeat(3000) };
		const content = JSON.parse(webhookRequest(webhook('discord'), long).body).content as string;
		expect(content).toHaveLength(2000);
		expect(content.startsWith('**gexdeck: SPX zero gamma**\nxxx')).toBe(true);
	});

	it('ntfy: ASCII title, a tag per direction, a click link only for http(s)', () => {
		const down = { ...firing, direction: 'down', ruleName: 'SPX ↓ zero', link: '/SPX' };
		const r = webhookRequest(webhook('ntfy'), down as AlertFiring);
		expect(r.headers).toEqual({
			'content-type': 'text/plain; charset=utf-8',
			title: 'gexdeck: SPX ? zero',
			tags: 'chart_with_downwards_trend'
		});
		expect(webhookRequest(webhook('ntfy'), firing).headers).toMatchObject({
			tags: 'chart_with_upwards_trend',
			click: firing.link
		});
	});
});

/** A post that answers the given statuses in turn (then the last), recording each attempt. */
function fakePost(statuses: (number | Error)[]) {
	const calls: { at: number; url: string; o: PostOptions }[] = [];
	const post = async (url: URL, o: PostOptions) => {
		calls.push({ at: Date.now(), url: url.href, o });
		const s = statuses[Math.min(calls.length - 1, statuses.length - 1)];
		if (s instanceof Error) throw s;
		return s;
	};
	return { post, calls };
}

describe('WebhookSender schedule', () => {
	it('backs off 1, 2, 4 ... s capped, with jitter of half a step', async () => {
		vi.useFakeTimers({ now: 0 });
		const { post, calls } = fakePost([503]);
		const sender = new WebhookSender({ post, maxDelayMs: 3_000, random: () => 0.5 });
		const done = sender.send(webhook(), firing);
		await vi.advanceTimersByTimeAsync(60_000);
		expect(await done).toBe(false);
		// Four attempts by default; steps 1000, 2000, 3000 (capped): each waits 3/4 of its step.
		expect(calls.map((c) => c.at)).toEqual([0, 750, 2_250, 4_500]);
		vi.useFakeTimers({ now: 0 });
		const low = fakePost([503]);
		const s2 = new WebhookSender({ post: low.post, maxAttempts: 3, random: () => 0 });
		const d2 = s2.send(webhook(), firing);
		await vi.advanceTimersByTimeAsync(60_000);
		await d2;
		expect(low.calls.map((c) => c.at)).toEqual([0, 500, 1_500]);
	});

	it('retries 408, 429, 5xx and network errors; not other 4xx', async () => {
		for (const [status, attempts] of [
			[408, 2],
			[429, 2],
			[500, 2],
			[400, 1],
			[403, 1],
			[499, 1]
		] as const) {
			const { post, calls } = fakePost([status]);
			const sender = new WebhookSender({ post, maxAttempts: 2, baseDelayMs: 1 });
			expect(await sender.send(webhook(), firing), String(status)).toBe(false);
			expect(calls, String(status)).toHaveLength(attempts);
		}
		const net = fakePost([Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' })]);
		const s = new WebhookSender({ post: net.post, maxAttempts: 2, baseDelayMs: 1 });
		expect(await s.send(webhook(), firing)).toBe(false);
		expect(net.calls).toHaveLength(2);
		// A category, never the socket's own words (they can name an address or port).
		expect(s.healthOf('w1').lastError).toBe('connection reset');
	});

	it('posts the message to the entered URL only, with its User-Agent and a timeout', async () => {
		const { post, calls } = fakePost([204]);
		const sender = new WebhookSender({ post, userAgent: 'gexdeck/9' });
		expect(await sender.send(webhook('slack'), firing)).toBe(true);
		expect(calls[0].url).toBe('https://hooks.example/x');
		expect(calls[0].o).toMatchObject({
			headers: { 'content-type': 'application/json', 'user-agent': 'gexdeck/9' },
			body: webhookRequest(webhook('slack'), firing).body
		});
		expect(calls[0].o.timeoutMs).toBeGreaterThan(0);
		const plain = fakePost([200]);
		expect(await new WebhookSender({ post: plain.post }).send(webhook(), firing)).toBe(true);
		expect(plain.calls[0].o.headers['user-agent']).toBe('gexdeck');
	});

	it('a 2xx is delivered and heals the webhook; 3xx is not', async () => {
		const { post } = fakePost([500, 299]);
		const log: string[] = [];
		const sender = new WebhookSender({ post, baseDelayMs: 1, log: (m) => log.push(m) });
		const sending = sender.send(webhook(), firing);
		expect(sender.healthOf('w1').pending).toBe(1);
		expect(await sending).toBe(true);
		const h = sender.healthOf('w1');
		expect(h).toMatchObject({ delivered: 1, failed: 0, consecutiveFailures: 0, pending: 0 });
		expect(h.lastOkAt).toBeGreaterThan(0);
		expect(h.lastErrorAt).toBeGreaterThan(0);
		expect(log).toEqual([]);
		const redirect = fakePost([300]);
		const r = new WebhookSender({ post: redirect.post, log: (m) => log.push(m) });
		expect(await r.send(webhook(), firing, 1)).toBe(false);
		expect(r.healthOf('w1')).toMatchObject({ delivered: 0, failed: 1, lastOkAt: null });
		expect(r.healthOf('w1').lastError).toContain('redirect');
		const refused = new WebhookSender({ post: fakePost([400]).post });
		await refused.send(webhook(), firing);
		expect(refused.healthOf('w1').lastError).not.toContain('redirect');
		expect(log).toEqual(['alerts: webhook desk (w1) gave up on f1']);
		r.forget('w1');
		expect(r.healthOf('w1').failed).toBe(0);
	});

	it('close() stops retrying: pending deliveries give up at their next step', async () => {
		vi.useFakeTimers({ now: 0 });
		const { post, calls } = fakePost([503]);
		const sender = new WebhookSender({ post, random: () => 0 });
		const done = sender.send(webhook(), firing);
		await vi.advanceTimersByTimeAsync(0);
		expect(calls).toHaveLength(1);
		sender.close();
		await vi.advanceTimersByTimeAsync(60_000);
		expect(await done).toBe(false);
		expect(calls).toHaveLength(1);
		expect(await sender.send(webhook(), firing)).toBe(false);
		expect(calls).toHaveLength(1);
	});
});
