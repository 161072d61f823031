import { describe, expect, it } from 'vitest';
import { WebSocketServer } from 'ws';
import type { AddressInfo } from 'node:net';
import { HubSocket, type HubEnd } from './hubSocket';

/** A hub that greets, may send frames, and never answers pings (a stalled peer). */
async function stalledHub(onConnection?: (send: (text: string) => void) => void) {
	const wss = new WebSocketServer({
		port: 0,
		host: '127.0.0.1',
		autoPong: false,
		handleProtocols: () => 'json.webpubsub.azure.v1'
	});
	await new Promise<void>((r) => wss.once('listening', r));
	wss.on('connection', (ws) => {
		ws.send(
			JSON.stringify({ type: 'system', event: 'connected', userId: null, connectionId: 'c1' })
		);
		onConnection?.((t) => ws.send(t));
	});
	return {
		url: `ws://127.0.0.1:${(wss.address() as AddressInfo).port}/client/hubs/v2_classic`,
		wss
	};
}

describe('HubSocket', () => {
	it('hands group data over as raw bytes and counts odd frames', async () => {
		const hub = await stalledHub((send) => {
			send(
				JSON.stringify({
					type: 'message',
					from: 'group',
					group: 'SPX_spot',
					dataType: 'protobuf',
					data: 'AQID'
				})
			);
			send('not json');
			send(
				JSON.stringify({
					type: 'system',
					event: 'disconnected',
					message: 'Websocket Session Limit Reached'
				})
			);
		});
		const got: [string, number[]][] = [];
		const ended = new Promise<HubEnd>((resolve) => {
			const s = new HubSocket(
				'v2_classic',
				hub.url,
				{
					onGroupData: (g, any) => got.push([g, [...any]]),
					onEnd: resolve
				},
				{ userAgent: 'gexdeck/test' }
			);
			void s.ready.then(() =>
				setTimeout(() => {
					expect(s.skipped).toBe(1);
					for (const c of hub.wss.clients) c.close(1008, 'Websocket Session Limit Reached');
				}, 50)
			);
		});
		const end = await ended;
		expect(got).toEqual([['SPX_spot', [1, 2, 3]]]);
		expect(end).toMatchObject({ slotTaken: true, wasOpen: true });
		hub.wss.close();
	});

	it('cuts a peer that answers no pings, as a drop (not a slot loss)', async () => {
		const hub = await stalledHub();
		const end = await new Promise<HubEnd>((resolve) => {
			new HubSocket(
				'v2_classic',
				hub.url,
				{ onGroupData: () => undefined, onEnd: resolve },
				{
					userAgent: 'gexdeck/test',
					pingIntervalMs: 40
				}
			);
		});
		expect(end).toMatchObject({ slotTaken: false, wasOpen: true, reason: 'no answer to pings' });
		hub.wss.close();
	});

	it('reports a refused upgrade with its status and the upstream error text', async () => {
		const { createServer } = await import('node:http');
		const server = createServer();
		server.on('upgrade', (_req, socket) => {
			const body = JSON.stringify({ error: 'Access token expired.' });
			socket.end(
				`HTTP/1.1 401 Unauthorized\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`
			);
		});
		await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
		const url = `ws://127.0.0.1:${(server.address() as AddressInfo).port}/client/hubs/v2_classic`;
		const end = await new Promise<HubEnd>((resolve) => {
			new HubSocket(
				'v2_classic',
				url,
				{ onGroupData: () => undefined, onEnd: resolve },
				{ userAgent: 'gexdeck/test' }
			);
		});
		expect(end).toMatchObject({
			refusedStatus: 401,
			reason: 'Access token expired.',
			wasOpen: false
		});
		server.close();
	});
});
