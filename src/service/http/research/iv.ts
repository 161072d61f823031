/**
 * Implied volatility of one quote for research records. Quotes outside the no-arbitrage
 * bounds (or a zero bid) have no implied vol: null, never NaN.
 */
import { bsmPrice } from '../../../lib/analytics/bsm';

const LOW = 1e-4;
const HIGH = 5;

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
	const lo = bsmPrice(isCall, spot, strike, t, LOW, r, q);
	const hi = bsmPrice(isCall, spot, strike, t, HIGH, r, q);
	if (price <= lo || price >= hi) return null;
	let a = LOW;
	let b = HIGH;
	// Bisection on the monotone price(sigma): 60 halvings reach 1e-17 relative width.
	for (let i = 0; i < 60; i++) {
		const m = 0.5 * (a + b);
		if (bsmPrice(isCall, spot, strike, t, m, r, q) < price) a = m;
		else b = m;
	}
	return 0.5 * (a + b);
}
