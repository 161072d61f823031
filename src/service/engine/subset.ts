/**
 * An expiry set of a TickerDay (all expiries, the nearest, the next) with its per-strike
 * aggregates for the current tick, and how one is laid out from the day's chain (rows shown,
 * slots, lookback rings, the zero-gamma kernel).
 */
import type { ChainDay } from '../market/chainDay';
import { GammaKernel } from '../../lib/analytics/gammaKernel';
import { Lookback, SHORT_LAG_DEPTH, type LagSeries } from './lookback';

export type SubsetName = 'full' | 'zero' | 'one';
export const GREEK_NAMES = ['delta', 'gamma', 'vanna', 'charm'] as const;
export type GreekName = (typeof GREEK_NAMES)[number];

/** An expiry set (all, nearest, next) and its per-strike aggregates for the current tick. */
export interface Subset {
	name: SubsetName;
	start: number;
	end: number;
	/** Chain expiry indexes in the set, in order. */
	expiryIndexes: number[];
	/** Displayed strikes (ascending) and their slot in chain.strikes. */
	rowStrikes: Float64Array;
	rowSlots: Int32Array;
	rowOfSlot: Int32Array;
	/** Per displayed row: GEX by volume and by OI ($M per 1% move). */
	gexVol: Float64Array;
	gexOi: Float64Array;
	/** Per chain slot (all strikes of the set): net GEX by volume / OI, for majors. */
	slotGexVol: Float64Array;
	slotGexOi: Float64Array;
	slotHas: Uint8Array;
	/** The chain slots (and their strikes, ascending) that have contracts in this set. */
	setSlots: Int32Array;
	setStrikes: Float64Array;
	sumGexVol: number;
	sumGexOi: number;
	zeroGammaVol: number | null;
	zeroGammaOi: number | null;
	zeroGammaReady: boolean;
	/** Ring of gexVol the step pushes into (30 minutes deep; a minute for the zero / one sets). */
	gexRing: Lookback;
	/** What payloads read: the ring, or for the zero / one sets the ring plus derived lags. */
	gexLookback: LagSeries;
	/** Greek profiles by volume per row, calls and puts (zero / one sets only). */
	greekCall?: Record<GreekName, Float64Array>;
	greekPut?: Record<GreekName, Float64Array>;
	greekCallRing?: Record<GreekName, Lookback>;
	greekPutRing?: Record<GreekName, Lookback>;
	greekCallLookback?: Record<GreekName, LagSeries>;
	greekPutLookback?: Record<GreekName, LagSeries>;
	callIv?: Float64Array;
	putIv?: Float64Array;
	/** Volumes per row: call, put, call buy, call sell, put buy, put sell. */
	volumeRows?: Float64Array[];
	flows: Flows;
	/** The set's contracts as the zero-gamma kernel selects them (undefined: the whole chain). */
	selection: Int32Array | undefined;
	/** Zero-gamma kernel of the set (typed arrays kept between ticks). */
	kernel: GammaKernel;
}

/** Cumulative classified flows of the session ($M). */
export interface Flows {
	/** Customer net delta bought: sum sign * delta * size * 100 * S. */
	dex: number;
	/** Same prints signed by the GEX convention (calls +, puts -) on gamma. */
	gex: number;
	/** Convexity bought by customers: sum sign * gamma * size * 100 * S^2 * 1%. */
	cvr: number;
	/** sum |gamma * size * 100 * S^2 * 1%| of classified prints, the cvr ratio's denominator. */
	cvrAbs: number;
}

/** The set of contracts [start, end) of `chain` with its rows and aggregates, all zero. */
export function makeSubset(
	chain: ChainDay,
	name: SubsetName,
	start: number,
	end: number,
	expiryIndexes: number[],
	/** Seconds of rings the zero / one sets keep: SHORT_LAG_DEPTH (longer lags derived) or all 30 minutes. */
	setDepth: number = SHORT_LAG_DEPTH
): Subset {
	const model = chain.model;
	// Rows shown: the set's strikes within a vol-scaled window around the previous close.
	const frac = Math.min(Math.max(0.4 * model.vol, 0.04), 0.6);
	const lo = chain.refSpot * (1 - frac);
	const hi = chain.refSpot * (1 + frac);
	const slotHas = new Uint8Array(chain.strikes.length);
	for (let c = start; c < end; c++) slotHas[chain.strikeSlot[c]] = 1;
	const setSlots: number[] = [];
	for (let k = 0; k < slotHas.length; k++) if (slotHas[k]) setSlots.push(k);
	const slots: number[] = [];
	for (let s = 0; s < chain.strikes.length; s++)
		if (slotHas[s] && chain.strikes[s] >= lo && chain.strikes[s] <= hi) slots.push(s);
	const rowOfSlot = new Int32Array(chain.strikes.length).fill(-1);
	slots.forEach((s, r) => (rowOfSlot[s] = r));
	const rows = slots.length;
	// The zero / one sets keep a minute (TickerDay derives their longer lags: ./subsetLags), or
	// all 30 minutes where CPU matters more than memory (TickerDay's `lags`).
	const gexRing = new Lookback(rows, name === 'full' ? undefined : setDepth);
	const subset: Subset = {
		name,
		start,
		end,
		expiryIndexes,
		rowStrikes: Float64Array.from(slots.map((s) => chain.strikes[s])),
		rowSlots: Int32Array.from(slots),
		rowOfSlot,
		gexVol: new Float64Array(rows),
		gexOi: new Float64Array(rows),
		slotGexVol: new Float64Array(chain.strikes.length),
		slotGexOi: new Float64Array(chain.strikes.length),
		slotHas,
		setSlots: Int32Array.from(setSlots),
		setStrikes: Float64Array.from(setSlots.map((k) => chain.strikes[k])),
		sumGexVol: 0,
		sumGexOi: 0,
		zeroGammaVol: null,
		zeroGammaOi: null,
		zeroGammaReady: false,
		gexRing,
		gexLookback: gexRing,
		flows: { dex: 0, gex: 0, cvr: 0, cvrAbs: 0 },
		selection:
			start === 0 && end === chain.n
				? undefined
				: Int32Array.from({ length: end - start }, (_, i) => start + i),
		kernel: new GammaKernel()
	};
	if (name !== 'full') {
		const perGreek = () =>
			Object.fromEntries(GREEK_NAMES.map((g) => [g, new Float64Array(rows)])) as Record<
				GreekName,
				Float64Array
			>;
		const perGreekLookback = () =>
			Object.fromEntries(GREEK_NAMES.map((g) => [g, new Lookback(rows, setDepth)])) as Record<
				GreekName,
				Lookback
			>;
		subset.greekCall = perGreek();
		subset.greekPut = perGreek();
		subset.greekCallRing = subset.greekCallLookback = perGreekLookback();
		subset.greekPutRing = subset.greekPutLookback = perGreekLookback();
		subset.callIv = new Float64Array(rows);
		subset.putIv = new Float64Array(rows);
		subset.volumeRows = Array.from({ length: 6 }, () => new Float64Array(rows));
	}
	return subset;
}
