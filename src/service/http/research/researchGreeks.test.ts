import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { bsmPrice } from '../../../lib/analytics/bsm';
import { fullGreeks } from './researchGreeks';
import { solveImpliedVol } from './researchIv';
import { parseMetric } from './metrics';
import { RESEARCH_METRICS } from '../../../lib/contract/research';

const r = 0.04;
const q = 0.015;

/** Central difference of f at x with relative step h. */
function diff(f: (x: number) => number, x: number, h: number): number {
	return (f(x + h) - f(x - h)) / (2 * h);
}

describe('research greeks', () => {
	it('match finite differences of the price for calls and puts', () => {
		for (const isCall of [true, false]) {
			for (const [S, K, t, v] of [
				[100, 95, 0.25, 0.3],
				[5000, 5100, 30 / 365, 0.18],
				[50, 50, 2, 0.6]
			]) {
				const g = fullGreeks(isCall, S, K, t, v, r, q);
				const price = (s: number, vol: number, time: number, rate: number) =>
					bsmPrice(isCall, s, K, time, vol, rate, q);
				const greek = (name: keyof typeof g) => (s: number, vol: number, time: number) =>
					fullGreeks(isCall, s, K, time, vol, r, q)[name];
				const hS = S * 1e-4;
				const close = (a: number, b: number, tol = 1e-4) =>
					expect(Math.abs(a - b)).toBeLessThanOrEqual(tol * Math.max(1, Math.abs(b)));
				close(g.theta, -diff((x) => price(S, v, x, r), t, 1e-5));
				close(
					g.rho,
					diff((x) => price(S, v, t, x), r, 1e-5)
				);
				close(
					g.vomma,
					diff((x) => greek('vega')(S, x, t), v, 1e-5)
				);
				close(
					g.speed,
					diff((x) => greek('gamma')(x, v, t), S, hS)
				);
				close(
					g.zomma,
					diff((x) => greek('gamma')(S, x, t), v, 1e-5)
				);
				close(g.color, -diff((x) => greek('gamma')(S, v, x), t, 1e-6));
				close(
					g.ultima,
					diff((x) => greek('vomma')(S, x, t), v, 1e-5),
					1e-3
				);
			}
		}
	});

	it('implied vol round-trips and is null outside the no-arbitrage bounds', () => {
		fc.assert(
			fc.property(
				fc.boolean(),
				fc.double({ min: 0.7, max: 1.3, noNaN: true }),
				fc.double({ min: 1 / 365, max: 2, noNaN: true }),
				fc.double({ min: 0.05, max: 1.5, noNaN: true }),
				(isCall, moneyness, t, vol) => {
					const S = 100;
					const K = S * moneyness;
					const p = bsmPrice(isCall, S, K, t, vol, r, q);
					const iv = solveImpliedVol(p, isCall, S, K, t, r, q);
					// Prices too close to intrinsic carry no recoverable vol information.
					if (p - bsmPrice(isCall, S, K, t, 1e-4, r, q) < 1e-9) return;
					expect(iv).not.toBeNull();
					expect(Math.abs((iv as number) - vol)).toBeLessThan(1e-6);
				}
			)
		);
		expect(solveImpliedVol(0, true, 100, 100, 0.1, r, q)).toBeNull();
		expect(solveImpliedVol(200, true, 100, 100, 0.1, r, q)).toBeNull();
	});

	it('every documented metric has a meaning', () => {
		for (const m of RESEARCH_METRICS) expect(parseMetric(m), m).toBeDefined();
	});
});
