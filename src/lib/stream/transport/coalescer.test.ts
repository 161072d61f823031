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
					const c = new UpdateCoalescer();
					const newest = new Map<string, number>();
					for (const [g, ts] of events) {
						c.push(orderflow(`${g}_orderflow_orderflow`, g, ts));
						newest.set(g, Math.max(newest.get(g) ?? -1, ts));
					}
					const out = c.flush();
					expect(new Set(out.map((u) => u.group)).size).toBe(out.length);
					expect(out.length).toBe(newest.size);
					for (const u of out) expect(u.timestamp).toBe(newest.get(u.ticker));
					expect(c.flush()).toEqual([]);
				}
			)
		);
	});

	it('pairs analytics with the spot of the same ticker and timestamp, in either order', () => {
		const c = new UpdateCoalescer();
		c.push(spot('SPX', 10, 7100.5));
		c.push(orderflow('SPX_orderflow_orderflow', 'SPX', 10));
		const out = c.flush();
		const of = out.find((u) => u.kind === 'orderflow');
		expect(of && 'pairedSpot' in of && of.pairedSpot).toEqual({
			spot: 7100.5,
			sourceTimestampMs: 10005
		});
		expect(out.find((u) => u.kind === 'spot')).toBeDefined();

		c.push(orderflow('SPX_orderflow_orderflow', 'SPX', 11));
		c.push(spot('SPX', 11, 7101));
		expect(c.flush().find((u) => u.kind === 'orderflow')).toMatchObject({
			pairedSpot: { spot: 7101 }
		});
		expect(c.unpaired).toBe(0);
	});

	it('hands out a chain whose spot has not come at once, unpaired; its spot follows as its own update', () => {
		const c = new UpdateCoalescer();
		c.push(orderflow('SPX_orderflow_orderflow', 'SPX', 12));
		const first = c.flush();
		expect(first).toHaveLength(1);
		expect(first[0]).toMatchObject({ kind: 'orderflow', timestamp: 12 });
		expect('pairedSpot' in first[0] && first[0].pairedSpot).toBeFalsy();
		expect(c.unpaired).toBe(1);
		c.push(spot('SPX', 12, 7102));
		expect(c.flush()).toMatchObject([{ kind: 'spot', timestamp: 12, value: { spot: 7102 } }]);
	});

	it('ignores late older frames', () => {
		const c = new UpdateCoalescer();
		c.push(orderflow('SPX_orderflow_orderflow', 'SPX', 12));
		c.push(orderflow('SPX_orderflow_orderflow', 'SPX', 11));
		const out = c.flush();
		expect(out).toHaveLength(1);
		expect(out[0]).toMatchObject({ timestamp: 12 });
		expect(c.superseded).toBe(1);
	});
});
