import { describe, expect, it } from 'vitest';
import { groupDataText } from '../../lib/contract/pubsub';
import type { TickEvent } from '../source';
import { HubConnection, type SocketLike } from './connection';
import { Fanout } from './fanout';
import { SlotManager } from './slots';

/** A socket that writes what it is sent into the shared event log. */
function socket(name: string, log: string[], bufferedAmount = 0): SocketLike & { sent: string[] } {
	const s = {
		readyState: 1,
		bufferedAmount,
		sent: [] as string[],
		send(data: string) {
			s.sent.push(data);
			log.push(`send ${name} ${(JSON.parse(data) as { group: string }).group}`);
		},
		close() {
			s.readyState = 3;
		},
		terminate() {
			s.readyState = 3;
		},
		ping() {}
	};
	return s;
}

const tick = { timestamp: 100, tickers: new Map() } as TickEvent;

function setup(bufferedOnSecond = 0) {
	const log: string[] = [];
	const slots = new SlotManager();
	const groups = ['SPX_classic_gex_full', 'SPX_spot', 'NDX_classic_gex_full', 'NDX_spot'];
	slots.renew(slots.get('a', 'custom'), 'v2', new Map([['v2_classic', new Set(groups)]]));
	slots.renew(slots.get('b', 'custom'), 'v2', new Map([['v2_classic', new Set(groups)]]));
	const sockets = ['a', 'b'].map((account, i) => {
		const slot = slots.get(account, 'custom');
		const sock = socket(account, log, i === 1 ? bufferedOnSecond : 0);
		const conn = new HubConnection(sock, {
			connectionId: account,
			hub: 'v2_classic',
			account,
			slotKey: slot.key,
			session: slot.session!.id,
			flow: 'v2',
			maxBufferedBytes: 1000,
			onClosed: (c) => slots.detach(c)
		});
		slots.attach(conn);
		return sock;
	});
	const fanout = new Fanout(slots, (group) => {
		log.push(`encode ${group}`);
		return group === 'NDX_spot' ? undefined : Buffer.from(group).toString('base64');
	});
	return { log, sockets, fanout, groups };
}

describe('Fanout', () => {
	it('sends each group as soon as it is encoded, not after the whole tick (tick-to-pixel)', () => {
		const { log, fanout } = setup();
		const stats = fanout.deliver(tick);
		// The first group is on the first member's socket before the second group is encoded.
		expect(log.indexOf('send a SPX_classic_gex_full')).toBeLessThan(log.indexOf('encode SPX_spot'));
		expect(log.slice(0, 4)).toEqual([
			'encode SPX_classic_gex_full',
			'send a SPX_classic_gex_full',
			'encode SPX_spot',
			'send a SPX_spot'
		]);
		// Each group encoded once, whoever holds it; a group without a frame this tick is skipped.
		expect(log.filter((l) => l.startsWith('encode'))).toHaveLength(4);
		expect(stats).toMatchObject({ groupsEncoded: 3, framesSent: 6, framesDropped: 0 });
	});

	it('hands every member the same envelopes, in its groups’ order', () => {
		const { sockets, fanout, groups } = setup();
		fanout.deliver(tick);
		const expected = groups
			.filter((g) => g !== 'NDX_spot')
			.map((g) => groupDataText(g, Buffer.from(g).toString('base64')));
		for (const s of sockets) expect(s.sent).toEqual(expected);
	});

	it('counts the frames of a member closed for overflow as dropped, and goes on with the others', () => {
		const { sockets, fanout } = setup(5000);
		const stats = fanout.deliver(tick);
		expect(sockets[0].sent).toHaveLength(3);
		// b was over its buffer bound at its first frame: closed (no notice), the rest dropped.
		expect(sockets[1].sent).toHaveLength(0);
		expect(stats).toMatchObject({ framesSent: 3, framesDropped: 3 });
	});
});
