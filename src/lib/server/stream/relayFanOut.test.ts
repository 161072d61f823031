import { describe, expect, it } from 'vitest';
import { parseRelayFrame } from '../../relay/relayFrame';
import { UpdateTap, type ReceivedUpdate } from '../updates/tap';
import { SubscriptionBook } from './book';
import { RelayFanOut } from './relayFanOut';
import { newRelayCounters } from './relayOptions';
import { Viewer, type ViewerSocket } from './viewer';

/** A socket that writes each frame it is sent into the shared event log. */
function socket(log: string[]): ViewerSocket {
	return {
		readyState: 1,
		bufferedAmount: 0,
		send(data) {
			const parsed = parseRelayFrame(data as Uint8Array);
			log.push(`viewer ${parsed.ok ? parsed.frame.group : '?'}`);
		},
		close() {}
	};
}

function setup() {
	const log: string[] = [];
	const book = new SubscriptionBook<Viewer>();
	const viewer = new Viewer(1, socket(log), 't');
	book.add(viewer, ['SPX_classic_gex_full', 'NDX_classic_gex_full']);
	const tap = new UpdateTap();
	const published: ReceivedUpdate[] = [];
	tap.subscribe((u) => {
		published.push(u);
		log.push(`tap ${u.source === 'stream' ? u.group : '?'}`);
	});
	const fanOut = new RelayFanOut(book, newRelayCounters(), tap);
	return { log, fanOut, published };
}

const any = (n: number) => Buffer.from([n, n, n]);

describe('RelayFanOut', () => {
	it('relays a burst to its viewers before any of it reaches the tap (tick-to-pixel)', async () => {
		const { log, fanOut, published } = setup();
		fanOut.onGroupData('SPX_classic_gex_full', any(1));
		fanOut.onGroupData('NDX_classic_gex_full', any(2));
		fanOut.onGroupData('QQQ_classic_gex_full', any(3)); // no viewer: recorded all the same
		expect(log).toEqual(['viewer SPX_classic_gex_full', 'viewer NDX_classic_gex_full']);
		await new Promise((r) => setImmediate(r));
		expect(log.slice(2)).toEqual([
			'tap SPX_classic_gex_full',
			'tap NDX_classic_gex_full',
			'tap QQQ_classic_gex_full'
		]);
		// The tap gets the bytes as they came, stamped with their arrival.
		expect(published.map((u) => u.source === 'stream' && [...u.any])).toEqual([
			[1, 1, 1],
			[2, 2, 2],
			[3, 3, 3]
		]);
		for (const u of published) expect(Math.abs(u.receivedAt - Date.now())).toBeLessThan(5_000);
	});

	it('publishes what is queued at once on drainTap (the relay closing), and only once', async () => {
		const { fanOut, published } = setup();
		fanOut.onGroupData('SPX_classic_gex_full', any(1));
		fanOut.drainTap();
		expect(published).toHaveLength(1);
		await new Promise((r) => setImmediate(r));
		expect(published).toHaveLength(1);
	});
});
