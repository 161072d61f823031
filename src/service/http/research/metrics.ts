/**
 * What a research metric name means. The contract lists the names (src/lib/contract/research.ts);
 * this file decides how each is computed:
 * - `<greek>_<bid|ask|mid>`: the greek (or `iv`) of each contract at the IV solved from that side;
 * - `<greek>_ex_<oi|vol|both>[_skew_adj]` and `dex|gex|tex|vex_<basis>[_skew_adj]`: exposures
 *   weighted by open interest, volume or both, optionally skew-adjusted;
 * - per-contract chain fields (intrinsic and time value, last price, open interest, volume,
 *   put-call parity) and chain-level levels (max pain, gamma flip, volatility trigger, gamma wall).
 */
import type { GreekName } from './researchGreeks';

export type Side = 'bid' | 'ask' | 'mid';
export type Basis = 'oi' | 'vol' | 'both';
export type ChainField =
	'intrinsic_value' | 'time_value' | 'last_price' | 'open_interest' | 'volume' | 'parity';
export type ChainLevel = 'max_pain' | 'gamma_flip' | 'volatility_trigger' | 'gamma_wall_abs';

export type MetricSpec =
	| { family: 'quote'; greek: GreekName | 'iv'; side: Side }
	| { family: 'exposure'; greek: GreekName; basis: Basis; skewAdj: boolean }
	| { family: 'field'; field: ChainField }
	| { family: 'level'; level: ChainLevel };

/** Values of these families add up across contracts; the others are averaged when aggregated. */
export function isAdditive(spec: MetricSpec): boolean {
	if (spec.family === 'exposure') return true;
	return spec.family === 'field' && (spec.field === 'open_interest' || spec.field === 'volume');
}

const NAMED: Record<string, GreekName> = { dex: 'delta', gex: 'gamma', tex: 'theta', vex: 'vega' };

export function parseMetric(name: string): MetricSpec | undefined {
	let m = /^([a-z]+)_(bid|ask|mid)$/.exec(name);
	if (m) return { family: 'quote', greek: m[1] as GreekName | 'iv', side: m[2] as Side };
	m = /^(?:([a-z]+)_ex|(dex|gex|tex|vex))_(oi|vol|both)(_skew_adj)?$/.exec(name);
	if (m) {
		const greek = m[1] ? (m[1] as GreekName) : NAMED[m[2]];
		return { family: 'exposure', greek, basis: m[3] as Basis, skewAdj: Boolean(m[4]) };
	}
	switch (name) {
		case 'oi':
		case 'open_interest':
			return { family: 'field', field: 'open_interest' };
		case 'put_call_parity':
		case 'parity':
			return { family: 'field', field: 'parity' };
		case 'intrinsic_value':
		case 'time_value':
		case 'last_price':
		case 'volume':
			return { family: 'field', field: name };
		case 'max_pain':
		case 'gamma_flip':
		case 'volatility_trigger':
		case 'gamma_wall_abs':
			return { family: 'level', level: name };
	}
	return undefined;
}
