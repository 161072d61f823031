/**
 * Payload profiles: what shape the State payloads take.
 *
 * - `observed` (default): what the live service sends, as recorded by its clients. Greek
 *   profiles carry one net value per strike (call + put) in call_cvolume with 3 priors and null
 *   put fields (absent on the wire); State chains (`/state/gex_*`, the state_gex hub) report
 *   major_pos_oi, major_neg_oi, sum_gex_oi, delta_risk_reversal, zero_gamma and every strike's OI
 *   value as 0, and the State majors mpos_oi, mneg_oi, zero_gamma and net_gex_oi as 0: the State
 *   model has no OI side.
 * - `documented`: the richer split the engine computes (calls and puts apart, five priors each,
 *   every State field filled), for whoever wants it (`--payloads documented`).
 *
 * The transforms are pure and run on the view-formatted value, after everything else.
 */
import type { GexChainValue, GreekProfileValue, MajorsValue } from './categoryPayloads';
import { r2 } from './rounding';

export const PAYLOAD_PROFILES = ['observed', 'documented'] as const;
export type PayloadProfile = (typeof PAYLOAD_PROFILES)[number];
export const DEFAULT_PAYLOAD_PROFILE: PayloadProfile = 'observed';

/** How many priors a net greek row carries in the observed profile. */
export const OBSERVED_GREEK_PRIORS = 3;

export function isPayloadProfile(v: unknown): v is PayloadProfile {
	return typeof v === 'string' && (PAYLOAD_PROFILES as readonly string[]).includes(v);
}

/**
 * One net value per strike: call + put, its first 3 priors (1, 5 and 10 minutes ago) summed the
 * same way; the put fields null.
 */
export function observedGreekProfile(value: GreekProfileValue): GreekProfileValue {
	return {
		...value,
		mini_contracts: value.mini_contracts.map(([k, civ, piv, cv, cp, pv, pp]) => {
			const priors: number[] = [];
			for (let i = 0; i < Math.min(OBSERVED_GREEK_PRIORS, cp.length); i++) {
				priors.push(r2(cp[i] + (pp?.[i] ?? 0)));
			}
			return [k, civ, piv, r2(cv + (pv ?? 0)), priors, null, null];
		})
	};
}

/** A State chain: the OI fields and zero gamma as the literal 0 the live service sends. */
export function observedStateChain(value: GexChainValue): GexChainValue {
	return {
		...value,
		zero_gamma: 0,
		major_pos_oi: 0,
		major_neg_oi: 0,
		sum_gex_oi: 0,
		delta_risk_reversal: 0,
		strikes: value.strikes.map(([k, vol, , priors]) => [k, vol, 0, priors])
	};
}

/** A strike row's OI value, the third of `[strike, vol, oi, [priors]]`. */
const STRIKE_ROW_OI = /\[([^,[\]]*),([^,[\]]*),[^,[\]]*,\[/g;
/** The chain's fields observedStateChain sets to 0 (scalars: a number or null). */
const STATE_ZEROED =
	/"(zero_gamma|major_pos_oi|major_neg_oi|sum_gex_oi|delta_risk_reversal)":[^,}]*/g;

/**
 * JSON.stringify(observedStateChain(chain)) from JSON.stringify(chain), without building or
 * serialising the State chain again: the same text with the OI values and the zeroed fields
 * replaced by 0 (strike rows are the only arrays of three scalars and an array; the zeroed
 * fields' names occur nowhere else; the ticker is a symbol of src/service/market/universe.ts).
 * A history day's GEX part spends a quarter of its serialisation here instead of a half.
 */
export function observedStateChainJson(chainJson: string): string {
	return chainJson.replace(STRIKE_ROW_OI, '[$1,$2,0,[').replace(STATE_ZEROED, '"$1":0');
}

/** State majors: the OI majors, zero gamma and net OI GEX as 0. */
export function observedStateMajors(value: MajorsValue): MajorsValue {
	return { ...value, zero_gamma: 0, mpos_oi: 0, mneg_oi: 0, net_gex_oi: 0 };
}
