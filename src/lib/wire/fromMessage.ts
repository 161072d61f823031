/**
 * Decoded wire messages -> REST-shaped values in units (the inverse of toMessage.ts; values
 * come back truncated to the field's scale, and clamped ones stay clamped).
 */

import { ORDERFLOW_FIELDS } from '../contract/orderflowFields';
import {
	fromWire,
	GEX_SCALES as G,
	MAX_PRIORS_SCALES as MP,
	MINI_CONTRACT_SCALES as MC,
	OPTION_PROFILE_SCALES as OP,
	SPOT_SCALES,
	STRIKE_SCALES as ST
} from '../contract/scaling';
import type { ClassicChain, GreekProfile, OrderflowBody } from '../contract/schemas';
import type {
	gex_profile,
	option_profile,
	orderflow_proto,
	spot_price
} from '../proto/generated/wire';
import type { SpotPayload } from './payloads';

/**
 * int64 fields decode to a Long when the `long` package is loaded (protobufjs/minimal always
 * loads it); unix seconds and milliseconds fit a double exactly.
 */
export function int64ToNumber(v: unknown): number {
	if (typeof v === 'number') return v;
	if (v && typeof v === 'object') {
		const l = v as { toNumber?: () => number; low?: number; high?: number; unsigned?: boolean };
		if (typeof l.toNumber === 'function') return l.toNumber();
		if (typeof l.low === 'number' && typeof l.high === 'number') {
			return l.high * 4294967296 + (l.low >>> 0);
		}
	}
	return 0;
}

/** Optional scalars read as null when absent; REST integers default to 0 then. */
function opt(v: number | null | undefined): number {
	return typeof v === 'number' ? v : 0;
}

export function chainFromGex(m: gex_profile.Gex.$Properties): ClassicChain {
	return {
		timestamp: int64ToNumber(m.timestamp),
		ticker: m.ticker ?? '',
		min_dte: opt(m.min_dte),
		sec_min_dte: opt(m.sec_min_dte),
		spot: fromWire(opt(m.spot), G.spot),
		zero_gamma: fromWire(opt(m.zero_gamma), G.zero_gamma),
		major_pos_vol: fromWire(opt(m.major_pos_vol), G.major_pos_vol),
		major_pos_oi: fromWire(opt(m.major_pos_oi), G.major_pos_oi),
		major_neg_vol: fromWire(opt(m.major_neg_vol), G.major_neg_vol),
		major_neg_oi: fromWire(opt(m.major_neg_oi), G.major_neg_oi),
		strikes: (m.strikes ?? []).map((s) => [
			fromWire(opt(s.strike_price), ST.strike_price),
			fromWire(opt(s.value_1), ST.value_1),
			fromWire(opt(s.value_2), ST.value_2),
			(s.priors?.values ?? []).map((p) => fromWire(p, ST.prior))
		]),
		sum_gex_vol: fromWire(opt(m.sum_gex_vol), G.sum_gex_vol),
		sum_gex_oi: fromWire(opt(m.sum_gex_oi), G.sum_gex_oi),
		delta_risk_reversal: fromWire(opt(m.delta_risk_reversal), G.delta_risk_reversal),
		max_priors: (m.max_priors?.tuples ?? []).map((t) => [
			fromWire(opt(t.first_value), MP.first_value),
			fromWire(opt(t.second_value), MP.second_value)
		])
	};
}

export function greekProfileFromMessage(m: option_profile.OptionProfile.$Properties): GreekProfile {
	return {
		timestamp: int64ToNumber(m.timestamp),
		ticker: m.ticker ?? '',
		spot: fromWire(opt(m.spot), OP.spot),
		min_dte: opt(m.min_dte),
		sec_min_dte: opt(m.sec_min_dte),
		major_positive: fromWire(opt(m.major_call_gamma), OP.major_call_gamma),
		major_negative: fromWire(opt(m.major_put_gamma), OP.major_put_gamma),
		major_long_gamma: fromWire(opt(m.major_long_gamma), OP.major_long_gamma),
		major_short_gamma: fromWire(opt(m.major_short_gamma), OP.major_short_gamma),
		mini_contracts: (m.mini_contracts ?? []).map((c) => [
			fromWire(opt(c.strike), MC.strike),
			fromWire(opt(c.call_ivol), MC.call_ivol),
			fromWire(opt(c.put_ivol), MC.put_ivol),
			fromWire(opt(c.call_cvolume), MC.call_cvolume),
			(c.call_cvolume_priors ?? []).map((p) => fromWire(p, MC.call_cvolume_prior)),
			// Absent optional put fields are null, as in the JSON of the live service.
			typeof c.put_cvolume === 'number' ? c.put_cvolume : null,
			c.put_cvolume_priors ? [...(c.put_cvolume_priors.values ?? [])] : null
		])
	};
}

export function orderflowFromMessage(m: orderflow_proto.Orderflow.$Properties): OrderflowBody {
	const rec = m as unknown as Record<string, number | null | undefined>;
	const body: Record<string, number | string> = {
		timestamp: int64ToNumber(m.timestamp),
		ticker: m.ticker ?? '',
		spot: fromWire(opt(m.spot), SPOT_SCALES.spot)
	};
	for (const f of ORDERFLOW_FIELDS) body[f.rest] = fromWire(opt(rec[f.proto]), f.scale);
	return body as OrderflowBody;
}

export function spotFromMessage(m: spot_price.SpotPrice.$Properties): SpotPayload {
	const out: SpotPayload = {
		timestamp: int64ToNumber(m.timestamp),
		ticker: m.ticker ?? '',
		spot: fromWire(opt(m.spot), SPOT_SCALES.spot)
	};
	if (m.source_timestamp_ms !== null && m.source_timestamp_ms !== undefined) {
		out.source_timestamp_ms = int64ToNumber(m.source_timestamp_ms);
	}
	return out;
}
