import { describe, expect, it } from 'vitest';
import { ALL_STREAM_TICKERS } from '$lib/contract/tickers';
import { DEFAULT_WATCHLIST, parseWatchlist, watchlistUrl } from './watchlistTickers';

describe('parseWatchlist', () => {
	it('defaults when the URL has no list', () => {
		expect(parseWatchlist(null)).toEqual({ tickers: DEFAULT_WATCHLIST, dropped: [] });
	});

	it('upper-cases, drops repeats and names unknown symbols', () => {
		expect(parseWatchlist('spx, NDX,spx,,NOPE')).toEqual({
			tickers: ['SPX', 'NDX'],
			dropped: ['NOPE (unknown ticker)']
		});
	});

	it('keeps at most 20 tickers', () => {
		const many = ALL_STREAM_TICKERS.slice(0, 25);
		const { tickers, dropped } = parseWatchlist(many.join(','));
		expect(tickers).toEqual(many.slice(0, 20));
		expect(dropped).toEqual(many.slice(20).map((t) => `${t} (over 20)`));
		expect(parseWatchlist(watchlistUrl(tickers).split('t=')[1]).tickers).toEqual(tickers);
	});
});
