/**
 * Per-contract greeks for a whole chain, computed once into typed arrays so several
 * aggregations (full chain, 0DTE only, next expiry only) can reuse them.
 */
import { bsmGreeks, emptyGreeks } from './bsm';
import { selectionIndices, type ChainArrays, type Selection } from './chain';

export interface GreekArrays {
	length: number;
	price: Float64Array;
	delta: Float64Array;
	gamma: Float64Array;
	vega: Float64Array;
	vanna: Float64Array;
	/** dDelta/dt per year. */
	charm: Float64Array;
	/** dDelta/dt per calendar day. */
	charmPerDay: Float64Array;
}

export function createGreekArrays(length: number): GreekArrays {
	return {
		length,
		price: new Float64Array(length),
		delta: new Float64Array(length),
		gamma: new Float64Array(length),
		vega: new Float64Array(length),
		vanna: new Float64Array(length),
		charm: new Float64Array(length),
		charmPerDay: new Float64Array(length)
	};
}

/**
 * Greeks of every contract (or only the selected ones; the others are left untouched) at the
 * chain's spot. Reuses `out` when it is large enough.
 */
export function computeGreeks(
	chain: ChainArrays,
	out?: GreekArrays,
	selection?: Selection
): GreekArrays {
	const n = chain.length;
	const g = out !== undefined && out.price.length >= n ? out : createGreekArrays(n);
	g.length = n;
	const { spot, rate, dividendYield, strike, expiryYears, iv, isCall } = chain;
	const scratch = emptyGreeks();
	const each = (i: number) => {
		bsmGreeks(
			isCall[i] === 1,
			spot,
			strike[i],
			expiryYears[i],
			iv[i],
			rate,
			dividendYield,
			scratch
		);
		g.price[i] = scratch.price;
		g.delta[i] = scratch.delta;
		g.gamma[i] = scratch.gamma;
		g.vega[i] = scratch.vega;
		g.vanna[i] = scratch.vanna;
		g.charm[i] = scratch.charm;
		g.charmPerDay[i] = scratch.charmPerDay;
	};
	if (selection === undefined) for (let i = 0; i < n; i++) each(i);
	else {
		const idx = selectionIndices(n, selection);
		for (let j = 0; j < idx.length; j++) each(idx[j]);
	}
	return g;
}
