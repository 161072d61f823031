import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PoolBackoff } from './backoff';

describe('PoolBackoff', () => {
	it('holds a pool after a 429, lets one probe through when the delay ends, doubles on failure', () => {
		let now = 0;
		const b = new PoolBackoff({ baseMs: 1000, maxMs: 60_000, now: () => now, random: () => 0.5 });
		expect(b.admit('api_default').ok).toBe(true);
		b.record('api_default', 429);
		expect(b.admit('api_default')).toEqual({ ok: false, retryAt: 1000 });
		expect(b.admit('api_majors').ok).toBe(true); // pools are independent
		now = 1000;
		expect(b.admit('api_default').ok).toBe(true); // the probe
		expect(b.admit('api_default').ok).toBe(false); // others wait for its verdict
		b.record('api_default', 429);
		expect(b.state('api_default').retryAt).toBe(1000 + 2000);
		now = 3000;
		expect(b.admit('api_default').ok).toBe(true);
		b.record('api_default', 200);
		expect(b.state('api_default').status).toBe('ok');
		expect(b.admit('api_default').ok).toBe(true);
	});

	it('keeps every delay within +-50 % of the capped exponential', () => {
		fc.assert(
			fc.property(
				fc.integer({ min: 1, max: 40 }),
				fc.double({ min: 0, max: 0.999, noNaN: true }),
				(n, r) => {
					const b = new PoolBackoff({ baseMs: 2000, maxMs: 300_000, random: () => r });
					const raw = Math.min(300_000, 2000 * 2 ** (n - 1));
					const d = b.delayFor(n);
					expect(d).toBeGreaterThanOrEqual(Math.floor(raw * 0.5));
					expect(d).toBeLessThanOrEqual(Math.ceil(raw * 1.5));
				}
			)
		);
	});
});
