import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { pickSubprotocol } from '../../lib/contract/pubsub';
import { recoveryParams, subprotocolRefusal } from './reliable';
import { FakeSocket, frame, reliable } from './reliable.test-support';

afterEach(() => vi.useRealTimers());

describe('reliable connection', () => {
	it('numbers every data message from 1 and parses as the reliable protocol says', () => {
		const { conn, socket } = reliable();
		for (let i = 0; i < 5; i++) conn.deliver(frame(i));
		expect(socket.sequenceIds()).toEqual([1, 2, 3, 4, 5]);
		const connected = JSON.parse(conn.connectedText());
		expect(connected).toMatchObject({ type: 'system', event: 'connected', connectionId: 'c1' });
		expect(typeof connected.reconnectionToken).toBe('string');
	});

	it('acks release the buffer cumulatively; acks past the last id are clamped', () => {
		const { conn } = reliable();
		for (let i = 0; i < 10; i++) conn.deliver(frame(i));
		expect(conn.heldCount).toBe(10);
		conn.ack(4);
		expect(conn.heldCount).toBe(6);
		conn.ack(2); // stale: nothing changes
		expect(conn.heldCount).toBe(6);
		conn.ack(1000);
		expect(conn.heldCount).toBe(0);
		expect(conn.heldBytes).toBe(0);
		expect(conn.acked).toBe(10);
	});

	it('a drop suspends; a recovery resends exactly what was not acked, in order', () => {
		const { conn, registry, closed } = reliable();
		for (let i = 0; i < 3; i++) conn.deliver(frame(i));
		conn.ack(2);
		(conn as unknown as { socket: FakeSocket }).socket.readyState = 3;
		conn.released();
		expect(conn.isSuspended).toBe(true);
		expect(conn.receiving).toBe(true);
		// The feed keeps coming while the client is away.
		for (let i = 3; i < 6; i++) expect(conn.deliver(frame(i))).toBe(true);
		const token = conn.reconnectionToken;
		const claim = registry.claim('c1', token, 'v2_classic');
		expect(claim.ok).toBe(true);
		const next = new FakeSocket();
		conn.resume(next);
		expect(JSON.parse(next.sent[0])).toMatchObject({ event: 'connected', connectionId: 'c1' });
		expect(next.sequenceIds()).toEqual([3, 4, 5, 6]);
		expect(conn.reconnectionToken).not.toBe(token);
		// The old socket's late close event changes nothing.
		conn.released();
		expect(conn.isOpen).toBe(true);
		expect(closed).toEqual([]);
		conn.deliver(frame(7));
		expect(next.sequenceIds().at(-1)).toBe(7);
	});

	it('refuses recoveries with a wrong token, hub or id', () => {
		const { conn, registry } = reliable();
		expect(registry.claim('c1', 'nope', 'v2_classic').ok).toBe(false);
		expect(registry.claim('c1', conn.reconnectionToken, 'v2_orderflow').ok).toBe(false);
		expect(registry.claim('c2', conn.reconnectionToken, 'v2_classic').ok).toBe(false);
	});

	it('ends after the recovery window and leaves the registry', () => {
		vi.useFakeTimers();
		const { conn, registry, closed, socket } = reliable();
		socket.readyState = 3;
		conn.released();
		vi.advanceTimersByTime(29_000);
		expect(closed).toHaveLength(0);
		vi.advanceTimersByTime(1_001);
		expect(closed).toEqual([conn]);
		expect(registry.size).toBe(0);
		expect(conn.receiving).toBe(false);
	});

	it("the client's own close (1000) ends the connection; a drop (1006) suspends it", () => {
		const a = reliable();
		a.socket.peerClose(1000);
		a.conn.released();
		expect(a.closed).toEqual([a.conn]);
		const b = reliable();
		b.socket.peerClose(1006);
		b.conn.released();
		expect(b.closed).toEqual([]);
		expect(b.conn.isSuspended).toBe(true);
		b.conn.close('shutdown');
	});

	it('a policy close ends the connection at once (no recovery)', () => {
		const { conn, registry, closed } = reliable();
		conn.close('Websocket Session Limit Reached');
		expect(closed).toEqual([conn]);
		expect(registry.size).toBe(0);
	});

	it('bounds the buffer: a live client that never acks keeps streaming, but cannot recover', () => {
		const size = frame(0).length;
		const { conn, registry, socket, closed } = reliable(undefined, {
			maxResendBytes: size * 4
		});
		for (let i = 0; i < 20; i++) conn.deliver(frame(i));
		expect(conn.heldCount).toBe(4);
		expect(conn.heldBytes).toBeLessThanOrEqual(size * 4);
		expect(socket.sequenceIds()).toHaveLength(20);
		expect(conn.resumable).toBe(false);
		expect(registry.claim('c1', conn.reconnectionToken, 'v2_classic')).toMatchObject({
			ok: false,
			reason: expect.stringContaining('dropped')
		});
		// Dropped with a gap: over at once, not after the window.
		socket.readyState = 3;
		conn.released();
		expect(closed).toEqual([conn]);
	});

	it('a dropped client whose buffer overflows is ended at once', () => {
		const size = frame(0).length;
		const { conn, socket, closed } = reliable(undefined, { maxResendBytes: size * 4 });
		conn.deliver(frame(0));
		conn.ack(1);
		socket.readyState = 3;
		conn.released();
		for (let i = 1; i <= 4; i++) conn.deliver(frame(i));
		expect(closed).toHaveLength(0);
		conn.deliver(frame(5));
		expect(closed).toEqual([conn]);
	});

	it('resends gap-free for any interleaving of deliveries, acks, drops and recoveries', () => {
		type Op =
			{ op: 'deliver' } | { op: 'ack' } | { op: 'drop'; arrived: number } | { op: 'recover' };
		let runsWithLoss = 0;
		fc.assert(
			fc.property(
				fc.array(
					fc.oneof(
						{ weight: 4, arbitrary: fc.constant<Op>({ op: 'deliver' }) },
						{ weight: 1, arbitrary: fc.constant<Op>({ op: 'ack' }) },
						// The socket drops with only the first `arrived` of its unread frames
						// delivered: the rest are lost in flight and only a resend brings them.
						{
							weight: 2,
							arbitrary: fc.nat({ max: 2 }).map((arrived): Op => ({ op: 'drop', arrived }))
						},
						{ weight: 1, arbitrary: fc.constant<Op>({ op: 'recover' }) }
					),
					{ minLength: 10, maxLength: 60 }
				),
				(ops) => {
					let socket = new FakeSocket();
					const { conn, closed } = reliable(socket);
					let dropped = false;
					let lost = 0;
					// What the client saw, deduplicated by sequenceId as the SDKs do.
					let lastSeen = 0;
					const seen: number[] = [];
					const read = (limit = Infinity) => {
						const ids = socket.sequenceIds();
						for (const id of ids.slice(0, limit)) {
							if (id > lastSeen) {
								expect(id).toBe(lastSeen + 1);
								lastSeen = id;
								seen.push(id);
							}
						}
						lost += Math.max(0, ids.length - limit);
						socket.sent = [];
					};
					const recover = () => {
						socket = new FakeSocket();
						conn.resume(socket);
						dropped = false;
					};
					for (const o of ops) {
						if (o.op === 'deliver') {
							expect(conn.deliver(frame(conn.sequenceId))).toBe(true);
						} else if (o.op === 'ack') {
							if (dropped) continue;
							read();
							conn.ack(lastSeen);
						} else if (o.op === 'drop') {
							if (dropped) continue;
							read(o.arrived);
							socket.readyState = 3;
							conn.released();
							expect(conn.isSuspended).toBe(true);
							dropped = true;
						} else if (dropped) recover();
					}
					if (dropped) recover();
					read();
					expect(seen).toEqual(Array.from({ length: conn.sequenceId }, (_, i) => i + 1));
					expect(closed).toEqual([]);
					conn.close('shutdown');
					if (lost > 0) runsWithLoss++;
				}
			)
		);
		// Frames really were lost in flight (without that, no resend would be needed).
		expect(runsWithLoss).toBeGreaterThan(50);
	});
});

describe('subprotocol negotiation', () => {
	it('picks the first supported protocol of the offer and names the supported ones', () => {
		expect(pickSubprotocol(['json.reliable.webpubsub.azure.v1'])).toBe(
			'json.reliable.webpubsub.azure.v1'
		);
		expect(pickSubprotocol(['protobuf.webpubsub.azure.v1', 'json.webpubsub.azure.v1'])).toBe(
			'json.webpubsub.azure.v1'
		);
		expect(pickSubprotocol(['protobuf.webpubsub.azure.v1'])).toBeUndefined();
		expect(subprotocolRefusal(['protobuf.webpubsub.azure.v1'])).toBe(
			'Subprotocol protobuf.webpubsub.azure.v1 is not supported: use one of json.webpubsub.azure.v1, json.reliable.webpubsub.azure.v1.'
		);
		expect(subprotocolRefusal([''])).toMatch(/^No subprotocol was requested: use one of/);
	});

	it('reads recovery parameters only when both are present', () => {
		const u = new URL('ws://h/client/hubs/v2_classic?access_token=t');
		expect(recoveryParams(u)).toBeUndefined();
		u.searchParams.set('awps_connection_id', 'c');
		expect(recoveryParams(u)).toBeUndefined();
		u.searchParams.set('awps_reconnection_token', 'r');
		expect(recoveryParams(u)).toEqual({ connectionId: 'c', token: 'r' });
	});
});
