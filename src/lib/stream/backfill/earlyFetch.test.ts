/**
 * Answers asked for early (earlyFetch.ts): taken once by the view's fetch of the same address,
 * never served stale, at most EARLY_MAX waiting, asked once per key in a row, and nothing asked
 * on the server.
 */
import { describe, expect, it, vi } from 'vitest';
import {
	askEarly,
	EARLY_KEEP_MS,
	EARLY_MAX,
	earlyCount,
	takeEarly
} from './earlyFetch';
import { earlyBrowser } from './earlyFetch.test-support';

const asked = earlyBrowser();
/** A wall clock of today (ms). */
const T = 1_795_446_000_000;

describe('answers asked for early', () => {
	it('are taken once, by the address', async () => {
		askEarly('k', ['/a', '/b'], T);
		expect(asked).toEqual(['/a', '/b']);
		expect(await (await takeEarly('/b', T + 1))!.text()).toBe('/b');
		expect(takeEarly('/b', T + 2)).toBeUndefined();
		expect(takeEarly('/c', T + 2)).toBeUndefined();
		expect(earlyCount()).toBe(1);
	});

	it('are dropped when nobody took them in time, never served late', () => {
		askEarly('k', ['/b'], T);
		expect(takeEarly('/b', T + EARLY_KEEP_MS)).toBeDefined();
		askEarly('k2', ['/a'], T);
		expect(takeEarly('/a', T + EARLY_KEEP_MS + 1)).toBeUndefined();
		expect(earlyCount()).toBe(0);
	});

	it('wait at most EARLY_MAX at once, the oldest dropped first', () => {
		const urls = Array.from({ length: EARLY_MAX + 5 }, (_, i) => `/u${i}`);
		askEarly('many', urls, T);
		expect(earlyCount()).toBe(EARLY_MAX);
		expect(takeEarly('/u0', T + 1)).toBeUndefined();
		expect(takeEarly(`/u${EARLY_MAX + 4}`, T + 1)).toBeDefined();
	});

	it('are asked for once per key in a row (a load run again for the same page and day)', () => {
		askEarly('page?day=1', ['/a'], T);
		void takeEarly('/a', T + 1);
		askEarly('page?day=1', ['/a'], T + 2);
		expect(asked).toEqual(['/a']);
		askEarly('page?day=2', ['/b'], T + 3);
		askEarly('page?day=1', ['/a'], T + 4);
		expect(asked).toEqual(['/a', '/b', '/a']);
	});

	it('hand a failed answer to its taker, and a failure nobody takes is not an error', async () => {
		askEarly('k', ['/fail', '/fail2'], T);
		await expect(takeEarly('/fail', T + 1)!).rejects.toThrow('network');
		// The other is dropped unseen: no unhandled rejection fails this test.
		await new Promise((r) => setTimeout(r, 0));
	});

	it('asks for an address already waiting once', () => {
		askEarly('k1', ['/a', '/a'], T);
		askEarly('k2', ['/a'], T + 1);
		expect(asked).toEqual(['/a']);
		expect(earlyCount()).toBe(1);
	});

	it('asks nothing without fetch', () => {
		vi.stubGlobal('fetch', undefined);
		askEarly('k', ['/a'], T);
		expect(earlyCount()).toBe(0);
	});

	it('asks nothing on the server', () => {
		vi.stubGlobal('window', undefined);
		askEarly('k', ['/a'], T);
		expect(asked).toEqual([]);
		expect(earlyCount()).toBe(0);
	});
});
