/**
 * The watchlist's URL state: `?t=SPX,NDX,...`, at most WATCHLIST_MAX_TICKERS streamable tickers,
 * upper-cased, without repeats. Unknown symbols are dropped and named, so a mistyped share link
 * still opens.
 */
import { isStreamTicker } from '$lib/contract/tickers';
import { WATCHLIST_MAX_TICKERS } from '$lib/stream';

export const DEFAULT_WATCHLIST = ['SPX', 'NDX', 'RUT', 'SPY', 'QQQ'];

export interface WatchlistState {
	tickers: string[];
	/** Symbols of the URL that were dropped (unknown, repeated or over the limit), with why. */
	dropped: string[];
}

export function parseWatchlist(param: string | null): WatchlistState {
	if (param === null) return { tickers: [...DEFAULT_WATCHLIST], dropped: [] };
	const tickers: string[] = [];
	const dropped: string[] = [];
	for (const raw of param.split(',')) {
		const t = raw.trim().toUpperCase();
		if (!t || tickers.includes(t)) continue;
		if (!isStreamTicker(t)) dropped.push(`${t} (unknown ticker)`);
		else if (tickers.length >= WATCHLIST_MAX_TICKERS)
			dropped.push(`${t} (over ${WATCHLIST_MAX_TICKERS})`);
		else tickers.push(t);
	}
	return { tickers, dropped };
}

export function watchlistUrl(tickers: readonly string[]): string {
	return `/watchlist?t=${tickers.join(',')}`;
}
