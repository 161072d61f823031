import { describe, expect, it } from 'vitest';
import { ssviSliceIsButterflyFree } from '../../lib/analytics/surface';
import { buildChain } from './chainDay';
import { etToUtc } from './clock';
import { buildSmile, contractVol, sliceTerms } from './smile';

const DATE = '2026-11-18';

function slices(ticker: string) {
	const chain = buildChain(4, ticker, DATE);
	const smile = buildSmile(4, chain);
	const open = etToUtc(DATE, 9, 30);
	return chain.expiries.map((_, e) => {
		const years = (chain.expiryMs[e] - open) / (365 * 86_400_000) + 1 / 365;
		const terms = sliceTerms(smile, chain, e, 0, chain.refSpot, years);
		const ivAt = (moneyness: number) =>
			contractVol(
				{ ...smile, logStrike: Float64Array.of(Math.log(chain.refSpot * moneyness)) },
				terms,
				0
			);
		return { terms, smile, ivAt };
	});
}

describe('SSVI smiles', () => {
	it('skew negatively for an index: the 10% OTM put is far richer than the 10% OTM call', () => {
		for (const { ivAt } of slices('SPX').slice(5))
			expect(ivAt(0.9)).toBeGreaterThan(ivAt(1.1) + 0.03);
	});

	it('are flatter for a stock than for the index', () => {
		const spx = slices('SPX')[8];
		const stock = slices('AAPL')[4];
		const skew = (s: typeof spx) => (s.ivAt(0.9) - s.ivAt(1.1)) / s.ivAt(1);
		expect(skew(stock)).toBeLessThan(skew(spx));
	});

	it('are free of butterfly arbitrage and calendar-increasing at the money', () => {
		for (const ticker of ['SPX', 'TSLA', 'VIX']) {
			let previous = 0;
			for (const { terms, smile } of slices(ticker)) {
				expect(ssviSliceIsButterflyFree(smile.rho, terms.phi, terms.theta)).toBe(true);
				expect(terms.theta).toBeGreaterThanOrEqual(previous);
				previous = terms.theta;
			}
		}
	});
});
