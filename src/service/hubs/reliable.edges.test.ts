/**
 * The reliable protocol's connection at its edges (what `npm run mutate` found untested): the
 * default recovery window, close events of a socket a recovery replaced, the old socket cut on
 * a recovery, what a finished connection still accepts, and the recovery refusals' words.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { subprotocolRefusal } from './reliable';
import { FakeSocket, frame, reliable } from './reliable.test-support';

afterEach(() => vi.useRealTimers());

describe('reliable connection edges', () => {
	it('keeps a dropped connection 30 s by default', () => {
		vi.useFakeTimers();
		const { conn, socket, closed, registry } = reliable();
		socket.peerClose(1006);
		conn.released();
		vi.advanceTimersByTime(29_999);
		expect(conn.isSuspended).toBe(true);
		vi.advanceTimersByTime(1);
		expect(closed).toEqual([conn]);
		expect(conn.isSuspended).toBe(false);
		expect(registry.size).toBe(0);
		// Over: nothing more is taken or held.
		expect(conn.deliver(frame(0))).toBe(false);
		expect(conn.heldCount).toBe(0);
		expect(conn.heldBytes).toBe(0);
	});

	it("a recovery cuts the old socket if still open; the old socket's close frame changes nothing", () => {
		const { conn, registry, socket, closed } = reliable();
		conn.deliver(frame(0));
		// The client noticed the drop first: our side of the old socket still looks open.
		const next = new FakeSocket();
		expect(registry.claim('c1', conn.reconnectionToken, 'v2_classic').ok).toBe(true);
		conn.resume(next);
		expect(socket.terminated).toBe(true);
		expect(conn.resumes).toBe(1);
		socket.peerClose(1000);
		conn.released();
		expect(conn.isOpen).toBe(true);
		// The new socket drops without a close frame: a drop to recover from, not a goodbye.
		next.peerClose(1006);
		conn.released();
		expect(conn.isSuspended).toBe(true);
		expect(closed).toEqual([]);
		// Resuming onto the same socket object cuts nothing.
		const again = new FakeSocket();
		conn.resume(again);
		conn.resume(again);
		expect(again.terminated).toBe(false);
		conn.close('shutdown');
	});

	it("the client's close frame ends it; a policy close of a live one tells the client why", () => {
		const a = reliable();
		a.socket.peerClose(1000);
		a.conn.released();
		expect(a.closed).toEqual([a.conn]);
		const b = reliable();
		b.conn.close('Websocket Session Limit Reached');
		expect(b.socket.readyState).toBe(3);
		expect(b.socket.sent.map((t) => JSON.parse(t))).toEqual([
			expect.objectContaining({ type: 'system', event: 'disconnected' })
		]);
		expect(b.closed).toEqual([b.conn]);
	});

	it('a recovered connection counts as alive for the next heartbeat', () => {
		const { conn, socket } = reliable();
		socket.peerClose(1006);
		conn.released();
		const next = new FakeSocket();
		conn.resume(next);
		conn.heartbeat();
		expect(next.terminated).toBe(false);
		conn.heartbeat(); // no pong since: cut
		expect(next.terminated).toBe(true);
	});

	it('a policy close of a dropped connection ends it at once', () => {
		const { conn, socket, registry, closed } = reliable();
		socket.peerClose(1006);
		conn.released();
		conn.close('Websocket Session Limit Reached');
		expect(closed).toEqual([conn]);
		expect(registry.size).toBe(0);
		conn.released();
		expect(closed).toEqual([conn]);
	});

	it('a stale ack leaves the connection resumable', () => {
		const { conn, socket, registry } = reliable();
		for (let i = 0; i < 5; i++) conn.deliver(frame(i));
		conn.ack(4);
		conn.ack(2);
		expect(conn.acked).toBe(4);
		socket.peerClose(1006);
		conn.released();
		expect(conn.isSuspended).toBe(true);
		expect(registry.claim('c1', conn.reconnectionToken, 'v2_classic').ok).toBe(true);
		conn.close('shutdown');
	});

	it('always keeps the newest message, even one larger than the bound', () => {
		const { conn } = reliable(undefined, { maxResendBytes: 10 });
		conn.deliver(frame(0));
		expect(conn.heldCount).toBe(1);
		conn.deliver(frame(1));
		expect(conn.heldCount).toBe(1);
	});

	it('a dropped connection whose buffer overflows refuses further messages', () => {
		const size = frame(0).length;
		const { conn, socket, closed } = reliable(undefined, { maxResendBytes: size * 2 });
		socket.peerClose(1006);
		conn.released();
		expect(conn.deliver(frame(0))).toBe(true);
		expect(conn.deliver(frame(1))).toBe(true);
		expect(conn.deliver(frame(2))).toBe(false);
		expect(closed).toEqual([conn]);
	});

	it('says why a recovery is refused, and which subprotocols to use', () => {
		const { conn, registry } = reliable();
		expect(registry.claim('c1', 'wrong', 'v2_classic')).toEqual({
			ok: false,
			reason: 'Connection cannot be recovered: negotiate again.'
		});
		expect(subprotocolRefusal(['a', 'b'])).toBe(
			'Subprotocol a, b is not supported: use one of json.webpubsub.azure.v1, json.reliable.webpubsub.azure.v1.'
		);
		expect(subprotocolRefusal([])).toBe(
			'No subprotocol was requested: use one of json.webpubsub.azure.v1, json.reliable.webpubsub.azure.v1.'
		);
		conn.close('shutdown');
	});
});
