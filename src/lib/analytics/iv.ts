/**
 * Implied volatility from an option price.
 *
 * The price is first moved to the out-of-the-money side by put-call parity (the OTM option holds
 * all the time value, so nothing cancels), then checked against the no-arbitrage bounds
 * (0 < OTM price < its upper bound; a price outside is an error, not a NaN). The solve is a
 * Newton iteration on ln(price) in sigma (well scaled even for prices of 1e-20) kept inside a
 * shrinking bracket [lo, hi], falling back to bisection whenever a step leaves the bracket.
 */
import { bsmD1, bsmPrice } from './bsm';
import { normPdf } from './normal';

export class ImpliedVolError extends RangeError {
	constructor(message: string) {
		super(message);
		this.name = 'ImpliedVolError';
	}
}

const MAX_VOL = 20;
const MAX_ITERATIONS = 200;

/** Price and vega of the OTM-side option, relative-accurate in the tails. */
function otmPriceVega(
	isCall: boolean,
	spot: number,
	strike: number,
	t: number,
	sigma: number,
	r: number,
	q: number
) {
	const price = bsmPrice(isCall, spot, strike, t, sigma, r, q);
	const sqrtT = Math.sqrt(t);
	const sd = sigma * sqrtT;
	const d1 = bsmD1(spot, strike, t, sd, r, q);
	const vega = spot * Math.exp(-q * t) * normPdf(d1) * sqrtT;
	return { price, vega };
}

/**
 * sigma such that the BSM price equals `price`. Throws ImpliedVolError when the price is outside
 * the no-arbitrage bounds or the inputs are not finite and positive. A price equal to the
 * intrinsic (discounted forward) value returns 0.
 */
export function impliedVol(
	price: number,
	isCall: boolean,
	spot: number,
	strike: number,
	t: number,
	r: number,
	q: number
): number {
	if (![price, spot, strike, t, r, q].every(Number.isFinite))
		throw new ImpliedVolError('implied vol: inputs must be finite');
	if (!(spot > 0) || !(strike > 0))
		throw new ImpliedVolError('implied vol: spot and strike must be positive');
	if (!(t > 0)) throw new ImpliedVolError('implied vol: time to expiry must be positive');
	const s = spot * Math.exp(-q * t);
	const k = strike * Math.exp(-r * t);
	// OTM side: a call when the forward is below the strike, else a put.
	const otmCall = s < k;
	const otmPrice = isCall === otmCall ? price : isCall ? price - (s - k) : price + (s - k);
	const upper = otmCall ? s : k;
	const lowerBound = Math.max(isCall ? s - k : k - s, 0);
	const slack = 4 * Number.EPSILON * Math.max(price, s, k);
	if (price < lowerBound - slack)
		throw new ImpliedVolError(
			`implied vol: price ${price} is below the no-arbitrage bound ${lowerBound}`
		);
	if (!(otmPrice < upper))
		throw new ImpliedVolError(
			`implied vol: price ${price} is at or above the no-arbitrage bound ${isCall ? s : k}`
		);
	if (otmPrice <= slack) return 0;

	const target = Math.log(otmPrice);
	let lo = 0;
	let hi = 1;
	while (bsmPrice(otmCall, spot, strike, t, hi, r, q) < otmPrice) {
		lo = hi;
		hi *= 2;
		if (hi > MAX_VOL)
			throw new ImpliedVolError(`implied vol: price ${price} needs a volatility above ${MAX_VOL}`);
	}
	// Start at the inflection point of price in sigma when it lies inside the bracket.
	const inflection = Math.sqrt((2 * Math.abs(Math.log(s / k))) / t);
	let sigma = inflection > lo && inflection < hi ? inflection : 0.5 * (lo + hi);
	for (let it = 0; it < MAX_ITERATIONS; it++) {
		const { price: p, vega } = otmPriceVega(otmCall, spot, strike, t, sigma, r, q);
		if (p === otmPrice) return sigma;
		if (p < otmPrice) lo = sigma;
		else hi = sigma;
		let next: number;
		if (p > 0 && vega > 0) {
			// Newton on ln(price): step = (ln target - ln p) * p / vega.
			next = sigma + ((target - Math.log(p)) * p) / vega;
		} else {
			next = NaN;
		}
		if (!(next > lo && next < hi)) next = 0.5 * (lo + hi);
		if (Math.abs(next - sigma) <= 1e-15 * sigma || hi - lo <= 4 * Number.EPSILON * hi) return next;
		sigma = next;
	}
	return sigma;
}
