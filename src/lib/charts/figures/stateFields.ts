/**
 * The State package's fields that do not apply to it. The live service sends a State chain's
 * OI side (major_pos_oi, major_neg_oi, sum_gex_oi, each strike's OI value), its zero_gamma and
 * delta_risk_reversal, and the State majors' mpos_oi, mneg_oi, zero_gamma and net_gex_oi as the
 * literal 0: not a level at 0 but "not applicable". The views show them as NA_FOR_STATE and
 * never draw them; a service that fills them (the documented profile) is shown as sent.
 */
import type { ColumnarGex } from '../../wire/columnar';

export const NA_FOR_STATE = 'n/a for State';

/** A State value: its formatting, or NA_FOR_STATE when the service sent 0. */
export function stateValue(v: number, format: (v: number) => string): string {
	return v === 0 ? NA_FOR_STATE : format(v);
}

/** Does this State chain carry no OI values at all (the live service's State chains)? */
export function stateOiMissing(chain: Pick<ColumnarGex, 'gexOi' | 'sumGexOi'>): boolean {
	return chain.sumGexOi === 0 && chain.gexOi.every((v) => v === 0);
}
