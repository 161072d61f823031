import { describe, expect, it } from 'vitest';
import { columnarGex } from '../../wire/columnar';
import { spxChain } from '../../wire/arbitraries.test-support';
import { feedMode } from '../transport/mode';
import type { StatusMessage } from '../../relay/protocol';
import type { StreamUpdate } from '../transport/updates';
import { foldWatchlist, type WatchlistRow } from './watchlist';

const chain = spxChain(20);
const gex = (ticker: string, ts: number, zeroGamma: number): StreamUpdate => ({
	kind: 'gex',
	group: `${ticker}_classic_gex_full`,
	ticker,
	timestamp: ts,
	value: columnarGex({ ...chain, ticker, timestamp: ts, zero_gamma: zeroGamma })
});
const spot = (ticker: string, ts: number, value: number): StreamUpdate => ({
	kind: 'spot',
	group: `${ticker}_spot`,
	ticker,
	timestamp: ts,
	value: { ticker, timestamp: ts, spot: value }
});

describe('foldWatchlist', () => {
	it('follows the newest GEX and spot of each watched ticker, ignoring others and older ones', () => {
		const watched = new Set(['SPX', 'SPY']);
		let rows: ReadonlyMap<string, WatchlistRow> = new Map();
		rows = foldWatchlist(rows, [gex('SPX', 10, 7100), gex('AAPL', 10, 200)], watched);
		expect([...rows.keys()]).toEqual(['SPX']);
		expect(rows.get('SPX')).toMatchObject({ zeroGamma: 7100, spot: chain.spot });
		const before = rows;
		rows = foldWatchlist(rows, [gex('SPX', 9, 1), spot('SPY', 11, 500)], watched);
		expect(rows).toBe(before); // nothing newer: same map, no re-render
		rows = foldWatchlist(rows, [spot('SPX', 11, 7150.25), gex('SPX', 11, 7105)], watched);
		expect(rows.get('SPX')).toMatchObject({ zeroGamma: 7105, spot: 7150.25, spotTimestamp: 11 });
		rows = foldWatchlist(rows, [spot('SPX', 12, 7151)], watched);
		expect(rows.get('SPX')).toMatchObject({ timestamp: 11, spot: 7151 });
	});
});

describe('feedMode', () => {
	const status = (state: StatusMessage['state'], reason?: string): StatusMessage => ({
		type: 'status',
		state,
		reason,
		usage: { used: 12, limit: 150, perHub: {} },
		groups: [],
		viewers: 1
	});
	it('streams when the relay is live, polls REST otherwise and says why', () => {
		expect(feedMode(status('live'), 'open')).toMatchObject({
			mode: 'stream',
			reason: expect.stringMatching(/12 of 150/)
		});
		expect(feedMode(status('live'), 'closed').mode).toBe('polling');
		expect(feedMode(status('slot-taken'), 'open')).toMatchObject({
			mode: 'polling',
			canTakeBack: true
		});
		expect(
			feedMode(status('error', 'Upstream refused (403): Quant tier subscription required.'), 'open')
				.reason
		).toMatch(/needs the Quant tier/);
		expect(feedMode(undefined, 'connecting').reason).toMatch(/Connecting/);
	});
});
