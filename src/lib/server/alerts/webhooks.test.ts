/**
 * Webhook delivery against local receivers: the four message shapes, retries with backoff up to
 * the bound, no retry of a refusal, and no request to a URL the user did not enter (a redirect
 * is a failure, its target is never asked).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { Webhook } from '../../alerts/rules';
import { parseAllowList } from './addressPolicy';
import { webhookRequest, WebhookSender, type SenderOptions } from './webhooks';
import { firing, webhook } from './webhooks.test-support';

/** The test receivers listen on loopback: a sender that may reach it. */
const loopback = (o: SenderOptions = {}) =>
	new WebhookSender({ allow: parseAllowList('127.0.0.1'), ...o });

/** The shared hook, named `w` here, at a test receiver's `url`. */
const hook = (url: string, format: Webhook['format'] = 'json'): Webhook => ({
	...webhook(format, url),
	id: 'w',
	name: 'w'
});

const servers: Server[] = [];
afterEach(async () => {
	await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
});

async function serve(handler: Parameters<typeof createServer>[1]): Promise<string> {
	const s = createServer(handler);
	servers.push(s);
	await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
	return `http://127.0.0.1:${(s.address() as AddressInfo).port}`;
}

describe('message shapes', () => {
	it('json is the firing itself; Discord content, Slack text, ntfy plain text with headers', () => {
		expect(JSON.parse(webhookRequest(hook('http://x/'), firing).body)).toEqual(firing);
		const discord = JSON.parse(webhookRequest(hook('http://x/', 'discord'), firing).body);
		expect(discord).toEqual({
			username: 'gexdeck',
			content: `**gexdeck: SPX zero gamma**\n${firing.message} — ${firing.link}`,
			allowed_mentions: { parse: [] }
		});
		const slack = JSON.parse(webhookRequest(hook('http://x/', 'slack'), firing).body);
		expect(slack).toEqual({
			text: `*gexdeck: SPX zero gamma*\n${firing.message} — ${firing.link}`
		});
		const ntfy = webhookRequest(hook('http://x/', 'ntfy'), firing);
		expect(ntfy.body).toBe(firing.message);
		expect(ntfy.headers).toMatchObject({ title: 'gexdeck: SPX zero gamma', click: firing.link });
	});
});

describe('WebhookSender', () => {
	it('retries failures with backoff and gives up after the bound', async () => {
		let n = 0;
		const base = await serve((_req, res) => {
			n++;
			res.writeHead(503).end();
		});
		const sender = loopback({ maxAttempts: 3, baseDelayMs: 10 });
		expect(await sender.send(hook(`${base}/h`), firing)).toBe(false);
		expect(n).toBe(3);
		expect(sender.healthOf('w')).toMatchObject({
			delivered: 0,
			failed: 1,
			consecutiveFailures: 3,
			lastError: 'HTTP 503',
			pending: 0
		});
	});

	it('does not retry a refusal (4xx other than 408/429)', async () => {
		let n = 0;
		const base = await serve((_req, res) => {
			n++;
			res.writeHead(404).end();
		});
		expect(await loopback({ baseDelayMs: 10 }).send(hook(`${base}/h`), firing)).toBe(false);
		expect(n).toBe(1);
	});

	it('never follows a redirect: the target is not asked', async () => {
		let targetHits = 0;
		const target = await serve((_req, res) => {
			targetHits++;
			res.writeHead(200).end();
		});
		const base = await serve((_req, res) => {
			res.writeHead(307, { location: `${target}/elsewhere` }).end();
		});
		const sender = loopback({ maxAttempts: 2, baseDelayMs: 10 });
		expect(await sender.send(hook(`${base}/h`), firing)).toBe(false);
		expect(targetHits).toBe(0);
		expect(sender.healthOf('w').lastError).toBe(
			'HTTP 307 (a redirect; redirects are not followed)'
		);
	});

	it('an unreachable receiver is a failure named by category, without address or port', async () => {
		// A port that was just free: nothing listens there now.
		const closed = await serve(() => undefined);
		await new Promise((r) => servers.pop()!.close(r));
		const sender = loopback({ maxAttempts: 1 });
		expect(await sender.send(hook(`${closed}/h`), firing)).toBe(false);
		expect(sender.healthOf('w').lastError).toBe('refused');
	});

	it('a receiver that never answers is "timed out"', async () => {
		const base = await serve(() => undefined);
		const sender = loopback({ maxAttempts: 1, timeoutMs: 100 });
		expect(await sender.send(hook(`${base}/h`), firing)).toBe(false);
		expect(sender.healthOf('w').lastError).toBe('timed out');
	});
});
