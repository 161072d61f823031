import { describe, expect, it } from 'vitest';
import {
	isOptionTicker,
	isQuantTicker,
	isStreamTicker,
	isTicker,
	quantTickersResponse,
	STOCKS,
	tickersResponse,
	underlyingOf
} from './tickers';

describe('ticker universe', () => {
	it('lists 53 stocks, 8 index series and 2 futures composites', () => {
		const t = tickersResponse();
		expect(STOCKS).toHaveLength(53);
		expect(new Set(t.stocks).size).toBe(53);
		expect(t.indexes).toEqual(['NDX', 'RUT', 'SPX', 'VIX', 'NDXP', 'RUTW', 'SPXW', 'VIXW']);
		expect(t.futures).toEqual(['ES_SPX', 'NQ_NDX']);
	});

	it('keeps quant tickers out of the REST universe', () => {
		const q = quantTickersResponse();
		expect(q.indexes).toEqual(['XSP']);
		for (const s of q.stocks) {
			expect(isTicker(s)).toBe(false);
			expect(isQuantTicker(s)).toBe(true);
			expect(isStreamTicker(s)).toBe(true);
		}
		expect(isTicker('XSP')).toBe(false);
	});

	it('is case-sensitive and rejects non-strings', () => {
		expect(isTicker('SPX')).toBe(true);
		expect(isTicker('spx')).toBe(false);
		expect(isTicker(42)).toBe(false);
		expect(isTicker('constructor')).toBe(false);
	});

	it('knows option-owning tickers and the underlying of variants', () => {
		expect(isOptionTicker('SPX')).toBe(true);
		expect(isOptionTicker('XSP')).toBe(true);
		expect(isOptionTicker('SPXW')).toBe(false);
		expect(underlyingOf('ES_SPX')).toBe('SPX');
		expect(underlyingOf('NQ_NDX')).toBe('NDX');
		expect(underlyingOf('AAPL')).toBe('AAPL');
	});
});
