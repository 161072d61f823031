/**
 * The relay's fan-out writes each frame to its viewers at once and hands it to the update tap
 * only after the turn (tick-to-pixel, issue 26): a tick's burst of frames is on the viewers'
 * sockets before any of them is recorded, and the tap still gets every frame, in arrival order,
 * before the event loop reads anything else.
 */
import { describe, expect, it } from 'vitest';
import { SubscriptionBook } from './book';
import { RelayFanOut } from './relayFanOut';
import { newRelayCounters } from './relayOptions';
import { Viewer, type ViewerSocket } from './viewer';
import { UpdateTap, type ReceivedUpdate } from '../updates/tap';
import { parseRelayFrame } from '../../relay/relayFrame';

const GROUPS = ['AAPL_classic_gex_full', 'QQQ_classic_gex_full', 'SPX_classic_gex_full'];
const bytesOf = (i: number) => Buffer.from([0x0a, 0x01, i]);

function setup() {
	const events: string[] = [];
	const socket: ViewerSocket = {
		readyState: 1,
		bufferedAmount: 0,
		send(data) {
			const parsed = parseRelayFrame(data as Uint8Array);
			events.push(`send ${parsed.ok ? parsed.frame.group : '?'}`);
		},
		close() {}
	};
	const viewer = new Viewer(1, socket, 'test');
	const book = new SubscriptionBook<Viewer>();
	book.add(viewer, GROUPS);
	const tap = new UpdateTap();
	const tapped: ReceivedUpdate[] = [];
	tap.subscribe((u) => {
		tapped.push(u);
		events.push(`tap ${u.source === 'stream' ? u.group : '?'}`);
	});
	const fanOut = new RelayFanOut(book, newRelayCounters(), tap);
	return { events, tapped, fanOut };
}

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('RelayFanOut', () => {
	it("sends a burst's frames to the viewers before the tap's listeners run", async () => {
		const { events, tapped, fanOut } = setup();
		GROUPS.forEach((g, i) => fanOut.onGroupData(g, bytesOf(i)));
		// Every frame is on the viewer's socket at once; nothing has been recorded yet.
		expect(events).toEqual(GROUPS.map((g) => `send ${g}`));
		expect(tapped).toEqual([]);
		await nextTurn();
		expect(events.slice(GROUPS.length)).toEqual(GROUPS.map((g) => `tap ${g}`));
		expect(tapped.map((u) => (u.source === 'stream' ? [...u.any] : []))).toEqual(
			GROUPS.map((_, i) => [...bytesOf(i)])
		);
	});

	it('taps frames no viewer holds, stamped with their arrival', async () => {
		const { tapped, fanOut } = setup();
		const before = Date.now();
		fanOut.onGroupData('TSLA_classic_gex_full', bytesOf(7));
		await nextTurn();
		expect(tapped).toHaveLength(1);
		const u = tapped[0];
		expect(u.source === 'stream' && u.group).toBe('TSLA_classic_gex_full');
		expect(u.receivedAt).toBeGreaterThanOrEqual(before);
		expect(u.receivedAt).toBeLessThanOrEqual(Date.now());
	});

	it('flushTap hands the queued frames over at once, and only once', async () => {
		const { tapped, fanOut } = setup();
		fanOut.onGroupData(GROUPS[0], bytesOf(0));
		fanOut.onGroupData(GROUPS[1], bytesOf(1));
		fanOut.flushTap();
		expect(tapped).toHaveLength(2);
		await nextTurn();
		expect(tapped).toHaveLength(2);
		// A later turn's frames are scheduled again.
		fanOut.onGroupData(GROUPS[2], bytesOf(2));
		await nextTurn();
		expect(tapped).toHaveLength(3);
	});
});
