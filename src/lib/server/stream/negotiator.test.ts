/** Negotiation never follows a redirect: the key's POST must not travel to another host. */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NegotiationError, Negotiator } from './negotiator';

let upstream: Server;
let elsewhere: Server;
const hits: string[] = [];

beforeAll(async () => {
	elsewhere = createServer((req, res) => {
		hits.push(`elsewhere ${req.method} ${req.headers.authorization}`);
		res.setHeader('content-type', 'application/json');
		res.end('{"websocket_urls":{}}');
	});
	await new Promise<void>((r) => elsewhere.listen(0, '127.0.0.1', r));
	const to = `http://127.0.0.1:${(elsewhere.address() as AddressInfo).port}/v2/negotiate`;
	upstream = createServer((req, res) => {
		hits.push(`upstream ${req.method}`);
		res.writeHead(307, { location: to }).end();
	});
	await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', r));
});

afterAll(async () => {
	await new Promise((r) => upstream.close(r));
	await new Promise((r) => elsewhere.close(r));
});

describe('Negotiator', () => {
	it('refuses a redirect instead of following it with the key', async () => {
		const n = new Negotiator({
			baseUrl: `http://127.0.0.1:${(upstream.address() as AddressInfo).port}/v2`,
			key: `gexbot_custom_${'K'.repeat(43)}`,
			userAgent: 'gexdeck/test'
		});
		await expect(n.post(['blue_v2_classic_SPX_gex_full'])).rejects.toBeInstanceOf(NegotiationError);
		expect(hits).toEqual(['upstream POST']);
	});
});
