/**
 * The feed holder without a network: decide() switches every client between relay viewers and
 * polling at once (an event, no timer); want() holds a feed until it idles out; the relay's
 * membership limit shows as "budget exhausted" on the client past it and frees up when another
 * client lets go; refusals of the proxy read as reasons.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { feedOf } from '../../contract/feeds';
import { StreamRelay } from '../stream/relay';
import { UpdateTap } from '../updates/tap';
import { FeedHolder } from './holder';
import { reasonOfAnswer } from './poller';

const SPX = feedOf('SPX', 'classic', 'gex_full');
const NDX = feedOf('NDX', 'classic', 'gex_full');

let holder: FeedHolder | undefined;
let relay: StreamRelay | undefined;
afterEach(async () => {
	holder?.close();
	await relay?.close();
	holder = relay = undefined;
	vi.useRealTimers();
});

/** A relay with no upstream: negotiation fails and backs off; its book decides alone. */
function offlineRelay(groupLimit = 150): StreamRelay {
	return new StreamRelay({
		baseUrl: 'http://127.0.0.1:9/v2',
		key: 'gexbot_custom_test',
		userAgent: 'gexdeck/test',
		groupLimit,
		fetch: () => Promise.reject(new Error('offline')),
		backoff: { baseMs: 60_000, maxMs: 60_000 }
	});
}

describe('FeedHolder', () => {
	it('re-decides at once when the account changes: relay viewers <-> polling', async () => {
		relay = offlineRelay();
		let streams = true;
		const polls: string[] = [];
		holder = new FeedHolder({
			tap: new UpdateTap(),
			relay,
			poll: async (route) => {
				polls.push(route);
				return { status: 200 };
			},
			account: async () => ({ streams }),
			pollMs: 20
		});
		holder.client('recorder').hold([SPX, NDX]);
		holder.client('alerts').hold([SPX]);
		await holder.decide();
		expect(holder.mode).toBe('stream');
		expect(relay.viewerCount).toBe(2);
		expect(relay.status().usage.used).toBe(4);

		streams = false;
		await holder.decide();
		expect(holder.mode).toBe('poll');
		expect(relay.viewerCount).toBe(0);
		await new Promise((r) => setTimeout(r, 70));
		// Each feed once per tick, whichever clients hold it.
		const ticks = holder.poller!.counters.ticks;
		expect(ticks).toBeGreaterThan(0);
		expect(polls.filter((p) => p === 'SPX/classic/gex_full')).toHaveLength(ticks);
		expect(holder.client('alerts').status().feeds).toEqual([
			{ feed: SPX, group: 'SPX_classic_gex_full', held: true, reason: null }
		]);

		streams = true;
		await holder.decide();
		const n = polls.length;
		await new Promise((r) => setTimeout(r, 70));
		expect(polls.length).toBe(n);
		expect(relay.viewerCount).toBe(2);
	});

	it('a client past the membership limit is told, and gets the feed once another lets go', async () => {
		relay = offlineRelay(2);
		holder = new FeedHolder({
			tap: new UpdateTap(),
			relay,
			account: async () => ({ streams: true })
		});
		await holder.decide();
		const a = holder.client('a');
		const b = holder.client('b');
		a.hold([SPX]);
		b.hold([NDX]);
		expect(b.status().feeds[0]).toMatchObject({ held: false });
		expect(b.status().feeds[0].reason).toMatch(/^budget exhausted: Membership limit/);
		a.release();
		expect(b.status().feeds[0].reason ?? 'held').not.toMatch(/^budget exhausted/);
		expect(relay.status().groups).toEqual(['NDX_classic_gex_full', 'NDX_spot']);
	});

	it('want() holds a feed until it has not been wanted for idleMs', async () => {
		vi.useFakeTimers();
		relay = offlineRelay();
		holder = new FeedHolder({
			tap: new UpdateTap(),
			relay,
			account: async () => ({ streams: true })
		});
		await holder.decide();
		const levels = holder.client('levels', { idleMs: 1000 });
		levels.want([SPX]);
		expect(relay.status().groups).toEqual(['SPX_classic_gex_full', 'SPX_spot']);
		vi.advanceTimersByTime(800);
		levels.want([SPX]);
		vi.advanceTimersByTime(800);
		expect(levels.list()).toEqual([SPX]);
		vi.advanceTimersByTime(300);
		expect(levels.list()).toEqual([]);
		expect(relay.status().groups).toEqual([]);
	});

	it('reads the proxy refusals as reasons', () => {
		const refusal = (status: number, reason: string) => ({
			status,
			headers: { 'x-gexdeck-refused': reason },
			body: JSON.stringify({ error: 'why' })
		});
		expect(reasonOfAnswer(refusal(403, 'locked'))).toBe('not entitled: why');
		expect(reasonOfAnswer(refusal(403, 'no-key'))).toBe('not entitled: why');
		expect(reasonOfAnswer(refusal(429, 'backoff'))).toBe('budget exhausted: why');
		expect(reasonOfAnswer(refusal(401, 'key-rejected'))).toBe('key rejected: why');
		expect(reasonOfAnswer({ status: 503 })).toBe('upstream answered 503');
	});
});
