/**
 * Answers asked for early (earlyFetch.ts): taken once by the view's fetch of the same address,
 * never served stale, at most EARLY_MAX waiting, asked once per key in a row, and nothing asked
 * on the server.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
	askEarly,
	EARLY_KEEP_MS,
	EARLY_MAX,
	earlyCount,
	resetEarly,
	takeEarly
} from './earlyFetch';

const asked: string[] = [];

beforeEach(() => {
	resetEarly();
	asked.length = 0;
	vi.stubGlobal('window', globalThis);
	// A plain function, not vi.fn: a spy handles the promises it returns (it records how they
	// settle), which would hide an early answer's rejection nobody handled.
	vi.stubGlobal('fetch', async (url: string) => {
		asked.push(url);
		if (url.includes('fail')) throw new TypeError('network');
		return new Response(url);
	});
});
afterEach(() => vi.unstubAllGlobals());

describe('answers asked for early', () => {
	it('are taken once, by the address', async () => {
		askEarly('k', ['/a', '/b'], 1000);
		expect(asked).toEqual(['/a', '/b']);
		expect(await (await takeEarly('/b', 1001))!.text()).toBe('/b');
		expect(takeEarly('/b', 1002)).toBeUndefined();
		expect(takeEarly('/c', 1002)).toBeUndefined();
		expect(earlyCount()).toBe(1);
	});

	it('are dropped when nobody took them in time, never served late', () => {
		askEarly('k', ['/a'], 1000);
		expect(takeEarly('/a', 1000 + EARLY_KEEP_MS + 1)).toBeUndefined();
		expect(earlyCount()).toBe(0);
	});

	it('wait at most EARLY_MAX at once, the oldest dropped first', () => {
		const urls = Array.from({ length: EARLY_MAX + 5 }, (_, i) => `/u${i}`);
		askEarly('many', urls, 1000);
		expect(earlyCount()).toBe(EARLY_MAX);
		expect(takeEarly('/u0', 1001)).toBeUndefined();
		expect(takeEarly(`/u${EARLY_MAX + 4}`, 1001)).toBeDefined();
	});

	it('are asked for once per key in a row (a load run again for the same page and day)', () => {
		askEarly('page?day=1', ['/a'], 1000);
		void takeEarly('/a', 1001);
		askEarly('page?day=1', ['/a'], 1002);
		expect(asked).toEqual(['/a']);
		askEarly('page?day=2', ['/b'], 1003);
		askEarly('page?day=1', ['/a'], 1004);
		expect(asked).toEqual(['/a', '/b', '/a']);
	});

	it('hand a failed answer to its taker, and a failure nobody takes is not an error', async () => {
		askEarly('k', ['/fail', '/fail2'], 1000);
		await expect(takeEarly('/fail', 1001)!).rejects.toThrow('network');
		// The other is dropped unseen: no unhandled rejection fails this test.
		await new Promise((r) => setTimeout(r, 0));
	});

	it('asks nothing on the server', () => {
		vi.stubGlobal('window', undefined);
		askEarly('k', ['/a'], 1000);
		expect(asked).toEqual([]);
		expect(earlyCount()).toBe(0);
	});
});
