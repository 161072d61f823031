import 'fake-indexeddb/auto';
import { describe, expect, it } from 'vitest';
import { FLOW_SERIES } from '$lib/stream/series/orderflowSeries';
import { etInstant } from '$lib/contract/newYorkTime';
import type { OrderflowBody } from '$lib/contract/schemas';
import { OrderflowSession } from './orderflowSession.svelte';

function body(ticker: string, timestamp: number, x: number): OrderflowBody {
	const fields = Object.fromEntries(FLOW_SERIES.map((k, i) => [k, x + i]));
	return { timestamp, ticker, ...fields } as OrderflowBody;
}

const MON = etInstant('2026-11-23', 10 * 3600);
const TUE = etInstant('2026-11-24', 10 * 3600);

describe('OrderflowSession', () => {
	it('writes the day to IndexedDB and a new session of the ticker restores it', async () => {
		const a = new OrderflowSession('SPX');
		await a.restore();
		for (let i = 0; i < 700; i++) a.add(body('SPX', MON + i, i));
		a.add(body('NDX', MON + 800, 1)); // another ticker's payload is not this series
		expect(a.series.length).toBe(700);
		expect(a.revision).toBe(a.series.revision);
		await a.flush();

		const b = new OrderflowSession('SPX');
		await b.restore();
		expect(b.restored).toBe(700);
		expect(b.series.length).toBe(700);
		expect(b.series.values[0][699]).toBe(699);
		// Restored chunks are not written again; a new point is.
		b.add(body('SPX', MON + 700, 5));
		expect(b.series.takeDirty()).toHaveLength(1);
	});

	it('starts a new day on the first point of the next session and prunes the stored old day', async () => {
		const a = new OrderflowSession('QQQ');
		await a.restore();
		a.add(body('QQQ', MON, 1));
		await a.flush();
		a.add(body('QQQ', TUE, 2));
		expect(a.series.day).toBe('2026-11-24');
		expect(a.series.length).toBe(1);
		a.add(body('QQQ', MON + 5, 3)); // a late payload of the old day is dropped
		expect(a.series.length).toBe(1);
		await a.flush();

		const b = new OrderflowSession('QQQ');
		await b.restore();
		expect(b.series.day).toBe('2026-11-24');
		expect(b.restored).toBe(1);
		// SPX's Monday (from the test above) went with the prune too.
		const c = new OrderflowSession('SPX');
		await c.restore();
		expect(c.restored).toBe(0);
	});

	it("keeps a past day's series to that day: today's live payload does not replace it", () => {
		const past = new OrderflowSession('SPX', '2026-11-23');
		for (let i = 0; i < 10; i++) past.add(body('SPX', MON + i, i));
		past.add(body('SPX', TUE, 99)); // the page's last live payload
		expect(past.series.day).toBe('2026-11-23');
		expect(past.series.length).toBe(10);
	});
});
