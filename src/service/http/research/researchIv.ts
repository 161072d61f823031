/**
 * Implied volatility of one quote for research records, solved by the analytics engine. A quote
 * outside the no-arbitrage bounds, a zero bid or a price with no time value has no implied vol:
 * null, never NaN (research rows without a value are left out).
 */
import { impliedVol, ImpliedVolError } from '../../../lib/analytics/iv';

export function solveImpliedVol(
	price: number,
	isCall: boolean,
	spot: number,
	strike: number,
	t: number,
	r: number,
	q: number
): number | null {
	if (!(price > 0) || !(t > 0)) return null;
	try {
		const sigma = impliedVol(price, isCall, spot, strike, t, r, q);
		return sigma > 0 && Number.isFinite(sigma) ? sigma : null;
	} catch (err) {
		if (err instanceof ImpliedVolError) return null;
		throw err;
	}
}
