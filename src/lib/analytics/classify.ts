/**
 * Trade-side classification (+1 buyer-initiated, -1 seller-initiated, 0 unclassified) and
 * running classified flows per contract.
 *
 * - Quote rule: above the quote midpoint is a buy, below a sell, at the midpoint unclassified.
 * - Tick test: above the last different trade price is a buy (uptick / zero-uptick), below a
 *   sell; the direction of the last price change carries over through repeated prices.
 * - Lee-Ready (1991): the quote rule, and the tick test for trades at the midpoint.
 * - EMO (Ellis, Michaely & O'Hara 2000): at the ask a buy, at the bid a sell, anything else by
 *   the tick test.
 */

export type TradeSide = 1 | -1 | 0;

export function quoteRule(price: number, bid: number, ask: number): TradeSide {
	const mid = 0.5 * (bid + ask);
	return price > mid ? 1 : price < mid ? -1 : 0;
}

/** Tick-test state for one contract: the last trade price and the last non-zero tick. */
export interface TickState {
	lastPrice: number;
	lastTick: TradeSide;
}

export function newTickState(): TickState {
	return { lastPrice: NaN, lastTick: 0 };
}

/** Classifies `price` against the state (without updating it). */
export function tickTest(price: number, state: TickState): TradeSide {
	if (Number.isNaN(state.lastPrice)) return 0;
	if (price > state.lastPrice) return 1;
	if (price < state.lastPrice) return -1;
	return state.lastTick;
}

/** Records a trade in the tick state. */
export function updateTick(price: number, state: TickState): void {
	if (!Number.isNaN(state.lastPrice) && price !== state.lastPrice)
		state.lastTick = price > state.lastPrice ? 1 : -1;
	state.lastPrice = price;
}

export function leeReady(price: number, bid: number, ask: number, state: TickState): TradeSide {
	const q = quoteRule(price, bid, ask);
	return q !== 0 ? q : tickTest(price, state);
}

export function emo(price: number, bid: number, ask: number, state: TickState): TradeSide {
	if (price === ask) return 1;
	if (price === bid) return -1;
	return tickTest(price, state);
}

export type ClassificationMethod = 'quote' | 'tick' | 'lee-ready' | 'emo';

/** Classifies with the chosen method and records the trade in the tick state. */
export function classifyTrade(
	method: ClassificationMethod,
	price: number,
	bid: number,
	ask: number,
	state: TickState
): TradeSide {
	const side =
		method === 'quote'
			? quoteRule(price, bid, ask)
			: method === 'tick'
				? tickTest(price, state)
				: method === 'lee-ready'
					? leeReady(price, bid, ask, state)
					: emo(price, bid, ask, state);
	updateTick(price, state);
	return side;
}

/**
 * Running flows from signed trade sizes, per contract and in total, with sign = the aggressor
 * side and the contract's greeks at the trade:
 *   DEX flow        += sign * size * delta * M * S             ($ delta bought by aggressors)
 *   convexity flow  += sign * size * gamma * M * S^2 * 0.01    (gamma bought, calls and puts alike)
 *   GEX flow        += sign * size * s * gamma * M * S^2 * 0.01 (s = +1 call, -1 put, as in GEX)
 * Per-contract tick states live here too so a feed can classify and record in one call.
 */
export class ClassifiedFlows {
	readonly dex: Float64Array;
	readonly convexity: Float64Array;
	readonly gex: Float64Array;
	readonly buyVolume: Float64Array;
	readonly sellVolume: Float64Array;
	readonly ticks: TickState[];
	totalDex = 0;
	totalConvexity = 0;
	totalGex = 0;

	constructor(
		readonly contracts: number,
		readonly contractSize = 100
	) {
		this.dex = new Float64Array(contracts);
		this.convexity = new Float64Array(contracts);
		this.gex = new Float64Array(contracts);
		this.buyVolume = new Float64Array(contracts);
		this.sellVolume = new Float64Array(contracts);
		this.ticks = Array.from({ length: contracts }, newTickState);
	}

	/** Adds one classified trade of `size` contracts on contract i. */
	record(
		i: number,
		side: TradeSide,
		size: number,
		isCall: boolean,
		delta: number,
		gamma: number,
		spot: number
	): void {
		if (side === 0 || !(size > 0)) return;
		const m = this.contractSize;
		const signed = side * size;
		const dex = signed * delta * m * spot;
		const conv = signed * gamma * m * spot * spot * 0.01;
		const gex = isCall ? conv : -conv;
		this.dex[i] += dex;
		this.convexity[i] += conv;
		this.gex[i] += gex;
		if (side > 0) this.buyVolume[i] += size;
		else this.sellVolume[i] += size;
		this.totalDex += dex;
		this.totalConvexity += conv;
		this.totalGex += gex;
	}

	/** Classifies a trade with `method`, records it and returns the side. */
	trade(
		i: number,
		method: ClassificationMethod,
		price: number,
		bid: number,
		ask: number,
		size: number,
		isCall: boolean,
		delta: number,
		gamma: number,
		spot: number
	): TradeSide {
		const side = classifyTrade(method, price, bid, ask, this.ticks[i]);
		this.record(i, side, size, isCall, delta, gamma, spot);
		return side;
	}

	/** Starts a new session: flows and tick states back to zero. */
	reset(): void {
		for (const a of [this.dex, this.convexity, this.gex, this.buyVolume, this.sellVolume])
			a.fill(0);
		for (const t of this.ticks) {
			t.lastPrice = NaN;
			t.lastTick = 0;
		}
		this.totalDex = 0;
		this.totalConvexity = 0;
		this.totalGex = 0;
	}
}
