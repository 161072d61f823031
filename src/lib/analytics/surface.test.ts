import { describe, expect, it } from 'vitest';
import {
	atmTotalVariance,
	calendarCheck,
	checkSsviSurface,
	durrlemanG,
	ivGrid,
	kGrid,
	powerLawPhi,
	ssviImpliedVol,
	ssviSliceIsButterflyFree,
	ssviSliceToSvi,
	ssviTotalVariance,
	ssviTotalVarianceAt,
	sviButterflyCheck,
	sviDerivatives,
	sviTotalVariance,
	type SsviSurface
} from './surface';

const surface: SsviSurface = {
	rho: -0.6,
	phi: { eta: 1.2, gamma: 0.4 },
	term: { expiries: [0.02, 0.1, 0.5, 1], totalVariance: [0.0008, 0.0036, 0.017, 0.035] }
};

describe('SVI', () => {
	const p = { a: 0.02, b: 0.1, rho: -0.5, m: 0.05, sigma: 0.2 };
	it('derivatives match finite differences', () => {
		for (const k of [-0.8, -0.1, 0, 0.3]) {
			const h = 1e-5;
			const d = sviDerivatives(p, k);
			expect(d.w).toBe(sviTotalVariance(p, k));
			expect(d.w1).toBeCloseTo(
				(sviTotalVariance(p, k + h) - sviTotalVariance(p, k - h)) / (2 * h),
				8
			);
			expect(d.w2).toBeCloseTo(
				(sviTotalVariance(p, k + h) - 2 * sviTotalVariance(p, k) + sviTotalVariance(p, k - h)) /
					(h * h),
				4
			);
		}
	});
	it('g(k) is 1 for a flat smile and the check flags a known arbitrage', () => {
		expect(durrlemanG(0.04, 0, 0, 0.3)).toBe(1);
		expect(sviButterflyCheck(p).ok).toBe(true);
		// Axel Vogt's example of an SVI slice with butterfly arbitrage.
		const vogt = { a: -0.041, b: 0.1331, rho: 0.306, m: 0.3586, sigma: 0.4153 };
		const bad = sviButterflyCheck(vogt, kGrid(-1.5, 1.5, 601));
		expect(bad.ok).toBe(false);
		expect(bad.minG).toBeLessThan(0);
	});
});

describe('SSVI', () => {
	it('at the money w equals theta, and the SVI form of a slice agrees everywhere', () => {
		const phi = powerLawPhi(surface.phi, 0.02);
		expect(ssviTotalVariance(-0.6, phi, 0.02, 0)).toBeCloseTo(0.02, 15);
		const svi = ssviSliceToSvi(-0.6, phi, 0.02);
		for (const k of kGrid(-1, 1, 21))
			expect(sviTotalVariance(svi, k)).toBeCloseTo(ssviTotalVariance(-0.6, phi, 0.02, k), 14);
	});
	it('term structure interpolates total variance and extrapolates flat vol', () => {
		expect(atmTotalVariance(surface.term, 0.1)).toBe(0.0036);
		expect(atmTotalVariance(surface.term, 0.3)).toBeCloseTo((0.0036 + 0.017) / 2, 15);
		expect(atmTotalVariance(surface.term, 0.01)).toBeCloseTo(0.0004, 15);
		expect(atmTotalVariance(surface.term, 2)).toBeCloseTo(0.07, 15);
	});
	it('an arbitrage-free surface passes butterfly and calendar checks', () => {
		const expiries = [0.005, 0.02, 0.05, 0.1, 0.25, 0.5, 1, 2];
		const report = checkSsviSurface(surface, expiries);
		expect(report.butterfly.ok).toBe(true);
		expect(report.calendar.ok).toBe(true);
		for (const t of expiries) {
			const theta = atmTotalVariance(surface.term, t);
			expect(ssviSliceIsButterflyFree(surface.rho, powerLawPhi(surface.phi, theta), theta)).toBe(
				true
			);
		}
	});
	it('the checks catch a steep slice and an inverted term structure', () => {
		const steep = ssviSliceToSvi(-0.9, 40, 0.05);
		expect(sviButterflyCheck(steep).ok).toBe(false);
		expect(ssviSliceIsButterflyFree(-0.9, 40, 0.05)).toBe(false);
		const inverted = calendarCheck((k, t) => (t < 0.5 ? 0.05 : 0.03) + 0 * k, [0.25, 1]);
		expect(inverted.ok).toBe(false);
		expect(inverted.worstDecrease).toBeCloseTo(-0.02, 15);
	});
	it('iv grid is sqrt(w / T) at log-moneyness against the forward', () => {
		const w = (k: number, t: number) => ssviTotalVarianceAt(surface, k, t);
		const grid = ivGrid(w, 5000, 0.05, 0.01, [4500, 5000, 5500], [0.1, 0.5]);
		expect(grid.iv.length).toBe(6);
		const k = Math.log(5500 / (5000 * Math.exp(0.04 * 0.5)));
		expect(grid.iv[1 * 3 + 2]).toBeCloseTo(Math.sqrt(w(k, 0.5) / 0.5), 15);
		expect(grid.iv[1 * 3 + 2]).toBeCloseTo(ssviImpliedVol(surface, k, 0.5), 15);
		// Skew: with rho < 0 the low strike has the higher vol.
		expect(grid.iv[0]).toBeGreaterThan(grid.iv[2]);
	});
});
