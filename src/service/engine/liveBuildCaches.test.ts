/**
 * The live engine drops the path model's build caches (market/path.ts dropBuildCaches) once every
 * chain is live: an idle service holds none of them.
 */
import { describe, expect, it, vi } from 'vitest';
import { SessionClock } from '../market/clock';

const SEED = 7;

describe('LiveEngine and the build caches', () => {
	it('drops them once every chain is live', async () => {
		vi.resetModules();
		const path = await import('../market/path');
		const { LiveEngine } = await import('./live');
		// A minute into the session: a short catch-up.
		const wall = Date.parse('2026-11-18T14:31:00Z');
		const clock = new SessionClock({ mode: 'real', wall: () => wall });
		const engine = new LiveEngine(SEED, ['AAPL', 'VIX'], clock);
		await engine.advance(Infinity);
		expect(engine.allReady()).toBe(true);
		expect(engine.latest('VIX')?.spot).toBe(path.sessionPath(SEED, 'VIX', '2026-11-18')[60]);
		// sessionPath above reads the spot cache, which stays: the build caches are empty.
		expect(path.buildCacheSizes()).toEqual({ paths: 0, shocks: 0 });
		engine.stop();
	}, 60_000);
});
