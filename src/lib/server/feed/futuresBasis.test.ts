import { describe, expect, it } from 'vitest';
import type { ProxyResult } from '../proxy';
import { FuturesBasis } from './futuresBasis';

const conversion = { future_contract: 'ESZ6', multiplier: 1, additive: 39.62 };

describe('FuturesBasis', () => {
	it('counts a refresh for the caller whose request made it, and serves later callers from the cache', async () => {
		const calls: { path: string; future: string | null; caller?: string }[] = [];
		let now = 1_000_000;
		const basis = new FuturesBasis(
			async (path, query, caller) => {
				calls.push({ path, future: query.get('future'), caller });
				return { status: 200, body: JSON.stringify(conversion) } as unknown as ProxyResult;
			},
			() => now
		);
		const first = await basis.get('SPX', 'ES', 'user alice');
		expect(first).toMatchObject({ ok: true, conversion: { additive: 39.62 } });
		expect(await basis.get('SPX', 'ES', 'user bob')).toMatchObject({ ok: true });
		// Bob was answered from Alice's fetch: one upstream call, counted for Alice.
		expect(calls).toEqual([{ path: 'futures/conversion', future: 'ES', caller: 'user alice' }]);
		now += 24 * 3600_000;
		await basis.get('SPX', 'ES', 'user bob');
		await new Promise((r) => setTimeout(r, 0));
		expect(calls.at(-1)).toEqual({ path: 'futures/conversion', future: 'ES', caller: 'user bob' });
	});
});
