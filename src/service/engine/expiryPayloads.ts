/**
 * Explicit-expiry GEX chain and orderflow (the `{ticker}_classic_gex_YYYYMMDD`,
 * `{ticker}_state_gex_YYYYMMDD` and `{ticker}_orderflow_YYYYMMDD` groups, every 5 s), built from
 * the frozen copy of one second's arrays (ExpiryState) restricted to one listed expiry.
 *
 * Same shapes and units as the classic gex_* chain and the orderflow payload, priors and
 * max_priors included (derived on demand for the requested expiry, ./expiryHistory). What
 * differs, and why:
 * - the rows are every listed strike of the expiry (not a window around spot), and max_priors
 *   ranges over them;
 * - orderflow `z*` / `zero_*` / unprefixed fields describe the requested expiry, `o*` / `one_*`
 *   fields the next listed expiry after it (the requested one again when it is the last listed),
 *   mirroring zero / one = an expiry and the one after it;
 * - the flow fields (`dexoflow`, `gexoflow`, `cvroflow`, their `one_` twins, and `zcvr` / `ocvr`)
 *   value the session's classified buy-minus-sell volume at the CURRENT greeks, because session
 *   flows at trade-time greeks are accumulated per expiry set, not per expiry.
 */
import { largestAbsStrike, majorStrikes } from '../../lib/analytics/keyStrikes';
import { RISK_FREE_RATE } from '../market/universe';
import { GammaKernel } from '../../lib/analytics/gammaKernel';
import { zeroGammaRoots } from './tickerDay';
import { expiryLookbacks } from './expiryHistory';
import type { ExpiryState } from './expiryState';
import { flowAggregates, flowSums, orderflowPayload, type FlowAggregates } from './orderflow';
import {
	dtePair,
	maxChangesOf,
	priors,
	r2,
	r3,
	type GexChainValue,
	type OrderflowValue
} from './categoryPayloads';
import { riskReversal25 } from './riskReversal';

const CONTRACT_SIZE = 100;
const MILLION = 1e6;

function contractRange(state: ExpiryState, expiry: number): [number, number] {
	const chain = state.chain;
	if (!Number.isInteger(expiry) || expiry < 0 || expiry >= chain.expiries.length)
		throw new RangeError(`no expiry index ${expiry} in the ${state.ticker} chain`);
	return [chain.expiryStart[expiry], chain.expiryStart[expiry + 1]];
}

/** Zero gamma of one expiry: by-volume root nearest spot, else by-OI, else 0 (as the chains). */
function expiryZeroGamma(state: ExpiryState, expiry: number): number {
	const [start, end] = contractRange(state, expiry);
	const chain = state.chain;
	const arrays = {
		spot: state.spot,
		rate: RISK_FREE_RATE,
		dividendYield: chain.model.dividendYield,
		contractSize: CONTRACT_SIZE,
		length: chain.n,
		strike: chain.strike,
		expiryYears: state.years,
		iv: state.iv,
		isCall: chain.isCall,
		openInterest: chain.openInterest,
		volume: state.volume
	};
	const selection = Int32Array.from({ length: end - start }, (_, i) => start + i);
	const { vol, oi } = zeroGammaRoots(new GammaKernel(), arrays, selection);
	const root = vol ?? oi;
	return root === null ? 0 : r2(root);
}

/** 25-delta risk reversal of one expiry (same interpolation as the chains' payloads). */
function expiryRiskReversal(state: ExpiryState, expiry: number): number {
	const [start, end] = contractRange(state, expiry);
	return riskReversal25(state.chain.isCall, state.delta, state.iv, start, end);
}

/** Per listed strike of one expiry: GEX by volume and by OI, and call / put GEX by volume. */
function strikeRows(state: ExpiryState, expiry: number) {
	const [start, end] = contractRange(state, expiry);
	const chain = state.chain;
	const gexUnit = (CONTRACT_SIZE * state.spot * state.spot * 0.01) / MILLION;
	const rows = new Map<number, { vol: number; oi: number; call: number; put: number }>();
	for (let c = start; c < end; c++) {
		const slot = chain.strikeSlot[c];
		let row = rows.get(slot);
		if (!row) rows.set(slot, (row = { vol: 0, oi: 0, call: 0, put: 0 }));
		const call = chain.isCall[c] === 1;
		const g = (call ? 1 : -1) * state.gamma[c] * gexUnit;
		row.vol += g * state.volume[c];
		row.oi += g * chain.openInterest[c];
		if (call) row.call += g * state.volume[c];
		else row.put += g * state.volume[c];
	}
	const slots = [...rows.keys()].sort((a, b) => a - b);
	return {
		strikes: slots.map((s) => chain.strikes[s]),
		rows: slots.map((s) => rows.get(s) as { vol: number; oi: number; call: number; put: number })
	};
}

function dtes(state: ExpiryState, expiry: number): [number, number] {
	return dtePair(state.date, state.chain.expiries, expiry, expiry + 1);
}

/** The classic chain shape for one expiry (see the file comment). */
export function expiryGexValue(state: ExpiryState, expiry: number): GexChainValue {
	const { strikes, rows } = strikeRows(state, expiry);
	const lookback = expiryLookbacks(state, expiry).gex;
	const vol = rows.map((r) => r.vol);
	const oi = rows.map((r) => r.oi);
	const byVol = majorStrikes(strikes, vol, state.spot);
	const byOi = majorStrikes(strikes, oi, state.spot);
	const [minDte, secDte] = dtes(state, expiry);
	return {
		timestamp: state.timestamp,
		ticker: state.ticker,
		min_dte: minDte,
		sec_min_dte: secDte,
		spot: state.spot,
		zero_gamma: expiryZeroGamma(state, expiry),
		major_pos_vol: byVol.positive ?? 0,
		major_pos_oi: byOi.positive ?? 0,
		major_neg_vol: byVol.negative ?? 0,
		major_neg_oi: byOi.negative ?? 0,
		strikes: strikes.map((k, i) => [k, r2(vol[i]), r2(oi[i]), priors(lookback, i)]),
		sum_gex_vol: r3(vol.reduce((a, b) => a + b, 0)),
		sum_gex_oi: r3(oi.reduce((a, b) => a + b, 0)),
		delta_risk_reversal: expiryRiskReversal(state, expiry),
		max_priors: maxChangesOf(lookback, Float64Array.from(strikes), state.spot)
	};
}

/** Orderflow aggregates of one expiry ($M), flows at current greeks (see the file comment). */
function expiryFlow(state: ExpiryState, expiry: number): FlowAggregates {
	const [start, end] = contractRange(state, expiry);
	const chain = state.chain;
	const spot = state.spot;
	const sums = flowSums({ ...state, isCall: chain.isCall }, start, end, spot);
	// The session's classified volume at the current gammas stands in for the per-set flows.
	const gexUnit = (CONTRACT_SIZE * spot * spot * 0.01) / MILLION;
	let netGex = 0;
	let boughtGamma = 0;
	let tradedGamma = 0;
	for (let c = start; c < end; c++) {
		const net = state.buyVolume[c] - state.sellVolume[c];
		const g = state.gamma[c] * gexUnit;
		netGex += (chain.isCall[c] === 1 ? 1 : -1) * g * net;
		boughtGamma += g * net;
		tradedGamma += g * (state.buyVolume[c] + state.sellVolume[c]);
	}
	const { strikes, rows } = strikeRows(state, expiry);
	const gexMajors = majorStrikes(
		strikes,
		rows.map((r) => r.vol),
		spot
	);
	const largest = (values: number[]): number => largestAbsStrike(strikes, values, spot) ?? 0;
	return flowAggregates(
		sums,
		{
			mlgamma: gexMajors.positive ?? 0,
			msgamma: gexMajors.negative ?? 0,
			mcall: largest(rows.map((r) => r.call)),
			mput: largest(rows.map((r) => r.put))
		},
		{
			dex: sums.netCallDex + sums.netPutDex,
			gex: netGex,
			cvr: boughtGamma,
			cvrAbs: tradedGamma
		}
	);
}

/** Orderflow for one expiry: zero_ = that expiry, one_ = the next listed one. */
export function expiryOrderflowValue(state: ExpiryState, expiry: number): OrderflowValue {
	const z = expiryFlow(state, expiry);
	const next = expiry + 1 < state.chain.expiries.length ? expiry + 1 : expiry;
	const o = next === expiry ? z : expiryFlow(state, next);
	return orderflowPayload(state.timestamp, state.ticker, state.spot, z, o);
}
