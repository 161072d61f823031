/**
 * Orderflow arithmetic shared by the zero / one payload (categoryPayloads.ts, over an expiry set) and
 * the explicit-expiry payload (expiryPayloads.ts, over one expiry): the per-contract sums of a
 * contract range, the ratios and roundings of the aggregates, and the wire field mapping. Kept
 * in one place so a fix to a sum, a ratio or a field name lands in both feeds.
 */
import { r2, r4 } from './rounding';

/**
 * The orderflow payload: the contract's REST names (src/lib/contract/orderflowFields.ts) beside
 * timestamp, ticker and spot. Not the contract's OrderflowBody type itself, whose numeric index
 * signature cannot hold the ticker string while an object is being built.
 */
export interface OrderflowValue {
	timestamp: number;
	ticker: string;
	spot: number;
	[field: string]: number | string;
}

/** The per-contract arrays orderflow reads (a TickerDay's live arrays or a frozen copy). */
export interface FlowContracts {
	isCall: ArrayLike<number>;
	delta: ArrayLike<number>;
	gamma: ArrayLike<number>;
	vanna: ArrayLike<number>;
	charmPerDay: ArrayLike<number>;
	volume: ArrayLike<number>;
	buyVolume: ArrayLike<number>;
	sellVolume: ArrayLike<number>;
}

/** Sums over a contract range ($M): DEX of the session's volume and of buy minus sell volume. */
export interface FlowSums {
	callDex: number;
	putDex: number;
	netCallDex: number;
	netPutDex: number;
	/** Holder-signed vanna ($M of delta per vol point) and charm ($M of delta per day) by volume. */
	vanna: number;
	charm: number;
	/** Unsigned call / put GEX by volume. */
	callGex: number;
	putGex: number;
}

/** Sums of contracts [start, end) at the current greeks. */
export function flowSums(src: FlowContracts, start: number, end: number, spot: number): FlowSums {
	const dexUnit = (100 * spot) / 1e6;
	const gexUnit = (100 * spot * spot * 0.01) / 1e6;
	const s: FlowSums = {
		callDex: 0,
		putDex: 0,
		netCallDex: 0,
		netPutDex: 0,
		vanna: 0,
		charm: 0,
		callGex: 0,
		putGex: 0
	};
	for (let c = start; c < end; c++) {
		const call = src.isCall[c] === 1;
		const sign = call ? 1 : -1;
		const vol = src.volume[c];
		const dex = src.delta[c] * dexUnit;
		const net = src.buyVolume[c] - src.sellVolume[c];
		const g = src.gamma[c] * gexUnit;
		if (call) {
			s.callDex += dex * vol;
			s.netCallDex += dex * net;
			s.callGex += g * vol;
		} else {
			s.putDex += dex * vol;
			s.netPutDex += dex * net;
			s.putGex += g * vol;
		}
		s.vanna += sign * src.vanna[c] * dexUnit * 0.01 * vol;
		s.charm += sign * src.charmPerDay[c] * dexUnit * vol;
	}
	return s;
}

/** Strikes of one range: largest / most negative GEX by volume, largest call / put GEX. */
export interface FlowStrikes {
	mlgamma: number;
	msgamma: number;
	mcall: number;
	mput: number;
}

/** Session flows of classified prints ($M): net delta, signed gamma, convexity bought / traded. */
export interface SessionFlows {
	dex: number;
	gex: number;
	cvr: number;
	cvrAbs: number;
}

export type FlowAggregates = ReturnType<typeof flowAggregates>;

/** The rounded aggregates of one range, the z / o half of an orderflow payload. */
export function flowAggregates(sums: FlowSums, strikes: FlowStrikes, flows: SessionFlows) {
	const { callDex, putDex, netCallDex, netPutDex, callGex, putGex } = sums;
	return {
		...strikes,
		/** Convexity ratio: net customer-bought gamma over all classified gamma traded, in [-1, 1]. */
		cvr: flows.cvrAbs > 0 ? r4(flows.cvr / flows.cvrAbs) : 0,
		/** GEX ratio: call GEX share of call + put GEX by volume, in [0, 1]. */
		gr: callGex + putGex > 0 ? r4(callGex / (callGex + putGex)) : 0,
		vanna: r2(sums.vanna),
		charm: r2(sums.charm),
		aggDex: r2(callDex + putDex),
		aggCallDex: r2(callDex),
		aggPutDex: r2(putDex),
		netDex: r2(netCallDex + netPutDex),
		netCallDex: r2(netCallDex),
		netPutDex: r2(netPutDex),
		dexFlow: r2(flows.dex),
		gexFlow: r2(flows.gex),
		cvrFlow: r2(flows.cvr)
	};
}

/** The wire payload: z / zero_ / unprefixed = the first range, o / one_ = the second. */
export function orderflowPayload(
	timestamp: number,
	ticker: string,
	spot: number,
	z: FlowAggregates,
	o: FlowAggregates
): OrderflowValue {
	return {
		timestamp,
		ticker,
		spot,
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
		dexoflow: z.dexFlow,
		gexoflow: z.gexFlow,
		cvroflow: z.cvrFlow,
		one_dexoflow: o.dexFlow,
		one_gexoflow: o.gexFlow,
		one_cvroflow: o.cvrFlow
	};
}
