/**
 * JSON values of every category, built from a TickerDay's state at its current tick. Units on
 * the wire (documented for clients, chosen so every number fits the protobuf ranges):
 * - GEX: $ millions per 1% move of the underlying (s * gamma * N * 100 * S^2 * 0.01 / 1e6, calls
 *   +, puts -), N = cumulative session volume ("by volume") or open interest ("by OI");
 * - delta profiles / DEX: $ millions of underlying (delta * N * 100 * S / 1e6, holder-signed);
 * - vanna: $ millions of delta per vol point; charm: $ millions of delta per calendar day;
 * - ivol: implied vol as a decimal (0.153 = 15.3%);
 * - zero_gamma: spot level where the by-volume GEX profile crosses zero, nearest spot (the by-OI
 *   profile before the session has traded enough to have a root; 0 only when neither has one);
 * - min_dte / sec_min_dte: calendar days to the first and second expiry of the category's set
 *   (for zero / one: that expiry and the one after it);
 * - delta_risk_reversal: 25-delta risk reversal of the set's first expiry, IV(25d call) -
 *   IV(25d put), decimal (negative = puts richer);
 * - priors: that strike's value 1, 5, 10, 15 and 30 minutes ago (in that order; the session's
 *   first value while the session is younger than the lag);
 * - max change: [strike, signed change] of the largest absolute change against the previous
 *   second ("current") and 1, 5, 10, 15, 30 minutes ago.
 */
import type { ClassicChain, GreekProfile, Majors, MaxChange } from '../../lib/contract/schemas';
import {
	largestAbsStrike,
	majorStrikes as analyticsMajors,
	maxChange
} from '../../lib/analytics/keyStrikes';
import { daysBetween } from '../market/clock';
import { CHANGE_LAGS, PRIOR_LAGS, type LagSeries } from './lookback';
import {
	flowAggregates,
	flowSums,
	orderflowPayload,
	type FlowAggregates,
	type OrderflowValue
} from './orderflow';
import { r2, r3, r4 } from './rounding';
import { OBSERVED_GREEK_PRIORS } from './profiles';
import { riskReversal25 } from './riskReversal';
import { expiryLookbacks } from './expiryHistory';
import type { ExpiryState } from './expiryState';
import { type GreekName, type Subset, type TickerDay } from './tickerDay';

export { r2, r3, r4 };

/**
 * The payloads are the contract's shapes (src/lib/contract/schemas.ts), so a field renamed there
 * breaks these builders as well as the dashboard that reads them.
 */
export type GexChainValue = ClassicChain;

export type MajorsValue = Majors;

export type MaxChangeValue = MaxChange;

/** Put fields null in the observed profile (one net value per strike: ./profiles.ts). */
export type GreekProfileValue = GreekProfile;

/**
 * volume_zero / volume_one (State, streamed as zstd JSON): per strike
 * `[strike, call_volume, put_volume, call_buy, call_sell, put_buy, put_sell]` in contracts,
 * buy / sell as classified by Lee-Ready (unclassified prints count in the totals only).
 */
export interface VolumeProfileValue {
	timestamp: number;
	ticker: string;
	spot: number;
	min_dte: number;
	sec_min_dte: number;
	total_call_volume: number;
	total_put_volume: number;
	put_call_ratio: number;
	strikes: [number, number, number, number, number, number, number][];
}

export type { OrderflowValue } from './orderflow';

function dtes(day: TickerDay, subset: Subset): [number, number] {
	const first = subset.expiryIndexes[0];
	if (first === undefined) return [0, 0];
	const second = subset.name === 'full' ? subset.expiryIndexes[1] : first + 1;
	return dtePair(day.date, day.chain.expiries, first, second);
}

/**
 * Calendar days to the `first` and `second` listed expiries (the first's again when there is no
 * second), the min_dte / sec_min_dte of every payload.
 */
export function dtePair(
	date: string,
	expiries: readonly string[],
	first: number,
	second: number | undefined
): [number, number] {
	const a = daysBetween(date, expiries[first]);
	const b =
		second !== undefined && second < expiries.length ? daysBetween(date, expiries[second]) : a;
	return [a, b];
}

/** Values of a per-slot array at the strikes the set lists. */
function atSetStrikes(subset: Subset, bySlot: Float64Array): Float64Array {
	const out = new Float64Array(subset.setSlots.length);
	for (let i = 0; i < out.length; i++) out[i] = bySlot[subset.setSlots[i]];
	return out;
}

/** Major positive / negative strikes by volume and OI (the analytics engine's majorStrikes). */
function majorStrikes(day: TickerDay, subset: Subset) {
	const vol = analyticsMajors(subset.setStrikes, atSetStrikes(subset, subset.slotGexVol), day.spot);
	const oi = analyticsMajors(subset.setStrikes, atSetStrikes(subset, subset.slotGexOi), day.spot);
	return {
		posVol: vol.positive ?? 0,
		posOi: oi.positive ?? 0,
		negVol: vol.negative ?? 0,
		negOi: oi.negative ?? 0
	};
}

export function zeroGammaOf(day: TickerDay, subset: Subset): number {
	const { vol, oi } = day.zeroGamma(subset);
	const root = vol ?? oi;
	return root === null ? 0 : r2(root);
}

/** A row's priors: its value 1, 5, 10, 15 and 30 minutes ago, rounded to cents. */
export function priors(lookback: LagSeries, row: number): number[] {
	return PRIOR_LAGS.map((lag) => r2(lookback.at(row, lag)));
}

function maxChanges(subset: Subset, spot: number): [number, number][] {
	return maxChangesOf(subset.gexLookback, subset.rowStrikes, spot);
}

/** [strike, signed change] of the largest change against each of CHANGE_LAGS (max_priors). */
export function maxChangesOf(
	lb: LagSeries,
	strikes: Float64Array,
	spot: number
): [number, number][] {
	const current = new Float64Array(lb.rows);
	for (let r = 0; r < lb.rows; r++) current[r] = lb.current(r);
	return CHANGE_LAGS.map((lag) => {
		const prior = new Float64Array(lb.rows);
		for (let r = 0; r < lb.rows; r++) prior[r] = lb.at(r, lag);
		const change = maxChange({ strikes, values: current }, { strikes, values: prior }, spot);
		return change === null ? [0, 0] : [change[0], r3(change[1])];
	});
}

/** 25-delta risk reversal of one expiry of a TickerDay. */
function riskReversal(day: TickerDay, expiry: number | undefined): number {
	if (expiry === undefined) return 0;
	const chain = day.chain;
	return riskReversal25(
		chain.isCall,
		day.greeks.delta,
		day.iv,
		chain.expiryStart[expiry],
		chain.expiryStart[expiry + 1]
	);
}

export function gexChainValue(day: TickerDay, subset: Subset): GexChainValue {
	const [minDte, secDte] = dtes(day, subset);
	const majors = majorStrikes(day, subset);
	const strikes: GexChainValue['strikes'] = [];
	for (let r = 0; r < subset.rowStrikes.length; r++) {
		strikes.push([
			subset.rowStrikes[r],
			r2(subset.gexVol[r]),
			r2(subset.gexOi[r]),
			priors(subset.gexLookback, r)
		]);
	}
	return {
		timestamp: day.timestampOf(day.tick),
		ticker: day.ticker,
		min_dte: minDte,
		sec_min_dte: secDte,
		spot: day.spot,
		zero_gamma: zeroGammaOf(day, subset),
		major_pos_vol: majors.posVol,
		major_pos_oi: majors.posOi,
		major_neg_vol: majors.negVol,
		major_neg_oi: majors.negOi,
		strikes,
		sum_gex_vol: r3(subset.sumGexVol),
		sum_gex_oi: r3(subset.sumGexOi),
		delta_risk_reversal: riskReversal(day, subset.expiryIndexes[0]),
		max_priors: maxChanges(subset, day.spot)
	};
}

export function majorsValue(day: TickerDay, subset: Subset): MajorsValue {
	const majors = majorStrikes(day, subset);
	return {
		timestamp: day.timestampOf(day.tick),
		ticker: day.ticker,
		spot: day.spot,
		zero_gamma: zeroGammaOf(day, subset),
		mpos_vol: majors.posVol,
		mpos_oi: majors.posOi,
		mneg_vol: majors.negVol,
		mneg_oi: majors.negOi,
		net_gex_vol: r3(subset.sumGexVol),
		net_gex_oi: r3(subset.sumGexOi)
	};
}

export function maxChangeValue(day: TickerDay, subset: Subset): MaxChangeValue {
	const [current, one, five, ten, fifteen, thirty] = maxChanges(subset, day.spot);
	return {
		timestamp: day.timestampOf(day.tick),
		ticker: day.ticker,
		current,
		one,
		five,
		ten,
		fifteen,
		thirty
	};
}

/**
 * State greek profile of the zero / one set. major_positive / major_negative: strikes of the
 * largest / most negative net (call + put) value of this greek by volume; major_long_gamma /
 * major_short_gamma: strikes of the largest positive / negative net GEX by volume of the set.
 */
/**
 * `observed`: observedGreekProfile's value (./profiles.ts) built directly, without the calls /
 * puts split and the priors it drops (the same roundings in the same order, so the same bits: a
 * history day's delta, gamma, vanna and charm files spent a fifth of their CPU on the split).
 */
export function greekProfileValue(
	day: TickerDay,
	subset: Subset,
	greek: GreekName,
	observed = false
): GreekProfileValue {
	const [minDte, secDte] = dtes(day, subset);
	const calls = subset.greekCall?.[greek];
	const puts = subset.greekPut?.[greek];
	const callLb = subset.greekCallLookback?.[greek];
	const putLb = subset.greekPutLookback?.[greek];
	if (!calls || !puts || !callLb || !putLb)
		throw new Error(`no ${greek} profile for the ${subset.name} set`);
	const rows = subset.rowStrikes.length;
	const net = new Float64Array(rows);
	for (let r = 0; r < rows; r++) net[r] = calls[r] + puts[r];
	const netMajors = analyticsMajors(subset.rowStrikes, net, day.spot);
	const majors = majorStrikes(day, subset);
	const mini: GreekProfileValue['mini_contracts'] = [];
	for (let r = 0; r < rows && observed; r++) {
		const p: number[] = [];
		for (let i = 0; i < OBSERVED_GREEK_PRIORS; i++)
			p.push(r2(r2(callLb.at(r, PRIOR_LAGS[i])) + r2(putLb.at(r, PRIOR_LAGS[i]))));
		const k = subset.rowStrikes[r];
		const civ = r4((subset.callIv as Float64Array)[r]);
		const piv = r4((subset.putIv as Float64Array)[r]);
		mini.push([k, civ, piv, r2(r2(calls[r]) + r2(puts[r])), p, null, null]);
	}
	for (let r = 0; r < rows && !observed; r++) {
		mini.push([
			subset.rowStrikes[r],
			r4((subset.callIv as Float64Array)[r]),
			r4((subset.putIv as Float64Array)[r]),
			r2(calls[r]),
			priors(callLb, r),
			r2(puts[r]),
			priors(putLb, r)
		]);
	}
	return {
		timestamp: day.timestampOf(day.tick),
		ticker: day.ticker,
		spot: day.spot,
		min_dte: minDte,
		sec_min_dte: secDte,
		major_positive: netMajors.positive ?? 0,
		major_negative: netMajors.negative ?? 0,
		major_long_gamma: majors.posVol,
		major_short_gamma: majors.negVol,
		mini_contracts: mini
	};
}

export function volumeProfileValue(day: TickerDay, subset: Subset): VolumeProfileValue {
	const [minDte, secDte] = dtes(day, subset);
	const v = subset.volumeRows as Float64Array[];
	const strikes: VolumeProfileValue['strikes'] = [];
	let calls = 0;
	let puts = 0;
	for (let c = subset.start; c < subset.end; c++) {
		if (day.chain.isCall[c] === 1) calls += day.volume[c];
		else puts += day.volume[c];
	}
	for (let r = 0; r < subset.rowStrikes.length; r++)
		strikes.push([subset.rowStrikes[r], v[0][r], v[1][r], v[2][r], v[3][r], v[4][r], v[5][r]]);
	return {
		timestamp: day.timestampOf(day.tick),
		ticker: day.ticker,
		spot: day.spot,
		min_dte: minDte,
		sec_min_dte: secDte,
		total_call_volume: calls,
		total_put_volume: puts,
		put_call_ratio: calls > 0 ? r4(puts / calls) : 0,
		strikes
	};
}

/** Orderflow aggregates of one expiry set (all $M, by volume unless named net_). */
function setFlow(day: TickerDay, subset: Subset): FlowAggregates {
	const spot = day.spot;
	const chain = day.chain;
	const sums = flowSums(
		{
			isCall: chain.isCall,
			delta: day.greeks.delta,
			gamma: day.greeks.gamma,
			vanna: day.greeks.vanna,
			charmPerDay: day.greeks.charmPerDay,
			volume: day.volume,
			buyVolume: day.buyVolume,
			sellVolume: day.sellVolume
		},
		subset.start,
		subset.end,
		spot
	);
	const callBySlot = new Float64Array(chain.strikes.length);
	const putBySlot = new Float64Array(chain.strikes.length);
	const gexUnit = (100 * spot * spot * 0.01) / 1e6;
	for (let c = subset.start; c < subset.end; c++) {
		const g = day.greeks.gamma[c] * gexUnit * day.volume[c];
		if (chain.isCall[c] === 1) callBySlot[chain.strikeSlot[c]] += g;
		else putBySlot[chain.strikeSlot[c]] += g;
	}
	const majors = majorStrikes(day, subset);
	const mcall = largestAbsStrike(subset.setStrikes, atSetStrikes(subset, callBySlot), spot);
	const mput = largestAbsStrike(subset.setStrikes, atSetStrikes(subset, putBySlot), spot);
	return flowAggregates(
		sums,
		{ mlgamma: majors.posVol, msgamma: majors.negVol, mcall: mcall ?? 0, mput: mput ?? 0 },
		subset.flows
	);
}

/**
 * Orderflow (0DTE = z / zero, next expiry = o / one). agg_*dex: DEX of the session's whole
 * volume; net_*dex: DEX of classified buy minus sell volume at current deltas; *oflow:
 * cumulative session flows of classified prints at the deltas / gammas of their second (dex:
 * customer net delta bought; gex: same signed calls +, puts -; cvr: convexity bought).
 */
export function orderflowValue(day: TickerDay): OrderflowValue {
	return orderflowPayload(
		day.timestampOf(day.tick),
		day.ticker,
		day.spot,
		setFlow(day, day.subsets.zero),
		setFlow(day, day.subsets.one)
	);
}

/**
 * Explicit-expiry greek profile (streamed every 5 s): the state profile shape for one expiry,
 * computed from the frozen second's greeks, with priors derived for that expiry (./expiryHistory).
 */
export function expiryProfileValue(
	day: ExpiryState,
	expiry: number,
	greek: GreekName
): GreekProfileValue {
	const chain = day.chain;
	const { gamma, delta, vanna, charmPerDay } = day;
	const spot = day.spot;
	const dexUnit = (100 * spot) / 1e6;
	const gexUnit = (100 * spot * spot * 0.01) / 1e6;
	const start = chain.expiryStart[expiry];
	const end = chain.expiryStart[expiry + 1];
	const bySlot = new Map<
		number,
		{ call: number; put: number; civ: number; piv: number; gex: number }
	>();
	for (let c = start; c < end; c++) {
		const slot = chain.strikeSlot[c];
		let row = bySlot.get(slot);
		if (!row) bySlot.set(slot, (row = { call: 0, put: 0, civ: 0, piv: 0, gex: 0 }));
		const call = chain.isCall[c] === 1;
		const sign = call ? 1 : -1;
		const vol = day.volume[c];
		const value =
			greek === 'delta'
				? delta[c] * dexUnit * vol
				: greek === 'gamma'
					? sign * gamma[c] * gexUnit * vol
					: greek === 'vanna'
						? sign * vanna[c] * dexUnit * 0.01 * vol
						: sign * charmPerDay[c] * dexUnit * vol;
		row.gex += sign * gamma[c] * gexUnit * vol;
		if (call) {
			row.call += value;
			row.civ = day.iv[c];
		} else {
			row.put += value;
			row.piv = day.iv[c];
		}
	}
	const slots = [...bySlot.keys()].sort((a, b) => a - b);
	const strikes = slots.map((s) => chain.strikes[s]);
	const net = slots.map((s) => {
		const row = bySlot.get(s) as { call: number; put: number };
		return row.call + row.put;
	});
	const gex = slots.map((s) => (bySlot.get(s) as { gex: number }).gex);
	const netMajors = analyticsMajors(strikes, net, spot);
	const gexMajors = analyticsMajors(strikes, gex, spot);
	const [dte, next] = dtePair(day.date, chain.expiries, expiry, expiry + 1);
	const lookbacks = expiryLookbacks(day, expiry);
	const callLb = lookbacks.call[greek];
	const putLb = lookbacks.put[greek];
	return {
		timestamp: day.timestamp,
		ticker: day.ticker,
		spot,
		min_dte: dte,
		sec_min_dte: next,
		major_positive: netMajors.positive ?? 0,
		major_negative: netMajors.negative ?? 0,
		major_long_gamma: gexMajors.positive ?? 0,
		major_short_gamma: gexMajors.negative ?? 0,
		mini_contracts: slots.map((s, i) => {
			const row = bySlot.get(s) as { call: number; put: number; civ: number; piv: number };
			return [
				strikes[i],
				r4(row.civ),
				r4(row.piv),
				r2(row.call),
				priors(callLb, i),
				r2(row.put),
				priors(putLb, i)
			];
		})
	};
}
