/**
 * Priors and max changes of the explicit-expiry payloads (gex_YYYYMMDD and the greek
 * YYYYMMDD profiles): per listed strike of one expiry, the value 1 s to 30 min before the frozen
 * second, served through the same LagSeries / priors / max-change code as the zero / one sets.
 *
 * Derived on demand, not tracked (see ./laggedVolume for the trade-off): at each lag the expiry's
 * greeks at that second (TickerDay.greeksAt) are combined with the chain's volume at that second
 * (LaggedVolume), with the same arithmetic as the current values. Values pass through Float32 as
 * a Lookback ring stores them, so an expiry's priors equal the zero / one sets' at shared strikes.
 * One derivation per (frozen second, expiry) serves its gex_ payload and its four greek profiles.
 */
import { CHANGE_LAGS, type LagSeries } from './lookback';
import type { ExpiryState } from './expiryState';
import { GREEK_NAMES, type GreekName } from './tickerDay';

/** Per-contract inputs of one second; arrays are indexed `c - offset`. */
interface SecondInputs {
	spot: number;
	offset: number;
	delta: ArrayLike<number>;
	gamma: ArrayLike<number>;
	vanna: ArrayLike<number>;
	charmPerDay: ArrayLike<number>;
	/** Session volume per contract, indexed by c. */
	volume: ArrayLike<number>;
}

/** Per-row values of one second: GEX by volume and each greek's call / put profile. */
interface RowTable {
	gex: Float32Array;
	call: Record<GreekName, Float32Array>;
	put: Record<GreekName, Float32Array>;
}

/** The lagged values of one row vector: `lagged[i]` is CHANGE_LAGS[i] seconds back. */
class DerivedSeries implements LagSeries {
	readonly rows: number;
	constructor(
		private readonly now: Float32Array,
		private readonly lagged: Float32Array[]
	) {
		this.rows = now.length;
	}

	at(row: number, lag: number): number {
		const i = (CHANGE_LAGS as readonly number[]).indexOf(lag);
		if (i < 0) throw new RangeError(`no lookback kept for a lag of ${lag} s`);
		return this.lagged[i][row];
	}

	current(row: number): number {
		return this.now[row];
	}
}

export interface ExpiryLookbacks {
	/** Chain strike slots of the expiry, ascending: row i is slot `slots[i]`. */
	slots: number[];
	gex: LagSeries;
	call: Record<GreekName, LagSeries>;
	put: Record<GreekName, LagSeries>;
}

const perGreek = <T>(make: (greek: GreekName) => T) =>
	Object.fromEntries(GREEK_NAMES.map((g) => [g, make(g)])) as Record<GreekName, T>;

/** Contracts of one expiry, their ascending strike slots and each contract's row. */
function expiryRows(state: ExpiryState, expiry: number) {
	const chain = state.chain;
	const start = chain.expiryStart[expiry];
	const end = chain.expiryStart[expiry + 1];
	const slots = [...new Set(Array.from(chain.strikeSlot.subarray(start, end)))].sort(
		(a, b) => a - b
	);
	const rowOfSlot = new Map(slots.map((s, i) => [s, i]));
	const rowOf = Int32Array.from(
		{ length: end - start },
		(_, i) => rowOfSlot.get(chain.strikeSlot[start + i]) as number
	);
	return { start, end, slots, rowOf };
}

/** One second's row table, with the arithmetic of expiryGexValue and expiryProfileValue. */
function rowTable(
	state: ExpiryState,
	rows: ReturnType<typeof expiryRows>,
	at: SecondInputs
): RowTable {
	const { start, end, slots, rowOf } = rows;
	const n = slots.length;
	// Plain typed arrays in the hot loop (a Record of arrays per greek would be looked up by name).
	const gex = new Float64Array(n);
	const cDelta = new Float64Array(n);
	const cGamma = new Float64Array(n);
	const cVanna = new Float64Array(n);
	const cCharm = new Float64Array(n);
	const pDelta = new Float64Array(n);
	const pGamma = new Float64Array(n);
	const pVanna = new Float64Array(n);
	const pCharm = new Float64Array(n);
	const { spot, offset, delta, gamma, vanna, charmPerDay, volume } = at;
	const isCall = state.chain.isCall;
	const dexUnit = (100 * spot) / 1e6;
	const gexUnit = (100 * spot * spot * 0.01) / 1e6;
	for (let c = start; c < end; c++) {
		const r = rowOf[c - start];
		const i = c - offset;
		const vol = volume[c];
		if (isCall[c] === 1) {
			const g = 1 * gamma[i] * gexUnit;
			gex[r] += g * vol;
			cDelta[r] += delta[i] * dexUnit * vol;
			cGamma[r] += 1 * gamma[i] * gexUnit * vol;
			cVanna[r] += 1 * vanna[i] * dexUnit * 0.01 * vol;
			cCharm[r] += 1 * charmPerDay[i] * dexUnit * vol;
		} else {
			const g = -1 * gamma[i] * gexUnit;
			gex[r] += g * vol;
			pDelta[r] += delta[i] * dexUnit * vol;
			pGamma[r] += -1 * gamma[i] * gexUnit * vol;
			pVanna[r] += -1 * vanna[i] * dexUnit * 0.01 * vol;
			pCharm[r] += -1 * charmPerDay[i] * dexUnit * vol;
		}
	}
	const f32 = (x: Float64Array) => Float32Array.from(x);
	return {
		gex: f32(gex),
		call: { delta: f32(cDelta), gamma: f32(cGamma), vanna: f32(cVanna), charm: f32(cCharm) },
		put: { delta: f32(pDelta), gamma: f32(pGamma), vanna: f32(pVanna), charm: f32(pCharm) }
	};
}

const derived = new WeakMap<ExpiryState, Map<number, ExpiryLookbacks>>();

/** Lookbacks of one expiry at the frozen second (memoised per frozen state and expiry). */
export function expiryLookbacks(state: ExpiryState, expiry: number): ExpiryLookbacks {
	let byExpiry = derived.get(state);
	if (!byExpiry) derived.set(state, (byExpiry = new Map()));
	const known = byExpiry.get(expiry);
	if (known) return known;
	const rows = expiryRows(state, expiry);
	const now = rowTable(state, rows, { ...state, offset: 0 });
	// Lags clamped at the open share a second: derive each distinct second's greeks once.
	const greeksBySecond = new Map<number, ReturnType<ExpiryState['greeksAt']>>();
	const lagged = CHANGE_LAGS.map((lag, i) => {
		const second = Math.max(0, state.tick - lag);
		let past = greeksBySecond.get(second);
		if (!past) greeksBySecond.set(second, (past = state.greeksAt(second, rows.start, rows.end)));
		return rowTable(state, rows, { ...past, offset: rows.start, volume: state.laggedVolume[i] });
	});
	const series = (pick: (t: RowTable) => Float32Array) =>
		new DerivedSeries(pick(now), lagged.map(pick));
	const out: ExpiryLookbacks = {
		slots: rows.slots,
		gex: series((t) => t.gex),
		call: perGreek((g) => series((t) => t.call[g])),
		put: perGreek((g) => series((t) => t.put[g]))
	};
	byExpiry.set(expiry, out);
	return out;
}
