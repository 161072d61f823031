/**
 * A hub that greets and then drops every connection at once (a flapping upstream): the relay
 * keeps reconnecting with its still-valid URL at growing delays and never POSTs again, since a
 * POST would kick the slot.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { WebSocketServer } from 'ws';
import { StreamRelay } from '../../src/lib/server/stream';

let upstream: Server;
let wss: WebSocketServer;
let base: string;
const requests: string[] = [];
const connectTimes: number[] = [];
/** Whether hub connections are dropped right after the greeting. */
let flap = true;

beforeAll(async () => {
	wss = new WebSocketServer({ noServer: true, handleProtocols: () => 'json.webpubsub.azure.v1' });
	upstream = createServer((req, res) => {
		requests.push(`${req.method} ${req.url}`);
		req.resume();
		if (req.method === 'PATCH') {
			res.writeHead(200, { 'Content-Type': 'application/json' });
			return void res.end(JSON.stringify({ updated_groups: 2, hubs: { v2_classic: 2 } }));
		}
		const origin = `ws://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
		res.writeHead(200, { 'Content-Type': 'application/json' });
		res.end(
			JSON.stringify({
				websocket_urls: { v2_classic: `${origin}/client/hubs/v2_classic?access_token=t` }
			})
		);
	});
	upstream.on('upgrade', (req, socket, head) =>
		wss.handleUpgrade(req, socket, head, (ws) => {
			connectTimes.push(performance.now());
			ws.send(
				JSON.stringify({ type: 'system', event: 'connected', userId: null, connectionId: 'c' })
			);
			if (flap) setTimeout(() => ws.close(1011, 'Internal error'), 5);
		})
	);
	await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', r));
	base = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}/v2`;
});

afterAll(() => {
	wss.close();
	upstream.close();
});

it('reconnects a flapping hub at growing delays without a second POST', async () => {
	const relay = new StreamRelay({
		baseUrl: base,
		key: 'gexbot_custom_' + 'k'.repeat(43),
		userAgent: 'gexdeck/test',
		backoff: { baseMs: 20, maxMs: 10_000 },
		random: () => 0.5
	});
	// The delays the relay schedules, as it tells its viewers ("retrying in N ms").
	const delays: number[] = [];
	const viewer = relay.connect(
		{
			readyState: 1,
			bufferedAmount: 0,
			send: (data: unknown) => {
				if (typeof data !== 'string') return;
				const m = JSON.parse(data) as { type?: string; reason?: string };
				const ms = m.type === 'status' ? /retrying in (\d+) ms/.exec(m.reason ?? '')?.[1] : null;
				if (ms) delays.push(Number(ms));
			},
			close: () => undefined
		},
		'test'
	);
	relay.subscribe(viewer, ['SPX_classic_gex_full']);
	while (connectTimes.length < 6) await new Promise((r) => setTimeout(r, 20));
	await relay.close();
	expect(requests).toEqual(['POST /v2/negotiate']);
	// Each drop doubles the delay (random 0.5: 3/4 of 20, 40, 80, ... ms), never resetting
	// between a quick connect and the next drop. Asserted on the scheduled delays, since the
	// gaps between connections on a loaded machine add scheduling noise of tens of ms.
	expect(delays.slice(0, 5)).toEqual([15, 30, 60, 120, 240]);
	// And the reconnections really waited: each gap at least its scheduled delay.
	const gaps = connectTimes.slice(1).map((t, i) => t - connectTimes[i]);
	for (let i = 0; i < 4; i++) expect(gaps[i]).toBeGreaterThanOrEqual(delays[i] - 2);
	expect(relay.counters.hubDrops).toBeGreaterThanOrEqual(5);
});

it('groups on a hub the key gets no URL for are refused, not renegotiated', async () => {
	flap = false;
	requests.length = 0;
	const relay = new StreamRelay({
		baseUrl: base,
		key: 'gexbot_custom_' + 'k'.repeat(43),
		userAgent: 'gexdeck/test'
	});
	const sent: string[] = [];
	const viewer = relay.connect(
		{
			readyState: 1,
			bufferedAmount: 0,
			send: (d) => void (typeof d === 'string' && sent.push(d)),
			close: () => undefined
		},
		'test'
	);
	relay.subscribe(viewer, ['SPX_classic_gex_full', 'SPX_orderflow_orderflow']);
	await relay.settled();
	expect(requests).toEqual(['POST /v2/negotiate', 'PATCH /v2/negotiate']);
	expect(relay.state).toBe('live');
	expect(relay.status(viewer).groups).toEqual(['SPX_classic_gex_full', 'SPX_spot']);
	const revoked = sent
		.map((t) => JSON.parse(t) as { type: string })
		.find((m) => m.type === 'revoked');
	expect(revoked).toMatchObject({
		refused: [
			{
				group: 'SPX_orderflow_orderflow',
				reason: expect.stringMatching(/no access to hub v2_orderflow/)
			}
		]
	});
	await relay.close();
});
