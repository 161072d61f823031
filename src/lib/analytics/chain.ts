/**
 * The option chain as a struct of typed arrays: the engine recomputes a whole index chain every
 * second, so contracts live in flat Float64Arrays that the hot loops read without allocating.
 * Every contract shares the chain's spot, rate, dividend yield and contract size.
 */

export interface ChainMarket {
	spot: number;
	/** Continuously compounded risk-free rate. */
	rate: number;
	/** Continuous dividend yield. */
	dividendYield: number;
	/** Units of underlying per contract (100 for equity and index options). */
	contractSize: number;
}

export interface ChainArrays extends ChainMarket {
	/** Number of contracts; every array below has at least this many entries. */
	length: number;
	strike: Float64Array;
	/** Calendar time to expiry in years (days / 365). */
	expiryYears: Float64Array;
	/** Implied volatility, per 1.00. */
	iv: Float64Array;
	/** 1 for a call, 0 for a put. */
	isCall: Uint8Array;
	openInterest: Float64Array;
	volume: Float64Array;
}

/** One contract in object form (parsers, tests, small callers). */
export interface OptionContract {
	expiryYears: number;
	strike: number;
	isCall: boolean;
	iv: number;
	openInterest: number;
	volume: number;
}

/**
 * A subset of a chain's contracts: an index list, or a mask (non-zero = selected) of the chain's
 * length. Omitted means every contract.
 */
export type Selection = ArrayLike<number> | Uint8Array | undefined;

export const DEFAULT_CONTRACT_SIZE = 100;

export function createChainArrays(
	length: number,
	market: Partial<ChainMarket> & { spot: number }
): ChainArrays {
	return {
		spot: market.spot,
		rate: market.rate ?? 0,
		dividendYield: market.dividendYield ?? 0,
		contractSize: market.contractSize ?? DEFAULT_CONTRACT_SIZE,
		length,
		strike: new Float64Array(length),
		expiryYears: new Float64Array(length),
		iv: new Float64Array(length),
		isCall: new Uint8Array(length),
		openInterest: new Float64Array(length),
		volume: new Float64Array(length)
	};
}

export function chainArraysFromContracts(
	market: Partial<ChainMarket> & { spot: number },
	contracts: readonly OptionContract[]
): ChainArrays {
	const chain = createChainArrays(contracts.length, market);
	for (let i = 0; i < contracts.length; i++) {
		const c = contracts[i];
		chain.strike[i] = c.strike;
		chain.expiryYears[i] = c.expiryYears;
		chain.iv[i] = c.iv;
		chain.isCall[i] = c.isCall ? 1 : 0;
		chain.openInterest[i] = c.openInterest;
		chain.volume[i] = c.volume;
	}
	return chain;
}

export function contractAt(chain: ChainArrays, i: number): OptionContract {
	return {
		expiryYears: chain.expiryYears[i],
		strike: chain.strike[i],
		isCall: chain.isCall[i] === 1,
		iv: chain.iv[i],
		openInterest: chain.openInterest[i],
		volume: chain.volume[i]
	};
}

/**
 * Resolves a Selection to an index list. A Uint8Array of exactly the chain's length is a mask;
 * anything else is a list of contract indices.
 */
export function selectionIndices(length: number, selection: Selection): ArrayLike<number> {
	if (selection === undefined) {
		const all = new Int32Array(length);
		for (let i = 0; i < length; i++) all[i] = i;
		return all;
	}
	if (selection instanceof Uint8Array && selection.length === length) {
		let n = 0;
		for (let i = 0; i < length; i++) if (selection[i] !== 0) n++;
		const out = new Int32Array(n);
		for (let i = 0, j = 0; i < length; i++) if (selection[i] !== 0) out[j++] = i;
		return out;
	}
	return selection;
}

/** Sorted unique strikes of the chain and each contract's position among them. */
export interface StrikeLadder {
	strikes: Float64Array;
	/** index[i] = position of contract i's strike in `strikes`. */
	index: Int32Array;
}

/** Build once per chain layout and reuse: strikes do not move tick to tick. */
export function strikeLadder(chain: ChainArrays): StrikeLadder {
	const n = chain.length;
	const sorted = Float64Array.from(chain.strike.subarray(0, n)).sort();
	let u = 0;
	for (let i = 0; i < n; i++) if (i === 0 || sorted[i] !== sorted[i - 1]) sorted[u++] = sorted[i];
	const strikes = sorted.slice(0, u);
	const index = new Int32Array(n);
	for (let i = 0; i < n; i++) index[i] = lowerBound(strikes, chain.strike[i]);
	return { strikes, index };
}

/** Contracts grouped by expiry, nearest first (bucket 0 = 0DTE / nearest, 1 = next expiry). */
export interface ExpiryBuckets {
	expiries: Float64Array;
	indices: Int32Array[];
}

export function expiryBuckets(chain: ChainArrays, selection?: Selection): ExpiryBuckets {
	const idx = selectionIndices(chain.length, selection);
	const byExpiry = new Map<number, number[]>();
	for (let j = 0; j < idx.length; j++) {
		const i = idx[j];
		const t = chain.expiryYears[i];
		let list = byExpiry.get(t);
		if (list === undefined) byExpiry.set(t, (list = []));
		list.push(i);
	}
	const expiries = Float64Array.from(byExpiry.keys()).sort();
	return { expiries, indices: Array.from(expiries, (t) => Int32Array.from(byExpiry.get(t) ?? [])) };
}

/** First position in ascending `xs` whose value is >= x. */
export function lowerBound(xs: ArrayLike<number>, x: number): number {
	let lo = 0;
	let hi = xs.length;
	while (lo < hi) {
		const mid = (lo + hi) >>> 1;
		if (xs[mid] < x) lo = mid + 1;
		else hi = mid;
	}
	return lo;
}
