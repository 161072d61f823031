/**
 * Every greek a research metric can name, for one option under Black-Scholes-Merton with rate r
 * and dividend yield q. Price, delta, gamma, vega, vanna and charm come from the analytics
 * engine; the higher orders research adds (theta, rho, vomma, speed, zomma, color, ultima) are
 * the closed forms of the same model, built on the engine's d1.
 *
 * Units (per one unit of underlying): vega per 1.00 of vol, theta per year, rho per 1.00 of
 * rate, vanna dDelta/dVol, charm and color per year of calendar time passing (-d/dT).
 */
import { bsmD1, bsmGreeks, emptyGreeks, MIN_STDDEV } from '../../../lib/analytics/bsm';
import { normCdf, normPdf } from '../../../lib/analytics/normal';

export interface FullGreeks {
	price: number;
	delta: number;
	gamma: number;
	vega: number;
	theta: number;
	rho: number;
	vanna: number;
	charm: number;
	vomma: number;
	speed: number;
	zomma: number;
	color: number;
	ultima: number;
}

export const GREEK_NAMES = [
	'delta',
	'gamma',
	'vega',
	'theta',
	'rho',
	'vanna',
	'charm',
	'vomma',
	'speed',
	'zomma',
	'color',
	'ultima'
] as const;
export type GreekName = (typeof GREEK_NAMES)[number];

const scratch = emptyGreeks();

export function fullGreeks(
	isCall: boolean,
	spot: number,
	strike: number,
	t: number,
	sigma: number,
	r: number,
	q: number
): FullGreeks {
	const g = bsmGreeks(isCall, spot, strike, t, sigma, r, q, scratch);
	const out: FullGreeks = {
		price: g.price,
		delta: g.delta,
		gamma: g.gamma,
		vega: g.vega,
		theta: 0,
		rho: 0,
		vanna: g.vanna,
		charm: g.charm,
		vomma: 0,
		speed: 0,
		zomma: 0,
		color: 0,
		ultima: 0
	};
	const sqrtT = Math.sqrt(Math.max(t, 0));
	const sd = sigma * sqrtT;
	if (!(t > 0) || !(sd >= MIN_STDDEV)) return out;
	const d1 = bsmD1(spot, strike, t, sd, r, q);
	const d2 = d1 - sd;
	const dq = Math.exp(-q * t);
	const dr = Math.exp(-r * t);
	const pdf = normPdf(d1);
	const decay = (-spot * dq * pdf * sigma) / (2 * sqrtT);
	if (isCall) {
		out.theta = decay - r * strike * dr * normCdf(d2) + q * spot * dq * normCdf(d1);
		out.rho = strike * t * dr * normCdf(d2);
	} else {
		out.theta = decay + r * strike * dr * normCdf(-d2) - q * spot * dq * normCdf(-d1);
		out.rho = -strike * t * dr * normCdf(-d2);
	}
	out.vomma = (g.vega * d1 * d2) / sigma;
	out.speed = (-g.gamma / spot) * (d1 / sd + 1);
	out.zomma = (g.gamma * (d1 * d2 - 1)) / sigma;
	out.color =
		((dq * pdf) / (2 * spot * t * sd)) * (2 * q * t + 1 + ((2 * (r - q) * t - d2 * sd) / sd) * d1);
	out.ultima = (-g.vega / (sigma * sigma)) * (d1 * d2 * (1 - d1 * d2) + d1 * d1 + d2 * d2);
	return out;
}
