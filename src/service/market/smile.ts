/**
 * Implied volatility of every contract, every second: an SSVI surface per ticker-day whose ATM
 * level follows spot (vol rises as an index falls) plus a slow random drift. Index smiles carry a
 * strong negative skew (rho about -0.7); stocks are flatter and their expiries after an earnings
 * date carry the event's extra variance (the term-structure hump).
 */
import { powerLawPhi, ssviTotalVariance } from '../../lib/analytics/surface';
import { RISK_FREE_RATE } from './universe';
import type { ChainDay } from './chainDay';
import { Rng } from './prng';
import { SESSION_SECONDS, sessionOpenMs } from './clock';

export interface SmileDay {
	/** ATM vol per expiry at the open. */
	atmVol: Float64Array;
	rho: number;
	eta: number;
	gamma: number;
	/** Spot-vol elasticity: d ln(ATM vol) / d ln(spot). */
	spotVolBeta: number;
	/** Slow multiplicative drift of the whole surface, one value per second. */
	drift: Float32Array;
	logStrike: Float64Array;
}

export function buildSmile(seed: number, chain: ChainDay): SmileDay {
	const model = chain.model;
	const rng = new Rng(`${seed}|${chain.ticker}|${chain.date}|smile`);
	const level = model.vol * Math.exp(0.12 * rng.normal());
	const atmVol = new Float64Array(chain.expiries.length);
	const openMs = sessionOpenMs(chain.date);
	chain.expiries.forEach((_, e) => {
		const days = Math.max((chain.expiryMs[e] - openMs) / 86_400_000, 0) + 0.3;
		// Index term structure in contango, short-dated vol slightly lower, except a 0DTE premium.
		const term = model.kind === 'index' ? 0.88 + 0.12 * Math.min(1, Math.sqrt(days / 60)) : 1;
		atmVol[e] = level * term * (1 + 0.03 * rng.normal());
	});
	const drift = new Float32Array(SESSION_SECONDS + 1);
	let x = 0;
	for (let i = 0; i < drift.length; i++) {
		x += -x / 5400 + 0.0009 * rng.normal();
		drift[i] = Math.exp(x);
	}
	const logStrike = new Float64Array(chain.n);
	for (let c = 0; c < chain.n; c++) logStrike[c] = Math.log(chain.strike[c]);
	const isIndex = model.kind === 'index';
	return {
		atmVol,
		rho: model.rho,
		eta: isIndex ? 1.1 : 0.7,
		gamma: 0.45,
		spotVolBeta: chain.ticker === 'VIX' ? 0.4 : isIndex ? -4 : model.kind === 'etf' ? -2.5 : -1.2,
		drift,
		logStrike
	};
}

/** Per-expiry SSVI terms of one second, shared by the whole-chain and the single-contract paths. */
export interface SliceTerms {
	theta: number;
	phi: number;
	lnF: number;
	years: number;
}

export function sliceTerms(
	smile: SmileDay,
	chain: ChainDay,
	expiry: number,
	tick: number,
	spot: number,
	years: number
): SliceTerms {
	const mult = Math.exp(smile.spotVolBeta * Math.log(spot / chain.refSpot)) * smile.drift[tick];
	const vol = smile.atmVol[expiry] * mult;
	const theta = vol * vol * years + chain.expiryEventVariance[expiry];
	const phi = powerLawPhi(smile, theta);
	const lnF = Math.log(spot) + (RISK_FREE_RATE - chain.model.dividendYield) * years;
	return { theta, phi, lnF, years };
}

/**
 * SSVI implied vol of one contract: w(k) = theta/2 (1 + rho phi k + sqrt((phi k + rho)^2 + 1 -
 * rho^2)), phi(theta) = eta / (theta^gamma (1 + theta)^(1 - gamma)), free of butterfly
 * arbitrage for eta (1 + |rho|) <= 2. Clamped to [1%, 500%].
 */
export function contractVol(smile: SmileDay, terms: SliceTerms, contract: number): number {
	const k = smile.logStrike[contract] - terms.lnF;
	const w = ssviTotalVariance(smile.rho, terms.phi, terms.theta, k);
	const v = Math.sqrt(w / terms.years);
	return v < 0.01 ? 0.01 : v > 5 ? 5 : v;
}

/** Fills `iv[c]` for every contract at `tick`; `years[c]` is each contract's time to expiry. */
export function fillImpliedVols(
	smile: SmileDay,
	chain: ChainDay,
	tick: number,
	spot: number,
	years: Float64Array,
	iv: Float64Array
): void {
	for (let e = 0; e < chain.expiries.length; e++) {
		const start = chain.expiryStart[e];
		const end = chain.expiryStart[e + 1];
		if (start === end) continue;
		const terms = sliceTerms(smile, chain, e, tick, spot, years[start]);
		for (let c = start; c < end; c++) iv[c] = contractVol(smile, terms, c);
	}
}
