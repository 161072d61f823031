import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { UpdateCoalescer } from './coalescer';
import type { StreamUpdate } from './updates';

function orderflow(group: string, ticker: string, timestamp: number): StreamUpdate {
	return { kind: 'orderflow', group, ticker, timestamp, value: { timestamp, ticker } as never };
}

function spot(ticker: string, timestamp: number, value = 100): StreamUpdate {
	return {
		kind: 'spot',
		group: `${ticker}_spot`,
		ticker,
		timestamp,
		value: { ticker, timestamp, spot: value, source_timestamp_ms: timestamp * 1000 + 5 }
	};
}

describe('UpdateCoalescer', () => {
	it('hands out at most one update per group per flush, the newest', () => {
		fc.assert(
			fc.property(
				fc.array(fc.tuple(fc.constantFrom('A', 'B', 'C'), fc.integer({ min: 0, max: 50 })), {
					maxLength: 60
				}),
				(events) => {
					const c = new UpdateCoalescer({ pairWaitMs: 0 });
					const newest = new Map<string, number>();
					for (const [g, ts] of events) {
						c.push(orderflow(`${g}_orderflow_orderflow`, g, ts), 0);
						newest.set(g, Math.max(newest.get(g) ?? -1, ts));
					}
					const out = c.flush(1);
					expect(new Set(out.map((u) => u.group)).size).toBe(out.length);
					expect(out.length).toBe(newest.size);
					for (const u of out) expect(u.timestamp).toBe(newest.get(u.ticker));
					expect(c.flush(2)).toEqual([]);
				}
			)
		);
	});

	it('pairs analytics with the spot of the same ticker and timestamp, in either order', () => {
		const c = new UpdateCoalescer({ pairWaitMs: 100 });
		c.push(orderflow('SPX_orderflow_orderflow', 'SPX', 10), 0);
		// Spot not here yet: the analytics waits.
		expect(c.flush(16)).toEqual([]);
		c.push(spot('SPX', 10, 7100.5), 20);
		const out = c.flush(32);
		const of = out.find((u) => u.kind === 'orderflow');
		expect(of && 'pairedSpot' in of && of.pairedSpot).toEqual({
			spot: 7100.5,
			sourceTimestampMs: 10005
		});
		expect(out.find((u) => u.kind === 'spot')).toBeDefined();

		c.push(spot('SPX', 11, 7101), 40);
		c.push(orderflow('SPX_orderflow_orderflow', 'SPX', 11), 41);
		expect(c.flush(42).find((u) => u.kind === 'orderflow')).toMatchObject({
			pairedSpot: { spot: 7101 }
		});
	});

	it('lets an analytics update go unpaired after the wait, and ignores late older frames', () => {
		const c = new UpdateCoalescer({ pairWaitMs: 100 });
		c.push(orderflow('SPX_orderflow_orderflow', 'SPX', 12), 0);
		expect(c.flush(50)).toEqual([]);
		c.push(orderflow('SPX_orderflow_orderflow', 'SPX', 11), 60);
		const out = c.flush(120);
		expect(out).toHaveLength(1);
		expect(out[0]).toMatchObject({ timestamp: 12 });
		expect('pairedSpot' in out[0] && out[0].pairedSpot).toBeFalsy();
		expect(c.unpaired).toBe(1);
		expect(c.superseded).toBe(1);
	});
});
