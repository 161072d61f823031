/**
 * Implied volatility surfaces in total implied variance w(k) = sigma^2 T against log-moneyness
 * k = ln(K / F), F = S e^{(r - q) T}.
 *
 * - SVI raw (Gatheral 2004): w(k) = a + b (rho (k - m) + sqrt((k - m)^2 + s^2)), one slice.
 * - SSVI (Gatheral & Jacquier 2014): w(k, theta) = theta/2 (1 + rho phi k + sqrt((phi k + rho)^2
 *   + 1 - rho^2)), theta = ATM total variance of the expiry, phi(theta) power-law
 *   eta / (theta^gamma (1 + theta)^(1 - gamma)).
 * No-arbitrage checks: butterfly (Durrleman's g(k) >= 0 on a k grid, where a negative g means a
 * negative risk-neutral density) and calendar (w non-decreasing in T at every k).
 */

export interface SviParams {
	a: number;
	b: number;
	rho: number;
	m: number;
	sigma: number;
}

export function sviTotalVariance(p: SviParams, k: number): number {
	const x = k - p.m;
	return p.a + p.b * (p.rho * x + Math.sqrt(x * x + p.sigma * p.sigma));
}

/** w, dw/dk and d2w/dk2 of an SVI slice. */
export function sviDerivatives(p: SviParams, k: number): { w: number; w1: number; w2: number } {
	const x = k - p.m;
	const r = Math.sqrt(x * x + p.sigma * p.sigma);
	return {
		w: p.a + p.b * (p.rho * x + r),
		w1: p.b * (p.rho + x / r),
		w2: (p.b * p.sigma * p.sigma) / (r * r * r)
	};
}

/** Durrleman's g(k); the slice is free of butterfly arbitrage where g >= 0 (and w > 0). */
export function durrlemanG(w: number, w1: number, w2: number, k: number): number {
	const t = 1 - (k * w1) / (2 * w);
	return t * t - ((w1 * w1) / 4) * (1 / w + 0.25) + w2 / 2;
}

export interface PowerLawPhi {
	eta: number;
	gamma: number;
}

/** phi(theta) = eta / (theta^gamma (1 + theta)^(1 - gamma)). */
export function powerLawPhi(phi: PowerLawPhi, theta: number): number {
	return phi.eta / (Math.pow(theta, phi.gamma) * Math.pow(1 + theta, 1 - phi.gamma));
}

/** ATM total variance theta(T) at listed expiries; linear in between, flat vol outside. */
export interface AtmTermStructure {
	expiries: ArrayLike<number>;
	totalVariance: ArrayLike<number>;
}

export function atmTotalVariance(term: AtmTermStructure, t: number): number {
	const { expiries: ts, totalVariance: ws } = term;
	const n = ts.length;
	if (n === 0) throw new RangeError('atmTotalVariance: empty term structure');
	if (t <= ts[0]) return (ws[0] / ts[0]) * t;
	if (t >= ts[n - 1]) return (ws[n - 1] / ts[n - 1]) * t;
	let i = 1;
	while (ts[i] < t) i++;
	const f = (t - ts[i - 1]) / (ts[i] - ts[i - 1]);
	return ws[i - 1] + f * (ws[i] - ws[i - 1]);
}

export interface SsviSurface {
	rho: number;
	phi: PowerLawPhi;
	term: AtmTermStructure;
}

/** SSVI total variance at log-moneyness k for ATM total variance theta. */
export function ssviTotalVariance(rho: number, phi: number, theta: number, k: number): number {
	const x = phi * k + rho;
	return 0.5 * theta * (1 + rho * phi * k + Math.sqrt(x * x + 1 - rho * rho));
}

/** The SSVI slice at theta as SVI raw parameters (same w for every k). */
export function ssviSliceToSvi(rho: number, phi: number, theta: number): SviParams {
	const root = Math.sqrt(1 - rho * rho);
	return {
		a: 0.5 * theta * (1 - rho * rho),
		b: 0.5 * theta * phi,
		rho,
		m: -rho / phi,
		sigma: root / phi
	};
}

/** Implied vol of the surface at log-moneyness k and time t (years). */
export function ssviImpliedVol(surface: SsviSurface, k: number, t: number): number {
	const theta = atmTotalVariance(surface.term, t);
	const w = ssviTotalVariance(surface.rho, powerLawPhi(surface.phi, theta), theta, k);
	return Math.sqrt(Math.max(w, 0) / t);
}

/** Implied vol of an SVI slice for expiry t. */
export function sviImpliedVol(p: SviParams, k: number, t: number): number {
	return Math.sqrt(Math.max(sviTotalVariance(p, k), 0) / t);
}

export interface ButterflyCheck {
	ok: boolean;
	/** Smallest g(k) on the grid and where. */
	minG: number;
	atK: number;
}

/** Evenly spaced log-moneyness grid. */
export function kGrid(from = -1.5, to = 1.5, points = 301): Float64Array {
	const out = new Float64Array(points);
	for (let i = 0; i < points; i++) out[i] = from + ((to - from) * i) / (points - 1);
	return out;
}

export function sviButterflyCheck(p: SviParams, ks: ArrayLike<number> = kGrid()): ButterflyCheck {
	let minG = Infinity;
	let atK = NaN;
	for (let i = 0; i < ks.length; i++) {
		const { w, w1, w2 } = sviDerivatives(p, ks[i]);
		const g = w > 0 ? durrlemanG(w, w1, w2, ks[i]) : -Infinity;
		if (g < minG) {
			minG = g;
			atK = ks[i];
		}
	}
	return { ok: minG >= -1e-12, minG, atK };
}

/**
 * Gatheral-Jacquier sufficient conditions for an SSVI slice to be free of butterfly arbitrage:
 * theta phi (1 + |rho|) < 4 and theta phi^2 (1 + |rho|) <= 4.
 */
export function ssviSliceIsButterflyFree(rho: number, phi: number, theta: number): boolean {
	const r = 1 + Math.abs(rho);
	return theta * phi * r < 4 && theta * phi * phi * r <= 4;
}

export interface CalendarCheck {
	ok: boolean;
	/** Most negative w(k, T_{i+1}) - w(k, T_i) found, with where. */
	worstDecrease: number;
	atK: number;
	atExpiry: number;
}

/** Calendar check of any surface given as total variance w(k, t) over a k grid and expiries. */
export function calendarCheck(
	totalVariance: (k: number, t: number) => number,
	expiries: ArrayLike<number>,
	ks: ArrayLike<number> = kGrid()
): CalendarCheck {
	let worst = 0;
	let atK = NaN;
	let atExpiry = NaN;
	for (let j = 1; j < expiries.length; j++) {
		for (let i = 0; i < ks.length; i++) {
			const d = totalVariance(ks[i], expiries[j]) - totalVariance(ks[i], expiries[j - 1]);
			if (d < worst) {
				worst = d;
				atK = ks[i];
				atExpiry = expiries[j];
			}
		}
	}
	return { ok: worst >= -1e-14, worstDecrease: worst, atK, atExpiry };
}

export function ssviTotalVarianceAt(surface: SsviSurface, k: number, t: number): number {
	const theta = atmTotalVariance(surface.term, t);
	return ssviTotalVariance(surface.rho, powerLawPhi(surface.phi, theta), theta, k);
}

export interface SurfaceReport {
	butterfly: ButterflyCheck;
	calendar: CalendarCheck;
}

/** Butterfly (numeric g on every expiry's slice) and calendar checks of an SSVI surface. */
export function checkSsviSurface(
	surface: SsviSurface,
	expiries: ArrayLike<number>,
	ks: ArrayLike<number> = kGrid()
): SurfaceReport {
	let butterfly: ButterflyCheck = { ok: true, minG: Infinity, atK: NaN };
	for (let j = 0; j < expiries.length; j++) {
		const theta = atmTotalVariance(surface.term, expiries[j]);
		const slice = ssviSliceToSvi(surface.rho, powerLawPhi(surface.phi, theta), theta);
		const b = sviButterflyCheck(slice, ks);
		if (b.minG < butterfly.minG) butterfly = b;
	}
	return {
		butterfly,
		calendar: calendarCheck((k, t) => ssviTotalVarianceAt(surface, k, t), expiries, ks)
	};
}

export interface IvGrid {
	strikes: Float64Array;
	expiries: Float64Array;
	/** Row-major: iv[e * strikes.length + s]. */
	iv: Float64Array;
}

/** Implied vol on a strike x expiry grid from a surface given as total variance w(k, t). */
export function ivGrid(
	totalVariance: (k: number, t: number) => number,
	spot: number,
	rate: number,
	dividendYield: number,
	strikes: ArrayLike<number>,
	expiries: ArrayLike<number>
): IvGrid {
	const ns = strikes.length;
	const iv = new Float64Array(ns * expiries.length);
	for (let e = 0; e < expiries.length; e++) {
		const t = expiries[e];
		const lnF = Math.log(spot) + (rate - dividendYield) * t;
		for (let s = 0; s < ns; s++) {
			const w = totalVariance(Math.log(strikes[s]) - lnF, t);
			iv[e * ns + s] = Math.sqrt(Math.max(w, 0) / t);
		}
	}
	return { strikes: Float64Array.from(strikes), expiries: Float64Array.from(expiries), iv };
}
