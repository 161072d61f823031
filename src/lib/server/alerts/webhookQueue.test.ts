/**
 * The global delivery queue over real sockets: three "test rule" firings of a rule with five
 * webhooks, at a receiver (allowed on loopback) that answers slowly with 500 so every delivery
 * retries, never have more than the cap's connections open at once, and the number of requests
 * is bounded by deliveries x attempts. A full queue drops its oldest waiting attempt, counted.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_WEBHOOKS_PER_RULE } from '../../alerts/rules';
import { FeedHolder } from '../feeds';
import { UpdateTap } from '../updates/tap';
import { parseAllowList } from './addressPolicy';
import { DeliveryQueue } from './deliveryQueue';
import { openDatabase, type Database } from '../db/index';
import { AlertService } from './service';

let server: Server;
let base: string;
let open = 0;
let maxOpen = 0;
let requests = 0;
let dir: string;
let db: Database;

beforeAll(async () => {
	dir = mkdtempSync(join(tmpdir(), 'gexdeck-queue-'));
	db = await openDatabase({ dataDir: dir });
	server = createServer((_req, res) => {
		requests++;
		setTimeout(() => res.writeHead(500).end(), 30);
	});
	server.on('connection', (socket) => {
		open++;
		maxOpen = Math.max(maxOpen, open);
		socket.on('close', () => open--);
	});
	await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
	base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
	await new Promise((r) => server.close(r));
	await db.close();
	rmSync(dir, { recursive: true, force: true });
});

describe('webhook delivery queue', () => {
	it('3 test firings to 5 webhooks keep at most 4 connections open, retries included', async () => {
		const service = await new AlertService({
			db,
			feeds: new FeedHolder({
				tap: new UpdateTap(),
				account: async () => ({ streams: false })
			}).client('alerts'),
			watch: false,
			sender: {
				allow: parseAllowList('127.0.0.1'),
				concurrency: 4,
				maxAttempts: 3,
				baseDelayMs: 5,
				maxDelayMs: 20
			}
		}).start();
		const ids: string[] = [];
		for (let i = 0; i < MAX_WEBHOOKS_PER_RULE; i++) {
			const r = await service.saveWebhook({ id: `w${i}`, url: `${base}/h${i}` });
			expect(r.ok).toBe(true);
			ids.push(`w${i}`);
		}
		// A sixth webhook is refused for a rule.
		await service.saveWebhook({ id: 'w5', url: `${base}/h5` });
		expect(
			(await service.saveRule({ id: 'r', ticker: 'SPX', kind: 'gex_sign', webhooks: ids })).ok
		).toBe(true);
		const six = await service.saveRule({
			id: 'r6',
			ticker: 'SPX',
			kind: 'gex_sign',
			webhooks: [...ids, 'w5']
		});
		expect(six.ok).toBe(false);
		for (let i = 0; i < 3; i++) await service.testRule('r');
		const deadline = Date.now() + 20_000;
		while (service.webhooks().some((w) => w.health.pending > 0) && Date.now() < deadline) {
			await new Promise((r) => setTimeout(r, 20));
		}
		expect(service.webhooks().every((w) => w.health.pending === 0)).toBe(true);
		expect(maxOpen).toBeGreaterThan(1);
		expect(maxOpen).toBeLessThanOrEqual(4);
		expect(requests).toBe(3 * MAX_WEBHOOKS_PER_RULE * 3);
		expect(service.deliveryStats()).toMatchObject({ inFlight: 0, queued: 0, dropped: 0 });
		service.close();
	});

	it('a full queue drops the oldest waiting attempt and counts it', async () => {
		const q = new DeliveryQueue(1, 2);
		const ran: number[] = [];
		const dropped: number[] = [];
		let release!: () => void;
		const gate = new Promise<void>((r) => (release = r));
		for (let i = 0; i < 5; i++) {
			q.push(
				async () => {
					ran.push(i);
					if (i === 0) await gate;
				},
				() => dropped.push(i)
			);
		}
		expect(q.stats()).toMatchObject({ inFlight: 1, queued: 2, dropped: 2 });
		expect(dropped).toEqual([1, 2]);
		release();
		await new Promise((r) => setTimeout(r, 10));
		expect(ran).toEqual([0, 3, 4]);
		expect(q.stats()).toMatchObject({ inFlight: 0, queued: 0, dropped: 2 });
	});
});
