/**
 * POST /recording/watchlist {"tickers": [...]}: the watchlist page reports the list it opened,
 * so the server records those tickers even when no tab is open, until the user saves a list on
 * their Account page. Each user's last watchlist is their own (userRecording.ts). Behind the gate like every route, and state-changing, so it needs the CSRF
 * header (hooks.server.ts). Answers the always-record list in effect and why.
 */
import { json } from '@sveltejs/kit';
import { IMPLICIT_OWNER } from '$lib/server/alerts/store';
import { rememberWatchlist } from '$lib/server/recorder/recorderMount';
import type { RequestHandler } from './$types';

const refuse = (status: number, error: string) =>
	json({ error }, { status, headers: { 'cache-control': 'no-store' } });

export const POST: RequestHandler = async ({ request, locals }) => {
	let body: unknown;
	try {
		body = await request.json();
	} catch {
		return refuse(400, 'The body must be JSON: {"tickers": ["SPX", ...]}.');
	}
	const tickers = (body as { tickers?: unknown } | null)?.tickers;
	if (!Array.isArray(tickers) || !tickers.every((t) => typeof t === 'string')) {
		return refuse(400, 'tickers must be an array of ticker symbols.');
	}
	try {
		return json(await rememberWatchlist(locals.user?.id ?? IMPLICIT_OWNER, tickers), {
			headers: { 'cache-control': 'no-store' }
		});
	} catch (err) {
		if (err instanceof RangeError) return refuse(400, err.message);
		// The database refused the write: the previous list stays in effect.
		return refuse(507, `Not saved: ${(err as Error).message}`);
	}
};
