/**
 * Explicit-expiry GEX chain and orderflow (the `{ticker}_classic_gex_YYYYMMDD`,
 * `{ticker}_state_gex_YYYYMMDD` and `{ticker}_orderflow_YYYYMMDD` groups, every 5 s), built from
 * the frozen copy of one second's arrays (ExpiryState) restricted to one listed expiry.
 *
 * Same shapes and units as the classic gex_* chain and the orderflow payload. What differs, and
 * why:
 * - priors are empty arrays and max_priors is empty: the 5-second feed is a real-time view, and
 *   keeping 30 minutes of per-strike history for every listed expiry is not worth the memory;
 * - orderflow `z*` / `zero_*` / unprefixed fields describe the requested expiry, `o*` / `one_*`
 *   fields the next listed expiry after it (the requested one again when it is the last listed),
 *   mirroring zero / one = an expiry and the one after it;
 * - the flow fields (`dexoflow`, `gexoflow`, `cvroflow`, their `one_` twins, and `zcvr` / `ocvr`)
 *   value the session's classified buy-minus-sell volume at the CURRENT greeks, because session
 *   flows at trade-time greeks are accumulated per expiry set, not per expiry.
 */
import { largestAbsStrike, majorStrikes } from '../../lib/analytics/levels';
import { daysBetween } from '../market/clock';
import { RISK_FREE_RATE } from '../market/universe';
import { allocProfile, nearestRoot, type GammaProfile } from './kernels';
import { r2, r3, r4, type ExpiryState, type GexChainValue, type OrderflowValue } from './payloads';

const CONTRACT_SIZE = 100;
const MILLION = 1e6;
const INV_SQRT_2PI = 0.3989422804014327;

function contractRange(state: ExpiryState, expiry: number): [number, number] {
	const chain = state.chain;
	if (!Number.isInteger(expiry) || expiry < 0 || expiry >= chain.expiries.length)
		throw new RangeError(`no expiry index ${expiry} in the ${state.ticker} chain`);
	return [chain.expiryStart[expiry], chain.expiryStart[expiry + 1]];
}

/** G(X) terms of one expiry weighted by session volume or open interest (see TickerDay). */
function profileOf(state: ExpiryState, expiry: number, weights: ArrayLike<number>): GammaProfile {
	const [start, end] = contractRange(state, expiry);
	const chain = state.chain;
	const q = chain.model.dividendYield;
	const p = allocProfile(end - start);
	for (let c = start; c < end; c++) {
		const w = (chain.isCall[c] === 1 ? 1 : -1) * weights[c];
		if (w === 0) continue;
		const T = state.years[c];
		const sigma = state.iv[c];
		const vst = sigma * Math.sqrt(T);
		if (!(vst > 0)) continue;
		const i = p.count++;
		p.logStrike[i] = Math.log(chain.strike[c]);
		p.drift[i] = (RISK_FREE_RATE - q + 0.5 * sigma * sigma) * T;
		p.invVst[i] = 1 / vst;
		p.weight[i] = ((Math.exp(-q * T) * INV_SQRT_2PI * CONTRACT_SIZE * 0.01) / (vst * MILLION)) * w;
	}
	return p;
}

/** Zero gamma of one expiry: by-volume root nearest spot, else by-OI, else 0 (as the chains). */
function expiryZeroGamma(state: ExpiryState, expiry: number): number {
	const step = 0.001 * Math.max(1, state.chain.model.vol / 0.15);
	const root =
		nearestRoot(profileOf(state, expiry, state.volume), state.spot, step) ??
		nearestRoot(profileOf(state, expiry, state.chain.openInterest), state.spot, step);
	return root === null ? 0 : r2(root);
}

/** 25-delta risk reversal of one expiry (same interpolation as the chains' payloads). */
function expiryRiskReversal(state: ExpiryState, expiry: number): number {
	const [start, end] = contractRange(state, expiry);
	const ivAt = (call: boolean, target: number): number | undefined => {
		let prevD = NaN;
		let prevIv = NaN;
		for (let c = start; c < end; c++) {
			if ((state.chain.isCall[c] === 1) !== call) continue;
			const d = state.delta[c];
			if (!Number.isNaN(prevD) && (prevD - target) * (d - target) <= 0 && prevD !== d)
				return prevIv + ((target - prevD) / (d - prevD)) * (state.iv[c] - prevIv);
			prevD = d;
			prevIv = state.iv[c];
		}
		return undefined;
	};
	const call = ivAt(true, 0.25);
	const put = ivAt(false, -0.25);
	return call === undefined || put === undefined ? 0 : r4(call - put);
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
	const exps = state.chain.expiries;
	const dte = daysBetween(state.date, exps[expiry]);
	return [dte, expiry + 1 < exps.length ? daysBetween(state.date, exps[expiry + 1]) : dte];
}

/** The classic chain shape for one expiry (no priors; see the file comment). */
export function expiryGexValue(state: ExpiryState, expiry: number): GexChainValue {
	const { strikes, rows } = strikeRows(state, expiry);
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
		strikes: strikes.map((k, i) => [k, r2(vol[i]), r2(oi[i]), []]),
		sum_gex_vol: r3(vol.reduce((a, b) => a + b, 0)),
		sum_gex_oi: r3(oi.reduce((a, b) => a + b, 0)),
		delta_risk_reversal: expiryRiskReversal(state, expiry),
		max_priors: []
	};
}

/** Orderflow aggregates of one expiry ($M), flows at current greeks (see the file comment). */
function expiryFlow(state: ExpiryState, expiry: number) {
	const [start, end] = contractRange(state, expiry);
	const chain = state.chain;
	const spot = state.spot;
	const dexUnit = (CONTRACT_SIZE * spot) / MILLION;
	const gexUnit = (CONTRACT_SIZE * spot * spot * 0.01) / MILLION;
	let callDex = 0;
	let putDex = 0;
	let netCallDex = 0;
	let netPutDex = 0;
	let vanna = 0;
	let charm = 0;
	let callGex = 0;
	let putGex = 0;
	let netGex = 0;
	let boughtGamma = 0;
	let tradedGamma = 0;
	for (let c = start; c < end; c++) {
		const call = chain.isCall[c] === 1;
		const sign = call ? 1 : -1;
		const vol = state.volume[c];
		const net = state.buyVolume[c] - state.sellVolume[c];
		const dex = state.delta[c] * dexUnit;
		const g = state.gamma[c] * gexUnit;
		if (call) {
			callDex += dex * vol;
			netCallDex += dex * net;
			callGex += g * vol;
		} else {
			putDex += dex * vol;
			netPutDex += dex * net;
			putGex += g * vol;
		}
		netGex += sign * g * net;
		boughtGamma += g * net;
		tradedGamma += g * (state.buyVolume[c] + state.sellVolume[c]);
		vanna += sign * state.vanna[c] * dexUnit * 0.01 * vol;
		charm += sign * state.charmPerDay[c] * dexUnit * vol;
	}
	const { strikes, rows } = strikeRows(state, expiry);
	const gexMajors = majorStrikes(
		strikes,
		rows.map((r) => r.vol),
		spot
	);
	return {
		mlgamma: gexMajors.positive ?? 0,
		msgamma: gexMajors.negative ?? 0,
		mcall:
			largestAbsStrike(
				strikes,
				rows.map((r) => r.call),
				spot
			) ?? 0,
		mput:
			largestAbsStrike(
				strikes,
				rows.map((r) => r.put),
				spot
			) ?? 0,
		cvr: tradedGamma > 0 ? r4(boughtGamma / tradedGamma) : 0,
		gr: callGex + putGex > 0 ? r4(callGex / (callGex + putGex)) : 0,
		vanna: r2(vanna),
		charm: r2(charm),
		aggDex: r2(callDex + putDex),
		aggCallDex: r2(callDex),
		aggPutDex: r2(putDex),
		netDex: r2(netCallDex + netPutDex),
		netCallDex: r2(netCallDex),
		netPutDex: r2(netPutDex),
		gexFlow: r2(netGex),
		cvrFlow: r2(boughtGamma)
	};
}

/** Orderflow for one expiry: zero_ = that expiry, one_ = the next listed one. */
export function expiryOrderflowValue(state: ExpiryState, expiry: number): OrderflowValue {
	const z = expiryFlow(state, expiry);
	const next = expiry + 1 < state.chain.expiries.length ? expiry + 1 : expiry;
	const o = next === expiry ? z : expiryFlow(state, next);
	return {
		timestamp: state.timestamp,
		ticker: state.ticker,
		spot: state.spot,
		z_mlgamma: z.mlgamma,
		z_msgamma: z.msgamma,
		o_mlgamma: o.mlgamma,
		o_msgamma: o.msgamma,
		zero_mcall: z.mcall,
		zero_mput: z.mput,
		one_mcall: o.mcall,
		one_mput: o.mput,
		zcvr: z.cvr,
		ocvr: o.cvr,
		zgr: z.gr,
		ogr: o.gr,
		zvanna: z.vanna,
		ovanna: o.vanna,
		zcharm: z.charm,
		ocharm: o.charm,
		agg_dex: z.aggDex,
		one_agg_dex: o.aggDex,
		agg_call_dex: z.aggCallDex,
		one_agg_call_dex: o.aggCallDex,
		agg_put_dex: z.aggPutDex,
		one_agg_put_dex: o.aggPutDex,
		net_dex: z.netDex,
		one_net_dex: o.netDex,
		net_call_dex: z.netCallDex,
		one_net_call_dex: o.netCallDex,
		net_put_dex: z.netPutDex,
		one_net_put_dex: o.netPutDex,
		dexoflow: z.netDex,
		gexoflow: z.gexFlow,
		cvroflow: z.cvrFlow,
		one_dexoflow: o.netDex,
		one_gexoflow: o.gexFlow,
		one_cvroflow: o.cvrFlow
	};
}
