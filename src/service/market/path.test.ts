/**
 * The path model's build caches (the log paths and daily shocks behind each spot path and close)
 * are dropped once the live days are built (dropBuildCaches, called by the live engine:
 * engine/liveBuildCaches.test.ts): nothing they held may change a value computed after the drop.
 */
import { describe, expect, it, vi } from 'vitest';

type PathModule = typeof import('./path');

/** The module as a fresh process sees it: every cache empty. */
async function freshPath(): Promise<PathModule> {
	vi.resetModules();
	return import('./path');
}

const SEED = 7;
const DATE = '2026-11-18';

describe('dropBuildCaches', () => {
	it('empties the build caches, and paths and closes computed after it are unchanged', async () => {
		const path = await freshPath();
		// VIX follows a factor: its path builds the factor's log path and both tickers' shocks.
		const vix = path.sessionPath(SEED, 'VIX', DATE);
		expect(path.buildCacheSizes().paths).toBeGreaterThan(1);
		expect(path.buildCacheSizes().shocks).toBeGreaterThan(400);
		path.dropBuildCaches();
		expect(path.buildCacheSizes()).toEqual({ paths: 0, shocks: 0 });
		// Built again after the drop: another follower of the same factor, another day's close.
		const after = {
			uvxy: path.sessionPath(SEED, 'UVXY', DATE),
			close: path.sessionClose(SEED, 'SPY', '2026-11-19')
		};

		const untouched = await freshPath();
		expect(untouched.sessionPath(SEED, 'VIX', DATE)).toEqual(vix);
		expect(untouched.sessionPath(SEED, 'UVXY', DATE)).toEqual(after.uvxy);
		expect(untouched.sessionClose(SEED, 'SPY', '2026-11-19')).toBe(after.close);
	}, 30_000);
});
