/**
 * The orderflow payload's two spellings: the REST JSON names (observed on the live service;
 * z/zero = 0DTE, o/one = next expiry) and the `orderflow_proto.Orderflow` field names, with
 * their proto field numbers and scale. Fields 4-11 are strike levels (uint32 x100), 12-37 are
 * signed metrics (sint32 x100).
 */

import { S100, U100, type FieldScale } from './scaling';

export interface OrderflowField {
	rest: string;
	proto: string;
	/** protobufjs static code uses camelCase property names. */
	camel: string;
	number: number;
	scale: FieldScale;
}

const PAIRS: ReadonlyArray<readonly [string, string]> = [
	['z_mlgamma', 'zero_major_long_gamma'],
	['z_msgamma', 'zero_major_short_gamma'],
	['o_mlgamma', 'one_major_long_gamma'],
	['o_msgamma', 'one_major_short_gamma'],
	['zero_mcall', 'zero_major_call_gamma'],
	['zero_mput', 'zero_major_put_gamma'],
	['one_mcall', 'one_major_call_gamma'],
	['one_mput', 'one_major_put_gamma'],
	['zcvr', 'zero_convexity_ratio'],
	['ocvr', 'one_convexity_ratio'],
	['zgr', 'zero_gex_ratio'],
	['ogr', 'one_gex_ratio'],
	['zvanna', 'zero_net_vanna'],
	['ovanna', 'one_net_vanna'],
	['zcharm', 'zero_net_charm'],
	['ocharm', 'one_net_charm'],
	['agg_dex', 'zero_agg_total_dex'],
	['one_agg_dex', 'one_agg_total_dex'],
	['agg_call_dex', 'zero_agg_call_dex'],
	['one_agg_call_dex', 'one_agg_call_dex'],
	['agg_put_dex', 'zero_agg_put_dex'],
	['one_agg_put_dex', 'one_agg_put_dex'],
	['net_dex', 'zero_net_total_dex'],
	['one_net_dex', 'one_net_total_dex'],
	['net_call_dex', 'zero_net_call_dex'],
	['one_net_call_dex', 'one_net_call_dex'],
	['net_put_dex', 'zero_net_put_dex'],
	['one_net_put_dex', 'one_net_put_dex'],
	['dexoflow', 'dex_orderflow'],
	['gexoflow', 'gex_orderflow'],
	['cvroflow', 'convexity_orderflow'],
	['one_dexoflow', 'one_dex_orderflow'],
	['one_gexoflow', 'one_gex_orderflow'],
	['one_cvroflow', 'one_convexity_orderflow']
];

function camel(s: string): string {
	return s.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());
}

/** The 34 metric fields (after timestamp, ticker, spot), in proto field order 4..37. */
export const ORDERFLOW_FIELDS: readonly OrderflowField[] = PAIRS.map(([rest, proto], i) => ({
	rest,
	proto,
	camel: camel(proto),
	number: i + 4,
	scale: i < 8 ? U100 : S100
}));

/** REST names of the orderflow metrics, in proto order. */
export const ORDERFLOW_REST_NAMES: readonly string[] = ORDERFLOW_FIELDS.map((f) => f.rest);
