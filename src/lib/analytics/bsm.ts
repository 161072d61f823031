/**
 * Black-Scholes-Merton for one option on one unit of underlying, with continuous rate r and
 * dividend yield q. Time is in years (calendar days / 365). Sensitivities are per unit of the
 * variable: vega per 1.00 of vol, vanna = dDelta/dVol per 1.00 of vol, charm = dDelta/dt as
 * calendar time passes (i.e. -dDelta/dT) per year, charmPerDay = charm / 365.
 *
 * d1 is assembled term by term (ln(S/K)/sd + (r-q)T/sd + sd/2, sd = sigma*sqrt T) rather than
 * from sigma^2 so a huge sigma cannot overflow into Infinity-Infinity. When the option has no
 * diffusion left (T <= 0, or sd below MIN_STDDEV) the explicit limit is returned: intrinsic
 * (forward-discounted) price, a step delta and zero gamma, vega, vanna and charm.
 */
import { normCdf, normPdf } from './normal';

/** Below this sigma*sqrt(T) the option is treated as having no time value left. */
export const MIN_STDDEV = 1e-12;
export const DAYS_PER_YEAR = 365;

export interface Greeks {
	price: number;
	delta: number;
	gamma: number;
	vega: number;
	vanna: number;
	/** dDelta/dt per year of calendar time. */
	charm: number;
	/** dDelta/dt per calendar day. */
	charmPerDay: number;
}

export function emptyGreeks(): Greeks {
	return { price: 0, delta: 0, gamma: 0, vega: 0, vanna: 0, charm: 0, charmPerDay: 0 };
}

/** d1 of BSM; caller guarantees sd = sigma*sqrt(T) > 0. */
export function bsmD1(
	spot: number,
	strike: number,
	t: number,
	sd: number,
	r: number,
	q: number
): number {
	return Math.log(spot / strike) / sd + ((r - q) * t) / sd + 0.5 * sd;
}

/** Option price. */
export function bsmPrice(
	isCall: boolean,
	spot: number,
	strike: number,
	t: number,
	sigma: number,
	r: number,
	q: number
): number {
	if (!(t > 0)) return Math.max(isCall ? spot - strike : strike - spot, 0);
	const dq = Math.exp(-q * t);
	const dr = Math.exp(-r * t);
	const sd = sigma * Math.sqrt(t);
	if (!(sd >= MIN_STDDEV))
		return Math.max(isCall ? spot * dq - strike * dr : strike * dr - spot * dq, 0);
	const d1 = bsmD1(spot, strike, t, sd, r, q);
	const d2 = d1 - sd;
	return isCall
		? spot * dq * normCdf(d1) - strike * dr * normCdf(d2)
		: strike * dr * normCdf(-d2) - spot * dq * normCdf(-d1);
}

/** Gamma alone (identical for calls and puts), the hot path of the zero-gamma profile. */
export function bsmGamma(
	spot: number,
	strike: number,
	t: number,
	sigma: number,
	r: number,
	q: number
): number {
	if (!(t > 0)) return 0;
	const sd = sigma * Math.sqrt(t);
	if (!(sd >= MIN_STDDEV)) return 0;
	const d1 = bsmD1(spot, strike, t, sd, r, q);
	return (Math.exp(-q * t) * normPdf(d1)) / (spot * sd);
}

/** Every greek at once; writes into `out` when given so hot loops do not allocate. */
export function bsmGreeks(
	isCall: boolean,
	spot: number,
	strike: number,
	t: number,
	sigma: number,
	r: number,
	q: number,
	out: Greeks = emptyGreeks()
): Greeks {
	out.gamma = 0;
	out.vega = 0;
	out.vanna = 0;
	out.charm = 0;
	out.charmPerDay = 0;
	if (!(t > 0)) {
		const diff = isCall ? spot - strike : strike - spot;
		out.price = Math.max(diff, 0);
		out.delta = stepDelta(isCall, spot, strike, 1);
		return out;
	}
	const dq = Math.exp(-q * t);
	const dr = Math.exp(-r * t);
	const sqrtT = Math.sqrt(t);
	const sd = sigma * sqrtT;
	if (!(sd >= MIN_STDDEV)) {
		const s = spot * dq;
		const k = strike * dr;
		out.price = Math.max(isCall ? s - k : k - s, 0);
		out.delta = stepDelta(isCall, s, k, dq);
		return out;
	}
	const d1 = bsmD1(spot, strike, t, sd, r, q);
	const d2 = d1 - sd;
	const pdf = normPdf(d1);
	const dqPdf = dq * pdf;
	if (isCall) {
		const n1 = normCdf(d1);
		out.price = spot * dq * n1 - strike * dr * normCdf(d2);
		out.delta = dq * n1;
		// charm = q e^{-qT} N(d1) - e^{-qT} phi(d1) [(r-q)/sd - d2/(2T)]
		out.charm = q * dq * n1 - dqPdf * ((r - q) / sd - d2 / (2 * t));
	} else {
		const n1m = normCdf(-d1);
		out.price = strike * dr * normCdf(-d2) - spot * dq * n1m;
		out.delta = -dq * n1m;
		out.charm = -q * dq * n1m - dqPdf * ((r - q) / sd - d2 / (2 * t));
	}
	out.gamma = dqPdf / (spot * sd);
	out.vega = spot * dqPdf * sqrtT;
	out.vanna = (-dqPdf * d2) / sigma;
	out.charmPerDay = out.charm / DAYS_PER_YEAR;
	return out;
}

/** Delta of an option with no diffusion left: full, none, or half exactly at the money. */
function stepDelta(isCall: boolean, s: number, k: number, dq: number): number {
	if (isCall) return s > k ? dq : s < k ? 0 : 0.5 * dq;
	return s < k ? -dq : s > k ? 0 : -0.5 * dq;
}
