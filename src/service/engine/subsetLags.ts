/**
 * Priors and max changes of the zero / one sets without 30 minutes of rings (issue 26 item 5).
 *
 * Why: a Lookback ring of 1,801 seconds per row vector, nine per set (GEX and each greek's call
 * and put profile), was three quarters of the idle service's memory (305 of 437 MB over the
 * universe's 107 chains). These sets keep a short ring (the last minute: lags 1 and 60 s, read
 * every second) and derive the longer lags (5 to 30 minutes) when a payload reads them: the
 * set's greeks at that second (TickerDay.greeksAt, bit for bit the step's) with each contract's
 * volume at that second (LaggedVolume), summed with aggregate()'s own arithmetic and passed
 * through Float32 as a ring stores them. So every value read equals what the long ring gave
 * (subsetLags.test.ts compares them second by second). One derivation per (second, set) serves
 * the GEX payloads and the four greek profiles; the all-expiries set keeps its ring.
 */
import { CHANGE_LAGS, type LagSeries, type Lookback } from './lookback';

export { SHORT_LAG_DEPTH } from './lookback';
import { GREEK_NAMES, type GreekName, type Subset } from './subset';
import type { PastGreeks } from './tickerDay';

const CONTRACT_SIZE = 100;
const MILLION = 1e6;

/** What a set's lags are derived from (a TickerDay). */
export interface LagSource {
	readonly tick: number;
	readonly chain: { strikeSlot: ArrayLike<number>; isCall: ArrayLike<number> };
	readonly laggedVolume: { readonly byLag: readonly Float64Array[] };
	greeksAt(tick: number, start: number, end: number): PastGreeks;
}

/** A set's row vectors at one second, as the rings would have stored them. */
export interface RowTables {
	gex: Float32Array;
	call: Record<GreekName, Float32Array>;
	put: Record<GreekName, Float32Array>;
}

const perGreek = <T>(make: (greek: GreekName) => T) =>
	Object.fromEntries(GREEK_NAMES.map((g) => [g, make(g)])) as Record<GreekName, T>;

/**
 * The set's GEX and greek rows at `past.tick` from that second's greeks and per-contract session
 * volume: TickerDay.aggregate's expressions, in its contract order, then Float32.
 */
export function subsetRowsAt(
	source: LagSource,
	subset: Subset,
	past: PastGreeks,
	volume: ArrayLike<number>
): RowTables {
	const rows = subset.rowSlots.length;
	const gex = new Float64Array(rows);
	const call = perGreek(() => new Float64Array(rows));
	const put = perGreek(() => new Float64Array(rows));
	const { strikeSlot, isCall } = source.chain;
	const spot = past.spot;
	const gexUnit = (CONTRACT_SIZE * spot * spot * 0.01) / MILLION;
	const dexUnit = (CONTRACT_SIZE * spot) / MILLION;
	const vannaUnit = (CONTRACT_SIZE * spot * 0.01) / MILLION;
	const { delta, gamma, vanna, charmPerDay } = past;
	for (let c = subset.start; c < subset.end; c++) {
		const row = subset.rowOfSlot[strikeSlot[c]];
		if (row < 0) continue;
		const i = c - subset.start;
		const isCallContract = isCall[c] === 1;
		const sign = isCallContract ? 1 : -1;
		const vol = volume[c];
		const g = sign * gamma[i] * gexUnit;
		gex[row] += g * vol;
		const target = isCallContract ? call : put;
		target.delta[row] += delta[i] * dexUnit * vol;
		target.gamma[row] += g * vol;
		target.vanna[row] += sign * vanna[i] * vannaUnit * vol;
		target.charm[row] += sign * charmPerDay[i] * dexUnit * vol;
	}
	return {
		gex: Float32Array.from(gex),
		call: perGreek((k) => Float32Array.from(call[k])),
		put: perGreek((k) => Float32Array.from(put[k]))
	};
}

/** The derived lags of one set, memoised for the source's current second. */
export class SubsetLags {
	private tick = -1;
	private readonly bySecond = new Map<number, RowTables>();

	constructor(
		private readonly source: LagSource,
		private readonly subset: Subset
	) {}

	/** The set's rows `lag` seconds (one of CHANGE_LAGS) before the current second. */
	tablesAt(lag: number): RowTables {
		const i = (CHANGE_LAGS as readonly number[]).indexOf(lag);
		if (i < 0) throw new RangeError(`no lookback kept for a lag of ${lag} s`);
		if (this.source.tick !== this.tick) {
			this.bySecond.clear();
			this.tick = this.source.tick;
		}
		const second = Math.max(0, this.tick - lag);
		let tables = this.bySecond.get(second);
		if (!tables) {
			const past = this.source.greeksAt(second, this.subset.start, this.subset.end);
			tables = subsetRowsAt(this.source, this.subset, past, this.source.laggedVolume.byLag[i]);
			this.bySecond.set(second, tables);
		}
		return tables;
	}

	/** A ring's series with the lags it does not keep derived. */
	series(ring: Lookback, pick: (t: RowTables) => Float32Array): LagSeries {
		return {
			rows: ring.rows,
			current: (row) => ring.current(row),
			at: (row, lag) => (lag < ring.depth ? ring.at(row, lag) : pick(this.tablesAt(lag))[row])
		};
	}
}

/** Points a zero / one set's lookbacks at its short rings plus derived longer lags. */
export function deriveLongLags(source: LagSource, subset: Subset): void {
	const { greekCallRing, greekPutRing } = subset;
	if (!greekCallRing || !greekPutRing) throw new Error(`the ${subset.name} set has no greek rings`);
	const lags = new SubsetLags(source, subset);
	subset.gexLookback = lags.series(subset.gexRing, (t) => t.gex);
	subset.greekCallLookback = perGreek((g) => lags.series(greekCallRing[g], (t) => t.call[g]));
	subset.greekPutLookback = perGreek((g) => lags.series(greekPutRing[g], (t) => t.put[g]));
}
