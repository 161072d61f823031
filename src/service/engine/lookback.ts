/**
 * Per-second history of a row vector (one value per displayed strike) over the longest lookback,
 * so priors and max changes 1, 5, 10, 15 and 30 minutes back are exact second-by-second values.
 * Float32 keeps 100+ tickers' rings in a few hundred MB; values are rounded to cents on the wire.
 */

/** Lookbacks in seconds: the "current" change is against the previous second. */
export const PRIOR_LAGS = [60, 300, 600, 900, 1800] as const;
export const CHANGE_LAGS = [1, 60, 300, 600, 900, 1800] as const;
/** Seconds a full ring keeps: every lag of CHANGE_LAGS. */
export const LOOKBACK_DEPTH = 1801;
const DEPTH = LOOKBACK_DEPTH;
/** Seconds the zero / one sets' rings keep (lags 1 and 60 s); longer lags are derived (./subsetLags). */
export const SHORT_LAG_DEPTH = 61;

/**
 * What priors and max changes read (categoryPayloads.ts): a row vector's value `lag` seconds (one of
 * CHANGE_LAGS) before the newest second, and at the newest second. A Lookback ring for the zero /
 * one sets; values derived on demand for an explicit expiry (expiryPayloads.ts).
 */
export interface LagSeries {
	readonly rows: number;
	at(row: number, lag: number): number;
	current(row: number): number;
}

export class Lookback implements LagSeries {
	readonly rows: number;
	private readonly ring: Float32Array;
	/** Tick of the newest stored row vector, -1 before the first push. */
	private newest = -1;

	/** `depth`: seconds kept, the newest included (lags up to depth - 1 can be read). */
	constructor(
		rows: number,
		readonly depth = DEPTH
	) {
		this.rows = rows;
		this.ring = new Float32Array(rows * depth);
	}

	/** Store the vector of tick `tick` (ticks arrive consecutively from 0). */
	push(tick: number, values: ArrayLike<number>): void {
		const base = (tick % this.depth) * this.rows;
		for (let r = 0; r < this.rows; r++) this.ring[base + r] = values[r];
		this.newest = tick;
	}

	/** Value of `row` at `lag` seconds before the newest tick, clamped at the session's first tick. */
	at(row: number, lag: number): number {
		if (lag >= this.depth) throw new RangeError(`no lookback kept for a lag of ${lag} s`);
		const tick = Math.max(0, this.newest - lag);
		return this.ring[(tick % this.depth) * this.rows + row];
	}

	/** The stored (Float32-rounded) value of `row` at the newest tick. */
	current(row: number): number {
		return this.ring[(this.newest % this.depth) * this.rows + row];
	}
}
