import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { bsmPrice } from './bsm';
import { ImpliedVolError, impliedVol } from './iv';

describe('impliedVol', () => {
	it('recovers a textbook vol (Hull: 4.759422 -> 20%)', () => {
		expect(impliedVol(4.759422392871535, true, 42, 40, 0.5, 0.1, 0)).toBeCloseTo(0.2, 12);
		expect(impliedVol(0.8085993729000958, false, 42, 40, 0.5, 0.1, 0)).toBeCloseTo(0.2, 12);
	});

	it('round-trips to < 1e-10 from deep ITM to deep OTM, T from 1 hour to 2 years (property)', () => {
		fc.assert(
			fc.property(
				fc.boolean(),
				fc.double({ min: 1, max: 10000, noNaN: true }),
				fc.double({ min: -6, max: 6, noNaN: true }),
				fc.double({ min: 1 / 8760, max: 2, noNaN: true }),
				fc.double({ min: 0.03, max: 2, noNaN: true }),
				fc.double({ min: -0.01, max: 0.1, noNaN: true }),
				fc.double({ min: 0, max: 0.05, noNaN: true }),
				(call, S, z, T, sigma, r, q) => {
					// Strike at z standard deviations from the forward.
					const K = S * Math.exp((r - q) * T + z * sigma * Math.sqrt(T));
					const price = bsmPrice(call, S, K, T, sigma, r, q);
					// The ITM price must still carry the time value in double precision.
					const otm = bsmPrice(K > S * Math.exp((r - q) * T), S, K, T, sigma, r, q);
					fc.pre(otm > 1e-5 * price && otm > 1e-300);
					expect(Math.abs(impliedVol(price, call, S, K, T, r, q) - sigma)).toBeLessThan(1e-10);
				}
			),
			{ numRuns: 3000 }
		);
	});

	it('rejects prices outside the no-arbitrage bounds instead of returning NaN', () => {
		// Call above S e^{-qT}, put above K e^{-rT}, call below discounted intrinsic.
		expect(() => impliedVol(101, true, 100, 90, 1, 0.05, 0)).toThrow(ImpliedVolError);
		expect(() => impliedVol(100, false, 100, 105, 1, 0.05, 0)).toThrow(/no-arbitrage/);
		expect(() => impliedVol(5, true, 100, 90, 1, 0.05, 0)).toThrow(/below/);
		expect(() => impliedVol(-1, false, 100, 90, 1, 0, 0)).toThrow(ImpliedVolError);
		expect(() => impliedVol(1, true, 100, 90, 0, 0, 0)).toThrow(/time/);
		expect(() => impliedVol(NaN, true, 100, 90, 1, 0, 0)).toThrow(/finite/);
	});

	it('returns 0 for a price equal to the discounted intrinsic value', () => {
		const intrinsic = 100 - 90 * Math.exp(-0.05);
		expect(impliedVol(intrinsic, true, 100, 90, 1, 0.05, 0)).toBe(0);
	});
});
