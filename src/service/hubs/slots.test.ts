import { describe, expect, it } from 'vitest';
import { HubConnection, type SocketLike } from './connection';
import { SlotManager } from './slots';

function socket(): SocketLike & { sent: string[]; closedWith?: string } {
	const s = {
		readyState: 1,
		bufferedAmount: 0,
		sent: [] as string[],
		closedWith: undefined as string | undefined,
		send(data: string) {
			s.sent.push(data);
		},
		close(_code?: number, reason?: string) {
			s.closedWith = reason;
			s.readyState = 3;
		},
		terminate() {
			s.readyState = 3;
		},
		ping() {}
	};
	return s;
}

function connect(slots: SlotManager, account: string, kind: 'custom' | 'platform', hub: string) {
	const slot = slots.get(account, kind);
	const sock = socket();
	const conn = new HubConnection(sock, {
		connectionId: `${account}-${hub}`,
		hub,
		account,
		slotKey: slot.key,
		session: slot.session!.id,
		flow: slot.session!.flow,
		onClosed: (c) => slots.detach(c)
	});
	return { conn, sock, attached: slots.attach(conn) };
}

describe('SlotManager', () => {
	it('renewing a slot kicks its connections on every hub, not the other slot', () => {
		const slots = new SlotManager();
		slots.renew(slots.get('a', 'custom'), 'v2', new Map([['v2_classic', new Set(['SPX_spot'])]]));
		slots.renew(slots.get('a', 'platform'), 'v2');
		const c1 = connect(slots, 'a', 'custom', 'v2_classic');
		const c2 = connect(slots, 'a', 'custom', 'v2_orderflow');
		const p1 = connect(slots, 'a', 'platform', 'v2_classic');
		expect([c1.attached, c2.attached, p1.attached]).toEqual([true, true, true]);
		expect(slots.get('a', 'custom').liveHubs()).toEqual(new Set(['v2_classic', 'v2_orderflow']));

		const old = slots.get('a', 'custom').session!.id;
		const next = slots.renew(slots.get('a', 'custom'), 'v2');
		expect(next.id).not.toBe(old);
		for (const c of [c1, c2]) {
			expect(c.sock.closedWith).toBe('Websocket Session Limit Reached');
			expect(JSON.parse(c.sock.sent[0]).message).toBe('Websocket Session Limit Reached');
		}
		expect(p1.sock.closedWith).toBeUndefined();
		expect(slots.get('a', 'custom').connections.size).toBe(0);
		expect(slots.get('a', 'custom').memberships.size).toBe(0);
	});

	it('refuses to attach a connection of a superseded session', () => {
		const slots = new SlotManager();
		slots.renew(slots.get('a', 'custom'), 'v2');
		const slot = slots.get('a', 'custom');
		const stale = new HubConnection(socket(), {
			connectionId: 'x',
			hub: 'v2_classic',
			account: 'a',
			slotKey: slot.key,
			session: 'not-the-current-one',
			flow: 'v2'
		});
		expect(slots.attach(stale)).toBe(false);
	});

	it('legacy sessions get a lower-case prefix and count joins per connection', () => {
		const slots = new SlotManager();
		const session = slots.renew(slots.get('b', 'custom'), 'legacy');
		expect(session.prefix).toMatch(/^[a-z]{8}$/);
		const { conn } = connect(slots, 'b', 'custom', 'classic');
		conn.joined.add(`${session.prefix}_SPX_classic_gex_full`);
		conn.joined.add(`${session.prefix}_SPX_spot`);
		expect(slots.get('b', 'custom').membershipCount()).toBe(2);
	});
});
