import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocketServer, type WebSocket } from 'ws';
import type { HubEnd } from './hubSocket';
import { ResumableHub } from './resumable';

const RELIABLE = 'json.reliable.webpubsub.azure.v1';
const servers: WebSocketServer[] = [];
afterEach(() => {
	for (const s of servers.splice(0)) s.close();
});

/**
 * A scripted reliable hub: numbers its messages, records acks, lets the test drop the socket, and
 * on a recovery resends from a chosen sequenceId (overlapping what the client had: duplicates).
 */
async function reliableHub(options: { refuseRecovery?: boolean; protocol?: string } = {}) {
	const wss = new WebSocketServer({
		port: 0,
		host: '127.0.0.1',
		handleProtocols: (p) =>
			options.protocol ? options.protocol : p.has(RELIABLE) ? RELIABLE : false
	});
	servers.push(wss);
	await new Promise<void>((r) => wss.once('listening', r));
	const state = {
		acks: [] as number[],
		recoveries: [] as URLSearchParams[],
		socket: undefined as WebSocket | undefined,
		send(seq: number) {
			state.socket!.send(
				JSON.stringify({
					type: 'message',
					from: 'group',
					group: 'SPX_spot',
					dataType: 'protobuf',
					data: Buffer.from([seq]).toString('base64'),
					sequenceId: seq
				})
			);
		}
	};
	const connected = (token: string) =>
		JSON.stringify({
			type: 'system',
			event: 'connected',
			userId: null,
			connectionId: 'c1',
			reconnectionToken: token
		});
	wss.on('connection', (ws, req) => {
		const params = new URL(req.url!, 'http://x').searchParams;
		ws.on('message', (d) => {
			const m = JSON.parse(String(d)) as { type: string; sequenceId: number };
			if (m.type === 'sequenceAck') state.acks.push(m.sequenceId);
		});
		if (params.has('awps_connection_id')) {
			state.recoveries.push(params);
			if (options.refuseRecovery) {
				ws.close(1008, 'Connection cannot be recovered: negotiate again.');
				return;
			}
			state.socket = ws;
			ws.send(connected('t2'));
			return;
		}
		state.socket = ws;
		ws.send(connected('t1'));
	});
	return {
		url: `ws://127.0.0.1:${(wss.address() as AddressInfo).port}/client/hubs/v2_classic?access_token=a`,
		state
	};
}

async function until(cond: () => boolean, ms = 3000): Promise<void> {
	const deadline = Date.now() + ms;
	while (!cond()) {
		if (Date.now() > deadline) throw new Error('timed out');
		await new Promise((r) => setTimeout(r, 10));
	}
}

function hub(url: string) {
	const seen: number[] = [];
	const ends: HubEnd[] = [];
	const h = new ResumableHub(
		'v2_classic',
		url,
		{ onGroupData: (_g, any) => seen.push(any[0]), onEnd: (e) => ends.push(e) },
		{ userAgent: 'test/1', ackIntervalMs: 50, retryDelayMs: 20, recoveryWindowMs: 2000 }
	);
	return { h, seen, ends };
}

describe('ResumableHub', () => {
	it('acks, recovers with its id and token after a drop, and skips resent duplicates', async () => {
		const { url, state } = await reliableHub();
		const { h, seen, ends } = hub(url);
		await h.ready;
		expect(h.reliable).toBe(true);
		for (const n of [1, 2, 3]) state.send(n);
		await until(() => state.acks.at(-1) === 3);
		state.socket!.terminate();
		await until(() => state.recoveries.length === 1 && h.resumes === 1);
		expect(state.recoveries[0].get('awps_connection_id')).toBe('c1');
		expect(state.recoveries[0].get('awps_reconnection_token')).toBe('t1');
		expect(state.recoveries[0].get('access_token')).toBe('a');
		// The service resends from 2: 2 and 3 arrived before the drop.
		for (const n of [2, 3, 4, 5]) state.send(n);
		await until(() => seen.length === 5);
		expect(seen).toEqual([1, 2, 3, 4, 5]);
		expect(h.duplicates).toBe(2);
		expect(h.isOpen).toBe(true);
		expect(ends).toEqual([]);
		await until(() => state.acks.at(-1) === 5);
		h.close();
	});

	it('a refused recovery (1008) ends the hub once, with the reason of the drop', async () => {
		const { url, state } = await reliableHub({ refuseRecovery: true });
		const { h, ends } = hub(url);
		await h.ready;
		state.socket!.close(1011, 'Internal server error');
		await until(() => ends.length === 1);
		expect(ends[0]).toMatchObject({ wasOpen: true, code: 1011 });
		expect(ends[0].reason).toContain('Internal server error');
		expect(h.isOpen).toBe(false);
		await new Promise((r) => setTimeout(r, 100));
		expect(ends).toHaveLength(1);
		expect(state.recoveries).toHaveLength(1);
	});

	it('on the plain protocol a drop ends the hub at once (no recovery)', async () => {
		const { url, state } = await reliableHub({ protocol: 'json.webpubsub.azure.v1' });
		const { h, ends } = hub(url);
		await h.ready;
		expect(h.reliable).toBe(false);
		state.socket!.terminate();
		await until(() => ends.length === 1);
		expect(state.recoveries).toHaveLength(0);
	});
});
