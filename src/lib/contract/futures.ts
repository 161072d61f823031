/**
 * GET /v2/futures/conversion?ticker=SPX&future=ES: the documented ticker -> future pairs.
 * Any other pair is a 400. futures price = index level x multiplier + additive.
 */
import type { Outcome } from './outcome';

export const FUTURES_PAIRS: Readonly<Record<string, string>> = {
	SPX: 'ES',
	SPY: 'ES',
	NDX: 'NQ',
	QQQ: 'NQ',
	RUT: 'RTY',
	IWM: 'RTY',
	DIA: 'YM',
	GLD: 'GC',
	USO: 'CL'
};

export const FUTURE_ROOTS = ['ES', 'NQ', 'RTY', 'YM', 'GC', 'CL'] as const;
export type FutureRoot = (typeof FUTURE_ROOTS)[number];

/** Is (ticker, future) a served conversion pair? */
export function isFuturesPair(ticker: string, future: string): boolean {
	return Object.hasOwn(FUTURES_PAIRS, ticker) && FUTURES_PAIRS[ticker] === future;
}

/** Validates the query of the conversion route; returns the pair or a message for a 400. */
export function parseFuturesQuery(
	query: URLSearchParams
): Outcome<{ ticker: string; future: FutureRoot }> {
	const ticker = query.get('ticker');
	const future = query.get('future');
	if (!ticker || !future) {
		return { ok: false, error: 'Query parameters ticker and future are required.' };
	}
	if (!isFuturesPair(ticker, future)) {
		return { ok: false, error: `Unsupported ticker/future pair: ${ticker}/${future}.` };
	}
	return { ok: true, ticker, future: future as FutureRoot };
}
