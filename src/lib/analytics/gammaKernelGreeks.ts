/**
 * The greeks the gamma kernel writes for each selected contract in its one pass over the chain
 * (./gammaKernel.ts): the closed forms with the kernel's per-expiry constants (the same values
 * computeGreeks gives), and bsmGreeks' limits for a contract with no diffusion left.
 */
import { DAYS_PER_YEAR } from './bsm';
import type { GreekArrays } from './greeks';
import { normCdf } from './normal';

export const INV_SQRT_2PI = 0.3989422804014327;

/**
 * Writes contract i's price and greeks into `g` from its d1 and its expiry's constants
 * (sd = sigma sqrt(T), dq and dr the dividend and rate discounts). Positional arguments: this
 * runs for every contract every second, and an object per call would be garbage.
 */
export function writeGreeks(
	g: GreekArrays,
	i: number,
	call: boolean,
	d1: number,
	spot: number,
	strike: number,
	t: number,
	sigma: number,
	sd: number,
	sqrtT: number,
	r: number,
	q: number,
	dq: number,
	dr: number
): void {
	const dqPdf = dq * INV_SQRT_2PI * Math.exp(-0.5 * d1 * d1);
	const d2 = d1 - sd;
	const n1 = normCdf(call ? d1 : -d1);
	const n2 = normCdf(call ? d2 : -d2);
	const charm = (call ? q * dq * n1 : -q * dq * n1) - dqPdf * ((r - q) / sd - d2 / (2 * t));
	g.price[i] = call ? spot * dq * n1 - strike * dr * n2 : strike * dr * n2 - spot * dq * n1;
	g.delta[i] = call ? dq * n1 : -dq * n1;
	g.gamma[i] = dqPdf / (spot * sd);
	g.vega[i] = spot * dqPdf * sqrtT;
	g.vanna[i] = (-dqPdf * d2) / sigma;
	g.charm[i] = charm;
	g.charmPerDay[i] = charm / DAYS_PER_YEAR;
}

/** bsmGreeks' limits for a contract with no diffusion left. */
export function noDiffusion(
	g: GreekArrays,
	i: number,
	call: boolean,
	spot: number,
	strike: number,
	t: number,
	dq: number,
	dr: number
): void {
	g.gamma[i] = 0;
	g.vega[i] = 0;
	g.vanna[i] = 0;
	g.charm[i] = 0;
	g.charmPerDay[i] = 0;
	const s = t > 0 ? spot * dq : spot;
	const k = t > 0 ? strike * dr : strike;
	const f = t > 0 ? dq : 1;
	g.price[i] = Math.max(call ? s - k : k - s, 0);
	g.delta[i] = call ? (s > k ? f : s < k ? 0 : 0.5 * f) : s < k ? -f : s > k ? 0 : -0.5 * f;
}
