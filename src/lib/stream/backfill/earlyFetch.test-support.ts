/**
 * A browser for earlyFetch's tests: before each test, no answer waiting, `window` defined and a
 * `fetch` that records the addresses it is asked (an address containing "fail" rejects); after
 * each, the globals restored. A plain function, not vi.fn: a spy handles the promises it returns
 * (it records how they settle), which would hide an early answer's rejection nobody handled.
 */
import { afterEach, beforeEach, vi } from 'vitest';
import { resetEarly } from './earlyFetch';

/** The addresses fetched in the current test, in order. */
export function earlyBrowser(): string[] {
	const asked: string[] = [];
	beforeEach(() => {
		resetEarly();
		asked.length = 0;
		vi.stubGlobal('window', globalThis);
		vi.stubGlobal('fetch', async (url: string) => {
			asked.push(url);
			if (url.includes('fail')) throw new TypeError('network');
			return new Response(url);
		});
	});
	afterEach(() => vi.unstubAllGlobals());
	return asked;
}
