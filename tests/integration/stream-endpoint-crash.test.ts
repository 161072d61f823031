/**
 * The dashboard's /stream endpoint survives hostile upgrades: cross-origin, unauthorised, other
 * paths, targets that do not parse, handshakes cut halfway and garbage after the handshake, each
 * followed by a TCP reset, once at once and once after the answer began. An unhandled socket
 * error would be an uncaught exception here (vitest fails the run on one); afterwards a viewer
 * still connects and gets its status.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
	attachStreamEndpoint,
	StreamRelay,
	type StreamEndpoint
} from '../../src/lib/server/stream';
import { sendThenReset } from './service-support';
import { StreamViewer } from './stream-relay.viewer';

let server: Server;
let endpoint: StreamEndpoint;
let relay: StreamRelay;
let port = 0;

beforeAll(async () => {
	relay = new StreamRelay({
		baseUrl: 'http://127.0.0.1:9/v2',
		key: 'gexbot_custom_' + 'e'.repeat(43),
		userAgent: 'gexdeck/test'
	});
	server = createServer((_q, s) => s.writeHead(404).end());
	endpoint = attachStreamEndpoint(server, relay, (req) =>
		req.headers.cookie === 'ok=1' ? true : { status: 401, message: 'Log in first.' }
	);
	await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
	port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
	endpoint.close();
	await relay.close();
	server.close();
});

const attack = (bytes: string, waitMs: number) => sendThenReset(port, bytes, waitMs);

function upgrade(path: string, headers: Record<string, string> = {}): string {
	const lines = [
		`GET ${path} HTTP/1.1`,
		`Host: 127.0.0.1:${port}`,
		'Connection: Upgrade',
		'Upgrade: websocket',
		'Sec-WebSocket-Version: 13',
		'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ=='
	];
	for (const [k, v] of Object.entries({ Cookie: 'ok=1', ...headers })) lines.push(`${k}: ${v}`);
	return lines.join('\r\n') + '\r\n\r\n';
}

it('hostile upgrades followed by a TCP reset leave the endpoint answering', async () => {
	const cases: [string, RegExp | undefined][] = [
		[upgrade('/stream', { Origin: 'http://evil.example' }), /^HTTP\/1\.1 403/],
		[upgrade('/stream', { Cookie: 'no' }), /^HTTP\/1\.1 401/],
		[upgrade('/elsewhere'), /^HTTP\/1\.1 404/],
		[upgrade('http://[::1/stream'), /^HTTP\/1\.1 404/],
		[upgrade('/stream', { Origin: '%' }), /^HTTP\/1\.1 403/],
		[upgrade('/stream', { 'Sec-WebSocket-Key': 'x' }), undefined],
		[upgrade('/stream'), /^HTTP\/1\.1 101/],
		[upgrade('/stream') + '\xff\xff\xff\xff\xff\xff\xff\xff', undefined],
		[upgrade('/stream').slice(0, 60), undefined]
	];
	for (const [bytes, answer] of cases) {
		await attack(bytes, 0);
		const got = await attack(bytes, 60);
		if (answer) expect(got).toMatch(answer);
	}
	const viewer = await StreamViewer.open(`ws://127.0.0.1:${port}/stream`, { Cookie: 'ok=1' });
	const status = await viewer.status('idle');
	expect(status.type).toBe('status');
	await viewer.close();
});
