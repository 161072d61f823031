import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { erf, erfc, normCdf, normPdf } from './normal';

/** erfc values from an independent implementation (CPython's math.erfc). */
const ERFC_REFERENCE: [number, number][] = [
	[0, 1],
	[0.25, 0.7236736098317631],
	[0.5, 0.4795001221869535],
	[1, 0.15729920705028513],
	[2, 0.004677734981047266],
	[3.5, 7.430983723414128e-7],
	[5, 1.5374597944280347e-12],
	[10, 2.088487583762545e-45],
	[20, 5.395865611607901e-176],
	[-1, 1.8427007929497148]
];

describe('erfc / normCdf', () => {
	it('matches reference erfc to ~1e-15 relative', () => {
		for (const [x, want] of ERFC_REFERENCE) {
			expect(Math.abs(erfc(x) - want) / want).toBeLessThan(2e-15);
		}
	});

	it('normCdf hits textbook values', () => {
		expect(normCdf(0)).toBe(0.5);
		expect(normCdf(1.959963984540054)).toBeCloseTo(0.975, 15);
		// Lower tail keeps relative precision where 1 - N(-x) would give 0.
		expect(normCdf(-10) / 7.619853024160527e-24 - 1).toBeLessThan(1e-13);
		expect(normCdf(-37)).toBeGreaterThan(0);
	});

	it('is symmetric, monotone and consistent with erf', () => {
		fc.assert(
			fc.property(fc.double({ min: -30, max: 30, noNaN: true }), (x) => {
				expect(Math.abs(normCdf(x) + normCdf(-x) - 1)).toBeLessThan(2e-16);
				expect(normCdf(x + 1e-3)).toBeGreaterThanOrEqual(normCdf(x));
				expect(Math.abs(erf(x) + erfc(x) - 1)).toBeLessThan(3e-16);
			})
		);
	});

	it('density integrates to the distribution (Simpson on [-8, x])', () => {
		for (const x of [-3, -0.7, 0.4, 2.2]) {
			const n = 2000;
			const a = -8;
			const h = (x - a) / n;
			let s = normPdf(a) + normPdf(x);
			for (let i = 1; i < n; i++) s += (i % 2 ? 4 : 2) * normPdf(a + i * h);
			expect(Math.abs((s * h) / 3 + normCdf(-8) - normCdf(x))).toBeLessThan(1e-12);
		}
	});
});
