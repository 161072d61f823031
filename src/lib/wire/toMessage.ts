/**
 * REST-shaped payloads -> wire message properties, applying each field's scale and the
 * deliberate clamping of src/lib/contract/scaling.ts.
 *
 * Mapping (REST -> proto):
 *   classic chain -> gex_profile.Gex: spot, zero_gamma, major_* (uint32 x100); min_dte,
 *     sec_min_dte (sint32); strikes[i] = [strike, gex_by_volume, gex_by_oi, priors] ->
 *     Strike{strike_price x100, value_1 x100, value_2 x100, priors.values x100};
 *     sum_gex_vol, sum_gex_oi, delta_risk_reversal (sint32 x1000);
 *     max_priors[i] = [strike, value] -> MaxPriorsTuple{first_value x100, second_value x1000}.
 *   state greek profile -> option_profile.OptionProfile: major_positive -> major_call_gamma,
 *     major_negative -> major_put_gamma, major_long_gamma, major_short_gamma (uint32 x100);
 *     mini_contracts[i] = [strike, call_ivol, put_ivol, call_value, call_priors, put_value,
 *     put_priors] -> MiniContract{strike x100, call_ivol x1000, put_ivol x1000,
 *     call_cvolume x100, call_cvolume_priors x100, put_cvolume (no scale),
 *     put_cvolume_priors.values (no scale)}.
 *   orderflow -> orderflow_proto.Orderflow: see contract/orderflowFields.ts.
 *   spot -> spot_price.SpotPrice: spot x100, source_timestamp_ms as is.
 */

import { ORDERFLOW_FIELDS } from '../contract/orderflowFields';
import {
	GEX_SCALES as G,
	MAX_PRIORS_SCALES as MP,
	MINI_CONTRACT_SCALES as MC,
	OPTION_PROFILE_SCALES as OP,
	SPOT_SCALES,
	STRIKE_SCALES as ST,
	toWire
} from '../contract/scaling';
import type { ClassicChain, GreekProfile, OrderflowBody } from '../contract/schemas';
import type {
	gex_profile,
	option_profile,
	orderflow_proto,
	spot_price
} from '../proto/generated/wire';
import type { SpotPayload } from './payloads';

/** Timestamps are whole seconds (ms for source_timestamp_ms); int64 carries them exactly. */
function wholeNumber(v: number | undefined): number {
	return typeof v === 'number' && Number.isFinite(v) ? Math.trunc(v) : 0;
}

export function gexMessage(chain: ClassicChain): gex_profile.Gex.$Properties {
	return {
		timestamp: wholeNumber(chain.timestamp),
		ticker: chain.ticker,
		min_dte: toWire(chain.min_dte, G.min_dte),
		sec_min_dte: toWire(chain.sec_min_dte, G.sec_min_dte),
		spot: toWire(chain.spot, G.spot),
		zero_gamma: toWire(chain.zero_gamma, G.zero_gamma),
		major_pos_vol: toWire(chain.major_pos_vol, G.major_pos_vol),
		major_pos_oi: toWire(chain.major_pos_oi, G.major_pos_oi),
		major_neg_vol: toWire(chain.major_neg_vol, G.major_neg_vol),
		major_neg_oi: toWire(chain.major_neg_oi, G.major_neg_oi),
		strikes: chain.strikes.map(([strike, byVol, byOi, priors]) => ({
			strike_price: toWire(strike, ST.strike_price),
			value_1: toWire(byVol, ST.value_1),
			value_2: toWire(byOi, ST.value_2),
			priors: { values: priors.map((p) => toWire(p, ST.prior)) }
		})),
		sum_gex_vol: toWire(chain.sum_gex_vol, G.sum_gex_vol),
		sum_gex_oi: toWire(chain.sum_gex_oi, G.sum_gex_oi),
		delta_risk_reversal: toWire(chain.delta_risk_reversal, G.delta_risk_reversal),
		max_priors: {
			tuples: chain.max_priors.map(([strike, value]) => ({
				first_value: toWire(strike, MP.first_value),
				second_value: toWire(value, MP.second_value)
			}))
		}
	};
}

export function optionProfileMessage(
	profile: GreekProfile
): option_profile.OptionProfile.$Properties {
	return {
		timestamp: wholeNumber(profile.timestamp),
		ticker: profile.ticker,
		spot: toWire(profile.spot, OP.spot),
		min_dte: toWire(profile.min_dte, OP.min_dte),
		sec_min_dte: toWire(profile.sec_min_dte, OP.sec_min_dte),
		major_call_gamma: toWire(profile.major_positive, OP.major_call_gamma),
		major_put_gamma: toWire(profile.major_negative, OP.major_put_gamma),
		major_long_gamma: toWire(profile.major_long_gamma, OP.major_long_gamma),
		major_short_gamma: toWire(profile.major_short_gamma, OP.major_short_gamma),
		mini_contracts: profile.mini_contracts.map(
			([strike, callIvol, putIvol, callValue, callPriors, putValue, putPriors]) => ({
				strike: toWire(strike, MC.strike),
				call_ivol: toWire(callIvol, MC.call_ivol),
				put_ivol: toWire(putIvol, MC.put_ivol),
				call_cvolume: toWire(callValue, MC.call_cvolume),
				call_cvolume_priors: callPriors.map((p) => toWire(p, MC.call_cvolume_prior)),
				// Null put fields (the live service's greek profiles) are absent optional fields.
				...(putValue === null ? {} : { put_cvolume: toWire(putValue, MC.put_cvolume) }),
				...(putPriors === null
					? {}
					: {
							put_cvolume_priors: {
								values: putPriors.map((p) => toWire(p, MC.put_cvolume_prior))
							}
						})
			})
		)
	};
}

export function orderflowMessage(body: OrderflowBody): orderflow_proto.Orderflow.$Properties {
	const msg: Record<string, number | string> = {
		timestamp: wholeNumber(body.timestamp),
		ticker: body.ticker,
		spot: toWire(body.spot, SPOT_SCALES.spot)
	};
	for (const f of ORDERFLOW_FIELDS) msg[f.proto] = toWire(body[f.rest], f.scale);
	return msg as orderflow_proto.Orderflow.$Properties;
}

export function spotMessage(spot: SpotPayload): spot_price.SpotPrice.$Properties {
	const msg: spot_price.SpotPrice.$Properties = {
		timestamp: wholeNumber(spot.timestamp),
		ticker: spot.ticker,
		spot: toWire(spot.spot, SPOT_SCALES.spot)
	};
	if (spot.source_timestamp_ms !== undefined) {
		msg.source_timestamp_ms = wholeNumber(spot.source_timestamp_ms);
	}
	return msg;
}
