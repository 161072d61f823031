import { describe, expect, it } from 'vitest';
import { HubConnection, POLICY_CLOSE, type SocketLike } from './connection';

class FakeSocket implements SocketLike {
	readyState = 1;
	bufferedAmount = 0;
	sent: string[] = [];
	closed: { code?: number; reason?: string } | undefined;
	terminated = false;
	pings = 0;
	send(data: string) {
		this.sent.push(data);
		this.bufferedAmount += data.length;
	}
	close(code?: number, reason?: string) {
		this.closed = { code, reason };
		this.readyState = 2;
	}
	terminate() {
		this.terminated = true;
		this.readyState = 3;
	}
	ping() {
		this.pings++;
	}
}

function connection(socket: FakeSocket, maxBufferedBytes = 1000) {
	const closed: HubConnection[] = [];
	const conn = new HubConnection(socket, {
		connectionId: 'c',
		hub: 'v2_classic',
		account: 'a',
		slotKey: 'a/custom',
		session: 's',
		flow: 'v2',
		maxBufferedBytes,
		onClosed: (c) => closed.push(c)
	});
	return { conn, closed };
}

describe('HubConnection', () => {
	it('closes a consumer whose buffer is over the bound instead of queueing more', () => {
		const socket = new FakeSocket();
		const { conn, closed } = connection(socket, 1000);
		expect(conn.send('x'.repeat(600))).toBe(true);
		expect(conn.send('x'.repeat(600))).toBe(false);
		expect(socket.sent).toHaveLength(1);
		expect(socket.closed?.code).toBe(POLICY_CLOSE);
		expect(socket.closed?.reason).toMatch(/not reading fast enough/);
		expect(closed).toEqual([conn]);
		expect(conn.send('y')).toBe(false);
	});

	it('tells the client why before closing when there is room', () => {
		const socket = new FakeSocket();
		const { conn, closed } = connection(socket);
		conn.close('Websocket Session Limit Reached');
		expect(JSON.parse(socket.sent[0])).toEqual({
			type: 'system',
			event: 'disconnected',
			message: 'Websocket Session Limit Reached'
		});
		expect(socket.closed?.reason).toBe('Websocket Session Limit Reached');
		conn.released();
		expect(closed).toHaveLength(1);
	});

	it('pings on each heartbeat and cuts a peer that never answered', () => {
		const socket = new FakeSocket();
		const { conn, closed } = connection(socket);
		conn.heartbeat();
		expect(socket.pings).toBe(1);
		conn.markAlive();
		conn.heartbeat();
		expect(socket.pings).toBe(2);
		conn.heartbeat();
		expect(socket.terminated).toBe(true);
		expect(closed).toHaveLength(1);
	});
});
