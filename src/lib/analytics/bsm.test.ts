import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { bsmGamma, bsmGreeks, bsmPrice } from './bsm';

const rel = (a: number, b: number) => Math.abs(a - b) / Math.max(1e-300, Math.abs(b));

describe('BSM closed forms', () => {
	it('reproduces Hull 15.6 (S=42, K=40, r=10%, sigma=20%, T=0.5)', () => {
		const c = bsmGreeks(true, 42, 40, 0.5, 0.2, 0.1, 0);
		const p = bsmGreeks(false, 42, 40, 0.5, 0.2, 0.1, 0);
		expect(c.price).toBeCloseTo(4.759422392871535, 12);
		expect(p.price).toBeCloseTo(0.8085993729000958, 12);
		expect(c.delta).toBeCloseTo(0.779131290942669, 13);
		expect(p.delta).toBeCloseTo(-0.22086870905733103, 13);
		expect(c.gamma).toBeCloseTo(0.04996267040591185, 14);
		expect(c.vega).toBeCloseTo(8.813415059602853, 12);
		expect(c.vanna).toBeCloseTo(-0.9316006786136686, 13);
		expect(c.charm).toBeCloseTo(-0.023523079982096084, 13);
	});

	it('matches an independent implementation with a dividend yield', () => {
		// Values from a separate Python implementation of the same textbook formulas.
		const c = bsmGreeks(true, 5000, 4850, 0.0192, 0.215, 0.05, 0.013);
		expect(rel(c.price, 164.5816922326867)).toBeLessThan(1e-13);
		expect(rel(c.delta, 0.8554783009567875)).toBeLessThan(1e-13);
		expect(rel(c.gamma, 0.0015248275485142048)).toBeLessThan(1e-12);
		expect(rel(c.vega, 157.36220300666596)).toBeLessThan(1e-12);
		expect(rel(c.vanna, -1.0895725278169608)).toBeLessThan(1e-12);
		expect(rel(c.charm, 5.829499305829148)).toBeLessThan(1e-12);
		expect(rel(c.charmPerDay, 5.829499305829148 / 365)).toBeLessThan(1e-12);
		const p = bsmGreeks(false, 5000, 5100, 0.25, 0.18, 0.05, 0.013);
		expect(rel(p.price, 207.49905870145312)).toBeLessThan(1e-13);
		expect(rel(p.delta, -0.5270832780312081)).toBeLessThan(1e-13);
		expect(rel(p.vanna, 0.35750410136418437)).toBeLessThan(1e-12);
		expect(rel(p.charm, -0.29860485575186047)).toBeLessThan(1e-12);
	});

	it('every greek equals a finite difference of price', () => {
		const cases = [
			[100, 100, 0.5, 0.25, 0.03, 0.01],
			[5000, 4850, 0.0192, 0.215, 0.05, 0.013],
			[5000, 5200, 2, 0.15, 0.04, 0.02],
			[50, 41, 1 / 365, 0.6, 0.01, 0]
		];
		for (const [S, K, T, v, r, q] of cases) {
			for (const call of [true, false]) {
				const g = bsmGreeks(call, S, K, T, v, r, q);
				const hs = S * 1e-4;
				const hv = 1e-5;
				const ht = T * 1e-4;
				const P = (s: number, t: number, vol: number) => bsmPrice(call, s, K, t, vol, r, q);
				const D = (s: number, t: number, vol: number) =>
					(P(s + hs, t, vol) - P(s - hs, t, vol)) / (2 * hs);
				// Mixed tolerance: relative for sizeable greeks, absolute (scaled) for deep OTM ones.
				const near = (a: number, b: number, tol: number, scale: number) =>
					expect(Math.abs(a - b)).toBeLessThan(tol * (Math.abs(b) + scale));
				const hd = S * 1e-5;
				near((P(S + hd, T, v) - P(S - hd, T, v)) / (2 * hd), g.delta, 1e-6, 1e-3);
				const hg = S * 1e-4;
				const gamma = (P(S + hg, T, v) - 2 * P(S, T, v) + P(S - hg, T, v)) / (hg * hg);
				near(gamma, g.gamma, 1e-4, 0.01 / (S * v * Math.sqrt(T)));
				near((P(S, T, v + hv) - P(S, T, v - hv)) / (2 * hv), g.vega, 1e-6, 1e-4 * S);
				expect(Math.abs((D(S, T, v + hv) - D(S, T, v - hv)) / (2 * hv) - g.vanna)).toBeLessThan(
					1e-4 * (1 + Math.abs(g.vanna))
				);
				// charm is dDelta/dt as time passes: minus the derivative in time to expiry.
				const charm = -(D(S, T + ht, v) - D(S, T - ht, v)) / (2 * ht);
				expect(Math.abs(charm - g.charm)).toBeLessThan(1e-4 * (1 + Math.abs(g.charm)));
				expect(g.charmPerDay).toBeCloseTo(g.charm / 365, 15);
				expect(bsmGamma(S, K, T, v, r, q)).toBe(g.gamma);
			}
		}
	});

	it('satisfies put-call parity and shares gamma, vega and vanna', () => {
		fc.assert(
			fc.property(
				fc.double({ min: 1, max: 10000, noNaN: true }),
				fc.double({ min: 0.5, max: 2, noNaN: true }),
				fc.double({ min: 1 / 8760, max: 3, noNaN: true }),
				fc.double({ min: 0.02, max: 2, noNaN: true }),
				fc.double({ min: -0.02, max: 0.15, noNaN: true }),
				fc.double({ min: 0, max: 0.08, noNaN: true }),
				(S, m, T, v, r, q) => {
					const K = S * m;
					const c = bsmGreeks(true, S, K, T, v, r, q);
					const p = bsmGreeks(false, S, K, T, v, r, q);
					const forward = S * Math.exp(-q * T) - K * Math.exp(-r * T);
					expect(Math.abs(c.price - p.price - forward)).toBeLessThan(1e-12 * (S + K));
					expect(Math.abs(c.delta - p.delta - Math.exp(-q * T))).toBeLessThan(1e-14);
					expect(p.gamma).toBe(c.gamma);
					expect(p.vega).toBe(c.vega);
					expect(p.vanna).toBe(c.vanna);
					expect(Math.abs(c.charm - p.charm - q * Math.exp(-q * T))).toBeLessThan(
						1e-9 * (1 + Math.abs(c.charm))
					);
				}
			)
		);
	});

	it('takes explicit limits at expiry and with no volatility', () => {
		const expired = bsmGreeks(true, 105, 100, 0, 0.2, 0.05, 0);
		expect(expired).toMatchObject({ price: 5, delta: 1, gamma: 0, vega: 0, vanna: 0, charm: 0 });
		expect(bsmGreeks(false, 105, 100, -1, 0.2, 0.05, 0)).toMatchObject({
			price: 0,
			delta: 0,
			gamma: 0
		});
		expect(bsmGreeks(true, 100, 100, 0, 0.2, 0, 0).delta).toBe(0.5);
		const flat = bsmGreeks(false, 90, 100, 0.5, 0, 0.05, 0.01);
		expect(flat.price).toBeCloseTo(100 * Math.exp(-0.025) - 90 * Math.exp(-0.005), 12);
		expect(flat.delta).toBeCloseTo(-Math.exp(-0.005), 15);
		expect(flat.gamma).toBe(0);
		expect(bsmPrice(true, 90, 100, 1e-30, 0.2, 0, 0)).toBe(0);
	});

	it('never yields NaN or Infinity for finite positive inputs', () => {
		const pos = (min: number, max: number) =>
			fc.double({ min, max, noNaN: true, noDefaultInfinity: true });
		fc.assert(
			fc.property(
				fc.boolean(),
				pos(1e-6, 1e9),
				pos(1e-6, 1e9),
				pos(0, 100),
				pos(0, 20),
				pos(0, 1),
				pos(0, 1),
				(call, S, K, T, v, r, q) => {
					const g = bsmGreeks(call, S, K, T, v, r, q);
					for (const value of Object.values(g)) expect(Number.isFinite(value)).toBe(true);
					expect(g.gamma).toBeGreaterThanOrEqual(0);
					expect(g.price).toBeGreaterThanOrEqual(0);
				}
			),
			{ numRuns: 2000 }
		);
	});
});
