/**
 * Tells the dashboard server which watchlist was opened: until a list is saved on the Account
 * page, the server records these tickers even when no tab is open (POST /recording/watchlist,
 * CSRF double-submit header). Best effort: the page works the same if the report fails.
 */
import { appHref } from '$lib/state/links';

export async function reportWatchlist(tickers: readonly string[], csrf: string): Promise<void> {
	await fetch(appHref('/recording/watchlist'), {
		method: 'POST',
		headers: { 'content-type': 'application/json', 'x-csrf-token': csrf },
		body: JSON.stringify({ tickers })
	}).catch(() => undefined);
}
