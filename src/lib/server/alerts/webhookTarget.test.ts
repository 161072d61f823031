/**
 * Webhooks and the addresses they may reach, over real sockets: a receiver on 127.0.0.1 is
 * refused (never connected to) without the allowlist, in every notation of its address, and
 * reached with it; the connection goes to the address that was checked (no second lookup), and
 * a failure reads as a category without address or port. The save-time check of the alerts
 * service refuses the same URLs with a message naming the setting.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AlertFiring } from '../../alerts/firing';
import { parseAllowList } from './addressPolicy';
import { openDatabase, type Database } from '../db/index';
import { AlertService } from './service';
import { FeedHolder } from '../feeds';
import { UpdateTap } from '../updates/tap';
import { WebhookSender } from './webhooks';

const firing = { id: 'f', message: 'm', ruleName: 'r', test: true } as AlertFiring;
let server: Server;
let port: number;
let connections = 0;
let requests = 0;

beforeAll(async () => {
	server = createServer((_req, res) => {
		requests++;
		res.writeHead(204).end();
	});
	server.on('connection', () => connections++);
	await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
	port = (server.address() as AddressInfo).port;
});
afterAll(() => new Promise((r) => server.close(r)));

const hook = (host: string) => ({
	id: 'w',
	name: 'w',
	url: new URL(`http://${host}:${port}/hook`).href,
	format: 'json' as const,
	paused: false
});

/** Loopback written every way the URL parser, getaddrinfo or an attacker might. */
const LOOPBACK_HOSTS = [
	'127.0.0.1',
	'127.1',
	'2130706433',
	'0x7f000001',
	'0177.0.0.1',
	'0x7f.1',
	'127.0.0.1.',
	'localhost',
	'[::1]',
	'[::ffff:127.0.0.1]',
	'[::ffff:7f00:1]'
];

describe('webhook targets', () => {
	it('refuses loopback in every notation without the allowlist: no connection is made', async () => {
		const sender = new WebhookSender({ maxAttempts: 1 });
		for (const host of LOOPBACK_HOSTS) {
			const before = connections;
			expect(await sender.send(hook(host), firing), host).toBe(false);
			expect(sender.healthOf('w').lastError, host).toBe('blocked address');
			expect(connections, host).toBe(before);
		}
		expect(requests).toBe(0);
	});

	it('reaches the same receiver once 127.0.0.1 is allowed, by range or by name', async () => {
		const byRange = new WebhookSender({ maxAttempts: 1, allow: parseAllowList('127.0.0.0/8') });
		expect(await byRange.send(hook('127.1'), firing)).toBe(true);
		const byName = new WebhookSender({ maxAttempts: 1, allow: parseAllowList('localhost') });
		expect(await byName.send(hook('localhost'), firing)).toBe(true);
		// Allowing a name does not allow the address under another name.
		expect(await byName.send(hook('127.0.0.1'), firing)).toBe(false);
		expect(byName.healthOf('w').lastError).toBe('blocked address');
	});

	it('connects to the address it checked: a name the system cannot resolve is never looked up again', async () => {
		let lookups = 0;
		const sender = new WebhookSender({
			maxAttempts: 1,
			allow: parseAllowList('127.0.0.1'),
			resolve: async () => {
				lookups++;
				return [{ address: '127.0.0.1', family: 4 }];
			}
		});
		const before = requests;
		expect(await sender.send(hook('receiver.invalid'), firing)).toBe(true);
		expect(lookups).toBe(1);
		expect(requests).toBe(before + 1);
	});

	it("one blocked address among a name's answers blocks it (the OS may pick any)", async () => {
		const sender = new WebhookSender({
			maxAttempts: 1,
			resolve: async () => [
				{ address: '93.184.215.14', family: 4 },
				{ address: '169.254.169.254', family: 4 }
			]
		});
		expect(await sender.check('http://metadata.invalid/latest')).toBe('blocked address');
	});
});

describe('saving a webhook', () => {
	let dir: string;
	beforeAll(() => {
		dir = mkdtempSync(join(tmpdir(), 'gexdeck-hooks-'));
	});
	afterAll(async () => {
		await db?.close();
		rmSync(dir, { recursive: true, force: true });
	});
	let db: Database | undefined;

	it('refuses a loopback URL with a message naming GEXDECK_WEBHOOK_ALLOW; allowed, it saves', async () => {
		db = await openDatabase({ dataDir: dir });
		const service = await new AlertService({
			db,
			feeds: new FeedHolder({
				tap: new UpdateTap(),
				account: async () => ({ streams: false })
			}).client('alerts'),
			watch: false
		}).start();
		const r = await service.saveWebhook({ url: `http://0x7f000001:${port}/` });
		expect(r.ok).toBe(false);
		expect(!r.ok && r.error).toMatch(/GEXDECK_WEBHOOK_ALLOW/);
		expect(!r.ok && r.error).not.toContain(String(port));
		expect(service.webhooks()).toEqual([]);
		service.close();
		const allowed = await new AlertService({
			db,
			feeds: new FeedHolder({
				tap: new UpdateTap(),
				account: async () => ({ streams: false })
			}).client('alerts'),
			watch: false,
			sender: { allow: parseAllowList('127.0.0.1') }
		}).start();
		expect((await allowed.saveWebhook({ url: `http://127.1:${port}/` })).ok).toBe(true);
		allowed.close();
	});
});
