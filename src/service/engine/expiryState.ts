/**
 * One second of a TickerDay frozen for the explicit-expiry payloads (built every 5 s, possibly
 * later than the second they describe): categoryPayloads.ts and expiryPayloads.ts read it, and
 * expiryHistory.ts derives its priors from it.
 */
import type { PastGreeks, TickerDay } from './tickerDay';

/**
 * What an explicit-expiry payload reads: a copy of one second's arrays, so it can be built later,
 * and what its priors need (see ./laggedVolume): the lagged volumes of that second and the day's
 * greeks at earlier seconds.
 */
export interface ExpiryState {
	ticker: string;
	date: string;
	timestamp: number;
	/** The second the copy was taken at. */
	tick: number;
	spot: number;
	chain: TickerDay['chain'];
	gamma: Float64Array;
	delta: Float64Array;
	vanna: Float64Array;
	charmPerDay: Float64Array;
	volume: Float64Array;
	buyVolume: Float64Array;
	sellVolume: Float64Array;
	/** Years to expiry per contract. */
	years: Float64Array;
	iv: Float64Array;
	/** Per contract, the volume CHANGE_LAGS[i] seconds before `tick` (clamped at the open). */
	laggedVolume: Float64Array[];
	/** Greeks of contracts [start, end) at an earlier second of the same session. */
	greeksAt: (tick: number, start: number, end: number) => PastGreeks;
}

/** Copies the arrays an explicit-expiry profile needs (a few memcpy's every 5 s). */
export function freezeExpiryState(day: TickerDay): ExpiryState {
	return {
		ticker: day.ticker,
		date: day.date,
		timestamp: day.timestampOf(day.tick),
		tick: day.tick,
		spot: day.spot,
		chain: day.chain,
		gamma: Float64Array.from(day.greeks.gamma),
		delta: Float64Array.from(day.greeks.delta),
		vanna: Float64Array.from(day.greeks.vanna),
		charmPerDay: Float64Array.from(day.greeks.charmPerDay),
		volume: Float64Array.from(day.volume),
		buyVolume: Float64Array.from(day.buyVolume),
		sellVolume: Float64Array.from(day.sellVolume),
		years: Float64Array.from(day.years),
		iv: Float64Array.from(day.iv),
		laggedVolume: day.laggedVolume.byLag.map((v) => Float64Array.from(v)),
		greeksAt: (tick, start, end) => day.greeksAt(tick, start, end)
	};
}
