import { parseWatchlist } from './watchlistTickers';
import type { PageLoad } from './$types';

/** The list lives in the URL (`?t=SPX,NDX`), so a share link opens the same watchlist. */
export const load = (({ url }) => ({
	watchlist: parseWatchlist(url.searchParams.get('t'))
})) satisfies PageLoad;
