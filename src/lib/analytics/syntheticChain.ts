/**
 * A deterministic SPX-like option chain for benchmarks, tests and demos: 25 expiries from a
 * 0DTE with a few hours left to three months, strikes every 5 points within +-8% of spot and
 * every 25 points in the wings, a skewed smile, open interest peaked at the money and at round
 * strikes, volume concentrated in the front expiries. About 12,000 contracts.
 */
import { createChainArrays, type ChainArrays } from './chain';

export interface SyntheticChainOptions {
	spot?: number;
	rate?: number;
	dividendYield?: number;
	/** Hours left in the 0DTE session. */
	zeroDteHours?: number;
	/** Give calls and puts at a strike different IVs (as real feeds do); default true. */
	splitCallPutIv?: boolean;
	seed?: number;
}

export const SYNTHETIC_EXPIRY_DAYS = [
	0, 1, 2, 3, 4, 7, 8, 9, 10, 11, 14, 16, 18, 21, 25, 28, 35, 42, 49, 56, 63, 70, 77, 84, 91
];

/** Small fast deterministic PRNG (mulberry32). */
export function mulberry32(seed: number): () => number {
	let a = seed >>> 0;
	return () => {
		a = (a + 0x6d2b79f5) >>> 0;
		let t = a;
		t = Math.imul(t ^ (t >>> 15), t | 1);
		t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
		return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
	};
}

export function syntheticStrikes(spot: number): number[] {
	const strikes: number[] = [];
	const round = (x: number, step: number) => Math.round(x / step) * step;
	for (let k = round(spot * 0.7, 25); k < spot * 0.92; k += 25) strikes.push(k);
	for (let k = round(spot * 0.92, 5); k <= spot * 1.08; k += 5)
		if (k > (strikes.at(-1) ?? 0)) strikes.push(k);
	for (let k = round(spot * 1.08, 25) + 25; k <= spot * 1.25; k += 25) strikes.push(k);
	return strikes;
}

export function syntheticChain(options: SyntheticChainOptions = {}): ChainArrays {
	const spot = options.spot ?? 5000;
	const rand = mulberry32(options.seed ?? 20240621);
	const strikes = syntheticStrikes(spot);
	const expiries = SYNTHETIC_EXPIRY_DAYS.map(
		(d) => (d === 0 ? (options.zeroDteHours ?? 5) / 24 : d + 0.27) / 365
	);
	const n = strikes.length * expiries.length * 2;
	const chain = createChainArrays(n, {
		spot,
		rate: options.rate ?? 0.05,
		dividendYield: options.dividendYield ?? 0.013,
		contractSize: 100
	});
	const split = options.splitCallPutIv ?? true;
	let i = 0;
	for (let e = 0; e < expiries.length; e++) {
		const t = expiries[e];
		const base = 0.13 + 0.05 * Math.exp(-t * 40);
		const front = Math.exp(-t * 25);
		for (const k of strikes) {
			const x = Math.log(k / spot) / Math.sqrt(Math.max(t, 1 / 365));
			const smile = Math.min(1.5, Math.max(0.05, base * (1 - 0.9 * x + 1.6 * x * x)));
			const roundness = k % 100 === 0 ? 3 : k % 25 === 0 ? 1.8 : 1;
			const atm = Math.exp(-(x * x) / (2 * 0.12 * 0.12)) + 0.05 * Math.exp(-(x * x) / 2);
			for (let side = 0; side < 2; side++) {
				const isCall = side === 0;
				chain.strike[i] = k;
				chain.expiryYears[i] = t;
				chain.iv[i] = split
					? smile * (isCall ? 0.995 + 0.01 * rand() : 1.0 + 0.01 * rand())
					: smile;
				chain.isCall[i] = isCall ? 1 : 0;
				// Puts carry more OI below spot, calls above: the usual SPX shape.
				const tilt = isCall ? (k >= spot ? 1.2 : 0.6) : k <= spot ? 1.5 : 0.5;
				chain.openInterest[i] = Math.round(
					4000 * atm * roundness * tilt * (0.5 + rand()) * (0.4 + 0.6 * (1 - front))
				);
				chain.volume[i] = Math.round(3000 * atm * roundness * (0.3 + rand()) * (0.1 + 2 * front));
				i++;
			}
		}
	}
	return chain;
}
