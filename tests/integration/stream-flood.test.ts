/**
 * /stream under a control-message flood, over real sockets: a viewer that sends status requests
 * without reading its replies is closed, and the server's send buffer for it never grows past
 * the viewer's high-water mark plus one reply (before, every reply was buffered: 101 MB -> 652
 * MB for a million requests). With the default rate limit the flood is cut even sooner (unanswered
 * past the token bucket, closed after CONTROL_OVERRUN_LIMIT more). One client holds at most
 * its share of the viewer slots: the N+1th upgrade gets 503.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import {
	attachStreamEndpoint,
	StreamRelay,
	type StreamEndpoint,
	type StreamEndpointOptions
} from '../../src/lib/server/stream';
import type { ViewerSocket } from '../../src/lib/server/stream/viewer';
import { upgradeStatus } from './dashboard-support';

const HIGH_WATER = 64 * 1024;
let server: Server;
let endpoint: StreamEndpoint;
let relay: StreamRelay;
let port = 0;
/** The server side of every viewer, to read its send buffer. */
const sockets: ViewerSocket[] = [];

async function start(options: StreamEndpointOptions = {}): Promise<void> {
	relay = new StreamRelay({
		baseUrl: 'http://127.0.0.1:9/v2',
		key: 'gexbot_custom_' + 'f'.repeat(43),
		userAgent: 'gexdeck/test',
		viewerHighWater: HIGH_WATER,
		// No upstream: the relay never connects in this test.
		fetch: () => Promise.reject(new Error('offline')),
		backoff: { baseMs: 60_000, maxMs: 60_000 }
	});
	const connect = relay.connect.bind(relay);
	relay.connect = (socket, label) => {
		sockets.push(socket);
		return connect(socket, label);
	};
	server = createServer((_q, s) => s.writeHead(404).end());
	endpoint = attachStreamEndpoint(server, relay, () => true, options);
	await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
	port = (server.address() as AddressInfo).port;
}

afterEach(async () => {
	endpoint?.close();
	await relay?.close();
	await new Promise((r) => server?.close(r));
	sockets.length = 0;
});

/** Opens a viewer, stops reading from it, and sends `n` status requests; resolves on its close. */
async function flood(n: number): Promise<{ closed: boolean; sent: number }> {
	const ws = new WebSocket(`ws://127.0.0.1:${port}/stream`);
	await new Promise<void>((resolve, reject) => {
		ws.once('open', () => resolve());
		ws.once('error', reject);
	});
	(ws as unknown as { _socket: Socket })._socket.pause();
	let closed = false;
	const whenClosed = new Promise<void>((r) =>
		ws.once('close', () => {
			closed = true;
			r();
		})
	);
	ws.on('error', () => undefined);
	let sent = 0;
	const request = JSON.stringify({ type: 'status' });
	for (; sent < n && !closed; sent++) {
		ws.send(request);
		// Let the server read and answer between batches.
		if (sent % 500 === 499) await new Promise((r) => setTimeout(r, 1));
	}
	await Promise.race([whenClosed, new Promise((r) => setTimeout(r, 10_000))]);
	ws.terminate();
	return { closed, sent };
}

describe('/stream control flood', () => {
	it('a viewer that floods status requests without reading is closed; its buffer stays bounded', async () => {
		// Rate limit off: the high-water mark alone must stop it.
		await start({ controlBurst: 1e9, controlPerSecond: 1e9 });
		let maxBuffered = 0;
		const sample = setInterval(() => {
			for (const s of sockets) maxBuffered = Math.max(maxBuffered, s.bufferedAmount);
		}, 1);
		const r = await flood(200_000);
		clearInterval(sample);
		expect(r.closed).toBe(true);
		expect(sockets).toHaveLength(1);
		// One status reply is well under 4 KB.
		expect(maxBuffered).toBeLessThanOrEqual(HIGH_WATER + 4096);
		expect(relay.viewerCount).toBe(0);
	});

	it('past the rate limit requests go unanswered and a viewer that keeps on is closed', async () => {
		await start({ controlBurst: 5, controlPerSecond: 1 });
		const r = await flood(5_000);
		expect(r.closed).toBe(true);
		expect(relay.viewerCount).toBe(0);
		// A well-behaved viewer still gets its answers.
		const ws = new WebSocket(`ws://127.0.0.1:${port}/stream`);
		const replies: string[] = [];
		ws.on('message', (d) => replies.push(String(d)));
		await new Promise((r) => ws.once('open', r));
		ws.send(JSON.stringify({ type: 'status', id: 7 }));
		while (!replies.some((m) => m.includes('"id":7'))) await new Promise((r) => setTimeout(r, 10));
		ws.close();
	});
});

describe('viewer slots per client', () => {
	it('the N+1th viewer of one client gets 503; another client still gets in', async () => {
		await start({
			maxViewersPerClient: 2,
			clientOf: (req) => String(req.headers['x-client'] ?? 'a')
		});
		const open: WebSocket[] = [];
		for (let i = 0; i < 2; i++) {
			const ws = new WebSocket(`ws://127.0.0.1:${port}/stream`, { headers: { 'x-client': 'a' } });
			await new Promise((r) => ws.once('open', r));
			open.push(ws);
		}
		const third = await upgradeStatus(port, '/stream', { 'x-client': 'a' });
		expect(third.status).toBe(503);
		expect(third.body).toMatch(/one client/);
		expect((await upgradeStatus(port, '/stream', { 'x-client': 'b' })).status).toBe(101);
		// A slot comes back when its viewer leaves.
		open[0].close();
		await new Promise((r) => open[0].once('close', r));
		await new Promise((r) => setTimeout(r, 50));
		expect((await upgradeStatus(port, '/stream', { 'x-client': 'a' })).status).toBe(101);
		for (const ws of open) ws.close();
	});
});
