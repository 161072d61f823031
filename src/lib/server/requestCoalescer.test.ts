import { describe, expect, it } from 'vitest';
import { Coalescer } from './requestCoalescer';

describe('Coalescer', () => {
	it('shares one call among concurrent and repeated requests within the ttl', async () => {
		let now = 0;
		const c = new Coalescer<number>({ ttlMs: 1000, now: () => now });
		let calls = 0;
		const fetcher = () => new Promise<number>((r) => setTimeout(() => r(++calls), 5));
		const results = await Promise.all(Array.from({ length: 50 }, () => c.run('k', fetcher)));
		expect(calls).toBe(1);
		expect(results.filter((r) => r.outcome === 'miss')).toHaveLength(1);
		expect(results.every((r) => r.value === 1)).toBe(true);
		now = 999;
		expect((await c.run('k', fetcher)).outcome).toBe('hit');
		now = 1000;
		expect(await c.run('k', fetcher)).toEqual({ value: 2, outcome: 'miss' });
		expect(c.calls).toBe(2);
	});

	it('never reuses a rejected call or a result marked not reusable', async () => {
		const c = new Coalescer<number>({ ttlMs: 1000 });
		await expect(c.run('k', () => Promise.reject(new Error('down')))).rejects.toThrow('down');
		expect(
			(
				await c.run(
					'k',
					async () => 429,
					(v) => v !== 429
				)
			).outcome
		).toBe('miss');
		expect((await c.run('k', async () => 200)).outcome).toBe('miss');
	});

	it('keys are independent', async () => {
		const c = new Coalescer<string>();
		const a = await c.run('a', async () => 'A');
		const b = await c.run('b', async () => 'B');
		expect([a.value, b.value]).toEqual(['A', 'B']);
	});

	it('drops finished entries once their ttl has passed (no unbounded map)', async () => {
		let now = 0;
		const c = new Coalescer<string>({ ttlMs: 1000, now: () => now });
		for (let i = 0; i < 500; i++) await c.run(`research-${i}`, async () => 'x'.repeat(1000));
		expect(c.size).toBe(500);
		now = 1000;
		await c.run('next', async () => 'y');
		expect(c.size).toBe(1);
	});

	it('caps the bytes of finished results held', async () => {
		const c = new Coalescer<string>({ ttlMs: 60_000, maxBytes: 10_000, sizeOf: (v) => v.length });
		for (let i = 0; i < 100; i++) await c.run(`k${i}`, async () => 'x'.repeat(1000));
		expect(c.heldBytes).toBeLessThanOrEqual(10_000);
		expect(c.size).toBe(10);
		// The newest are kept; a result larger than the cap is served but not held.
		expect((await c.run('k99', async () => 'new')).outcome).toBe('hit');
		const big = await c.run('big', async () => 'z'.repeat(20_000));
		expect(big.value).toHaveLength(20_000);
		expect(c.heldBytes).toBeLessThanOrEqual(10_000);
	});

	it('sweeps when idle, by timer', async () => {
		const c = new Coalescer<string>({ ttlMs: 20 });
		await c.run('a', async () => 'A');
		expect(c.size).toBe(1);
		await new Promise((r) => setTimeout(r, 80));
		expect(c.size).toBe(0);
	});
});
