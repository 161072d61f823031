import { beforeAll, describe, expect, it } from 'vitest';
import { spxChain } from '../../wire/arbitraries.test-support';
import { encodeFrame, initWireEncoder } from '../../wire/encode';
import type { WorkerToPage } from './messages';
import { RESTARTING_CLOSE_CODE } from '../../relay/protocol';
import { encodeRelayFrame } from '../../relay/relayFrame';
import { StreamWorkerCore, type WorkerSocket } from './workerCore';

class FakeSocket implements WorkerSocket {
	binaryType = 'blob';
	readyState = 0;
	sent: string[] = [];
	onopen: ((ev: unknown) => void) | null = null;
	onmessage: ((ev: { data: unknown }) => void) | null = null;
	onclose: ((ev: { code?: number; reason?: string }) => void) | null = null;
	onerror: ((ev: unknown) => void) | null = null;
	constructor(readonly url: string) {}
	send(data: string) {
		this.sent.push(data);
	}
	close() {
		this.readyState = 3;
	}
	open() {
		this.readyState = 1;
		this.onopen?.({});
	}
	drop(reason: string, code = 1006) {
		this.readyState = 3;
		this.onclose?.({ code, reason });
	}
}

function harness() {
	const posted: { message: WorkerToPage; transfer?: ArrayBuffer[] }[] = [];
	const sockets: FakeSocket[] = [];
	const timers: { fn: () => void; ms: number }[] = [];
	let now = 0;
	const core = new StreamWorkerCore({
		post: (message, transfer) => posted.push({ message, transfer }),
		openSocket: (url) => {
			const s = new FakeSocket(url);
			sockets.push(s);
			return s;
		},
		now: () => now,
		setTimer: (fn, ms) => timers.push({ fn, ms }),
		clearTimer: () => undefined,
		random: () => 0.5,
		wallClock: () => 1_000_000 + now
	});
	return { core, posted, sockets, timers, advance: (ms: number) => (now += ms) };
}

beforeAll(() => initWireEncoder());

describe('StreamWorkerCore', () => {
	it('stamps a batch with the wall clock its first frame arrived and it was posted (tick-to-pixel)', () => {
		const h = harness();
		h.core.handle({ type: 'subscribe', id: 1, groups: ['SPX_classic_gex_full'] });
		const frame = (ts: number) =>
			encodeRelayFrame(
				'SPX_classic_gex_full',
				encodeFrame('gex', { ...spxChain(5), timestamp: ts })
			);
		h.advance(10);
		h.core.onBinary(frame(1));
		h.advance(5);
		h.core.onBinary(frame(2));
		h.advance(2);
		h.core.flush();
		const batch = h.posted.find((p) => p.message.type === 'updates')!.message;
		expect(batch).toMatchObject({ receivedAt: 1_000_010, postedAt: 1_000_017 });
		// The next batch starts its own stamp.
		h.advance(7);
		h.core.onBinary(frame(3));
		h.advance(3);
		h.core.flush();
		expect(h.posted.filter((p) => p.message.type === 'updates')[1].message).toMatchObject({
			receivedAt: 1_000_024,
			postedAt: 1_000_027
		});
	});

	it('decodes frames, coalesces them and posts typed arrays as transferables', () => {
		const h = harness();
		h.core.handle({ type: 'connect', url: 'ws://x/stream' });
		h.core.handle({ type: 'subscribe', id: 1, groups: ['SPX_classic_gex_full'] });
		h.sockets[0].open();
		// The queued subscribe goes out once the socket is open (after the restore).
		expect(h.sockets[0].sent.map((t) => JSON.parse(t) as { type: string; id?: number })).toEqual([
			{ type: 'subscribe', groups: ['SPX_classic_gex_full'] },
			{ type: 'subscribe', id: 1, groups: ['SPX_classic_gex_full'] }
		]);
		const chain = spxChain(400);
		for (const ts of [1, 2, 3]) {
			const frame = encodeRelayFrame(
				'SPX_classic_gex_full',
				encodeFrame('gex', { ...chain, timestamp: ts })
			);
			h.sockets[0].onmessage?.({ data: frame.slice().buffer });
		}
		h.advance(1000);
		h.core.flush();
		const updates = h.posted.filter((p) => p.message.type === 'updates');
		expect(updates).toHaveLength(1);
		const msg = updates[0].message as Extract<WorkerToPage, { type: 'updates' }>;
		expect(msg.updates).toHaveLength(1);
		expect(msg.updates[0]).toMatchObject({ kind: 'gex', timestamp: 3, ticker: 'SPX' });
		expect(updates[0].transfer?.length).toBe(5);
		expect(h.core.stats).toMatchObject({ frames: 3, corrupt: 0, posted: 1, superseded: 2 });
	});

	it('survives corrupt and unknown frames, counting them', () => {
		const h = harness();
		h.core.handle({ type: 'connect', url: 'ws://x/stream' });
		h.sockets[0].open();
		h.core.handle({ type: 'inject', frame: new Uint8Array([1, 0, 3, 65, 66, 67, 9, 9, 9]).buffer });
		h.core.handle({ type: 'inject', frame: new Uint8Array([7, 0, 1, 65]).buffer });
		h.sockets[0].onmessage?.({ data: 'not json' });
		expect(h.core.stats).toMatchObject({ frames: 2, corrupt: 1, unknown: 2 });
		h.core.postStats();
		expect(h.posted.at(-1)?.message).toMatchObject({ type: 'stats', stats: { corrupt: 1 } });
	});

	it('reconnects with backoff and restores the page’s groups', () => {
		const h = harness();
		h.core.handle({ type: 'connect', url: 'ws://x/stream' });
		h.core.handle({
			type: 'subscribe',
			id: 1,
			groups: ['SPX_classic_gex_full', 'SPY_classic_gex_zero']
		});
		h.sockets[0].open();
		h.core.handle({ type: 'unsubscribe', id: 2, groups: ['SPY_classic_gex_zero'] });
		h.sockets[0].drop('network');
		expect(h.posted.at(-1)?.message).toMatchObject({
			type: 'connection',
			state: 'closed',
			detail: 'network'
		});
		expect(h.timers).toHaveLength(1);
		h.timers[0].fn();
		h.sockets[1].open();
		expect(JSON.parse(h.sockets[1].sent[0])).toEqual({
			type: 'subscribe',
			groups: ['SPX_classic_gex_full']
		});
		// A second drop waits longer.
		h.sockets[1].drop('again');
		h.timers[1].fn();
		h.sockets[2].drop('again');
		expect(h.timers[2].ms).toBeGreaterThan(h.timers[1].ms);
	});

	it('reconnects at the shortest delay when the dashboard restarts (close code 1012)', () => {
		const h = harness();
		h.core.handle({ type: 'connect', url: 'ws://x/stream' });
		h.core.handle({ type: 'subscribe', id: 1, groups: ['SPX_classic_gex_full'] });
		h.sockets[0].open();
		// Two failures first, so the backoff has grown.
		h.sockets[0].drop('network');
		h.timers[0].fn();
		h.sockets[1].drop('network');
		h.timers[1].fn();
		h.sockets[2].open();
		h.sockets[2].drop('Dashboard restarting', RESTARTING_CLOSE_CODE);
		expect(h.posted.at(-1)?.message).toMatchObject({
			type: 'connection',
			state: 'closed',
			detail: 'dashboard restarting; reconnecting'
		});
		expect(h.timers[2].ms).toBeLessThanOrEqual(h.timers[0].ms);
		h.timers[2].fn();
		h.sockets[3].open();
		expect(JSON.parse(h.sockets[3].sent[0])).toEqual({
			type: 'subscribe',
			groups: ['SPX_classic_gex_full']
		});
	});

	it('resumes after the last frame sequence it had when it reconnects (cluster mode)', () => {
		const h = harness();
		h.core.handle({ type: 'connect', url: 'ws://x/stream' });
		h.core.handle({ type: 'subscribe', id: 1, groups: ['SPX_classic_gex_full'] });
		h.sockets[0].open();
		const any = new Uint8Array([1, 2, 3]);
		h.sockets[0].onmessage?.({
			data: encodeRelayFrame('SPX_classic_gex_full', any, '17-1').buffer
		});
		h.sockets[0].onmessage?.({ data: encodeRelayFrame('SPX_spot', any, '17-2').buffer });
		// A frame without a sequence (one process) leaves the last one as it was.
		h.sockets[0].onmessage?.({ data: encodeRelayFrame('SPX_spot', any).buffer });
		h.sockets[0].drop('network');
		h.timers[0].fn();
		h.sockets[1].open();
		expect(JSON.parse(h.sockets[1].sent[0])).toEqual({
			type: 'subscribe',
			groups: ['SPX_classic_gex_full'],
			after: '17-2'
		});
		h.sockets[1].onmessage?.({
			data: JSON.stringify({ type: 'gap', at: '20-0', reason: 'slot passed' })
		});
		expect(h.posted.at(-1)?.message).toEqual({
			type: 'relay',
			message: { type: 'gap', at: '20-0', reason: 'slot passed' }
		});
	});

	it('forwards relay control messages to the page', () => {
		const h = harness();
		h.core.handle({ type: 'connect', url: 'ws://x/stream' });
		h.sockets[0].open();
		h.sockets[0].onmessage?.({
			data: JSON.stringify({ type: 'subscribed', id: 4, accepted: ['A'], refused: [] })
		});
		expect(h.posted.at(-1)?.message).toEqual({
			type: 'relay',
			message: { type: 'subscribed', id: 4, accepted: ['A'], refused: [] }
		});
	});
});

describe('StreamWorkerCore timing (tick-to-pixel)', () => {
	const chainFrame = (ts: number) =>
		encodeRelayFrame(
			'SPX_classic_gex_full',
			encodeFrame('gex', { ...spxChain(20), timestamp: ts })
		);

	it('delivers a chain without its spot frame at once: one 0 ms flush, no wait for the spot', () => {
		const h = harness();
		h.core.handle({ type: 'connect', url: 'ws://x/stream' });
		h.core.handle({ type: 'subscribe', id: 1, groups: ['SPX_classic_gex_full'] });
		h.sockets[0].open();
		h.sockets[0].onmessage?.({ data: chainFrame(7).slice().buffer });
		// The frame asked for one flush on a 0 ms timer; running it (no clock advance) posts the chain.
		expect(h.timers.map((t) => t.ms)).toEqual([0]);
		h.timers[0].fn();
		const batches = h.posted.filter((p) => p.message.type === 'updates');
		expect(batches).toHaveLength(1);
		const msg = batches[0].message as Extract<WorkerToPage, { type: 'updates' }>;
		expect(msg.updates).toMatchObject([{ kind: 'gex', timestamp: 7 }]);
		expect('pairedSpot' in msg.updates[0] && msg.updates[0].pairedSpot).toBeFalsy();
	});

	it('batches the frames read before its flush runs into one post, then schedules anew', () => {
		const h = harness();
		h.core.handle({ type: 'subscribe', id: 1, groups: ['SPX_classic_gex_full'] });
		h.core.onBinary(chainFrame(1));
		h.core.onBinary(chainFrame(2));
		expect(h.timers).toHaveLength(1);
		h.timers[0].fn();
		expect(h.posted.filter((p) => p.message.type === 'updates')).toHaveLength(1);
		h.core.onBinary(chainFrame(3));
		expect(h.timers).toHaveLength(2);
		h.timers[1].fn();
		const batches = h.posted.filter((p) => p.message.type === 'updates');
		expect(batches).toHaveLength(2);
		expect(batches[1].message).toMatchObject({ updates: [{ timestamp: 3 }] });
	});
});

describe('StreamWorkerCore recording', () => {
	it('records each posted update before its buffers are transferred', () => {
		const h = harness();
		const recorded: { group: string; strikes: number }[] = [];
		h.core.setRecorder({
			record: (u) =>
				recorded.push({ group: u.group, strikes: u.kind === 'gex' ? u.value.strikes.length : -1 })
		});
		h.core.handle({ type: 'connect', url: 'ws://x/stream' });
		h.core.handle({ type: 'subscribe', id: 1, groups: ['SPX_classic_gex_full'] });
		h.sockets[0].open();
		const frame = encodeRelayFrame('SPX_classic_gex_full', encodeFrame('gex', spxChain(50)));
		h.sockets[0].onmessage?.({ data: frame.slice().buffer });
		h.advance(1000);
		h.core.flush();
		expect(recorded).toEqual([{ group: 'SPX_classic_gex_full', strikes: 50 }]);
	});
});
