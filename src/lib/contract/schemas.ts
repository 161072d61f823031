/**
 * Runtime schemas of every JSON response of the contract (and the negotiate request bodies),
 * written from docs/UPSTREAM.md and cross-checked against the OpenAPI 2.3.0 file; where the two
 * disagree the observed shapes win (state greek profile, orderflow fields).
 *
 * Objects drop undocumented members (upstream may add fields) and refuse missing or mistyped
 * documented ones with the JSON path of the first mismatch. Numbers must be finite.
 */

import {
	isCanonicalCategory,
	isGexCategory,
	isGreekCategory,
	type CanonicalCategory,
	type PackageName
} from './categories';
import { isCalendarDate } from './dates';
import { isLegacyHub, isV2Hub } from './hubs';
import { ORDERFLOW_REST_NAMES } from './orderflowFields';
import type { RouteId, RouteParams } from './routes';
import {
	array,
	bool,
	int,
	nullable,
	num,
	object,
	pattern,
	record,
	refine,
	str,
	tuple,
	union,
	type Infer,
	type Schema
} from './validate';

export type { Infer, Schema } from './validate';

const tickerSymbol = pattern(/^[A-Za-z0-9_^.]{1,10}$/, 'a ticker symbol');
const isoDate = refine(str, isCalendarDate, 'a YYYY-MM-DD calendar date');
const wsUrl = pattern(/^wss?:\/\/\S+$/, 'a ws:// or wss:// URL');
const httpUrl = pattern(/^https?:\/\/\S+$/, 'an http(s) URL');
const pair = tuple([num, num] as const);

export const errorBodySchema = object({ error: str });

export const tickersSchema = object({
	stocks: array(tickerSymbol),
	indexes: array(tickerSymbol),
	futures: array(tickerSymbol)
});

export const quantTickersSchema = object({
	stocks: array(tickerSymbol),
	indexes: array(tickerSymbol)
});

export const categoriesSchema = array(refine(str, isCanonicalCategory, 'a data category name'));

/** `[strike, gex_by_volume, gex_by_oi, [priors]]`; five priors in practice, order undocumented. */
export const strikeRowSchema = tuple([num, num, num, array(num)] as const);

/** GET /v2/{ticker}/classic/{category} and /state/gex_*. */
export const classicChainSchema = object({
	timestamp: int,
	ticker: tickerSymbol,
	min_dte: int,
	sec_min_dte: int,
	spot: num,
	zero_gamma: num,
	major_pos_vol: num,
	major_pos_oi: num,
	major_neg_vol: num,
	major_neg_oi: num,
	strikes: array(strikeRowSchema),
	sum_gex_vol: num,
	sum_gex_oi: num,
	delta_risk_reversal: num,
	/** [strike, value] for the current, 1, 5, 10, 15 and 30 minute windows. */
	max_priors: array(pair, { max: 6 })
});

export const majorsSchema = object({
	zero_gamma: num,
	mpos_vol: num,
	mpos_oi: num,
	mneg_vol: num,
	mneg_oi: num,
	net_gex_vol: num,
	net_gex_oi: num,
	timestamp: int,
	ticker: tickerSymbol,
	spot: num
});

export const maxChangeSchema = object({
	timestamp: int,
	ticker: tickerSymbol,
	current: pair,
	one: pair,
	five: pair,
	ten: pair,
	fifteen: pair,
	thirty: pair
});

/**
 * `[strike, call_ivol, put_ivol, call_value, [call priors], put_value, [put priors]]`. The live
 * service sends greek profiles with one net value per strike in call_value (3 priors) and the
 * put fields null (the proto marks them optional: they carry data in the volume categories);
 * the documented split has both sides.
 */
export const miniContractRowSchema = tuple([
	num,
	num,
	num,
	num,
	array(num),
	nullable(num),
	nullable(array(num))
] as const);

/** GET /v2/{ticker}/state/{greek category} (observed shape; the OpenAPI file is wrong here). */
export const greekProfileSchema = object({
	timestamp: int,
	ticker: tickerSymbol,
	spot: num,
	min_dte: int,
	sec_min_dte: int,
	major_positive: num,
	major_negative: num,
	major_long_gamma: num,
	major_short_gamma: num,
	mini_contracts: array(miniContractRowSchema)
});

const orderflowMetrics = Object.fromEntries(ORDERFLOW_REST_NAMES.map((n) => [n, num])) as Record<
	string,
	typeof num
>;

/** GET /v2/{ticker}/orderflow/orderflow (observed fields). */
export const orderflowSchema = object({
	timestamp: int,
	ticker: tickerSymbol,
	spot: num,
	...orderflowMetrics
}) as Schema<{ timestamp: number; ticker: string; spot: number } & Record<string, number>>;

export const expiriesSchema = object({
	ticker: tickerSymbol,
	start_date: isoDate,
	end_date: isoDate,
	expiries: array(isoDate)
});

export const futuresConversionSchema = object({
	future_contract: pattern(/^[A-Z]{1,3}[FGHJKMNQUVXZ]\d{1,2}$/, 'a futures contract code'),
	multiplier: num,
	additive: num
});

/** GET /v2/hist/... with `noredirect`. */
export const historyUrlSchema = object({ url: httpUrl });

const mainEntitlement = object({ level: str, addons: array(str) });
const secondEntitlement = object({ active: bool, tier: nullable(str) });

/** GET /v2/whoami (the seed's account identity resource). */
export const whoamiSchema = object({
	_id: str,
	role: str,
	level: array(str),
	max_level: nullable(str),
	addons: array(str),
	entitlements: record(union(mainEntitlement, secondEntitlement)),
	permissions: array(str),
	account: object({
		commercial: bool,
		commercial_delegate: bool,
		display_use: bool,
		child: bool,
		managed: bool,
		delegated: bool
	}),
	api_key: object({
		id: refine(str, (s) => s.includes('…') || s.includes('...'), 'a masked key id'),
		label: str,
		product: str,
		integration: str,
		created_at: str
	}),
	created: nullable(str)
});

/** POST /v2/negotiate answer: one URL per V2 hub the key may use. */
export const negotiateResponseSchema = object({
	websocket_urls: record(wsUrl, isV2Hub, 'hub name')
});

/** Deprecated GET /v2/negotiate answer: current-generation hub names and a group prefix. */
export const legacyNegotiateResponseSchema = object({
	websocket_urls: record(wsUrl, isLegacyHub, 'hub name'),
	prefix: pattern(/^[A-Za-z0-9]+$/, 'a group prefix')
});

/** PATCH /v2/negotiate answer. */
export const patchResponseSchema = object({
	updated_groups: int,
	hubs: record(int, isV2Hub, 'hub name')
});

/** POST /v2/negotiate body (group names are checked by hubs.planNegotiation). */
export const negotiateRequestSchema = object({ groups: array(str, { min: 1 }) });

/** PATCH /v2/negotiate body (hubs and groups are checked by hubs.planPatch). */
export const patchRequestSchema = object({ groups: array(object({ hub: str, group: str })) });

export type ErrorBody = Infer<typeof errorBodySchema>;
export type TickersBody = Infer<typeof tickersSchema>;
export type QuantTickersBody = Infer<typeof quantTickersSchema>;
export type StrikeRow = Infer<typeof strikeRowSchema>;
export type ClassicChain = Infer<typeof classicChainSchema>;
export type Majors = Infer<typeof majorsSchema>;
export type MaxChange = Infer<typeof maxChangeSchema>;
export type MiniContractRow = Infer<typeof miniContractRowSchema>;
export type GreekProfile = Infer<typeof greekProfileSchema>;
export type OrderflowBody = Infer<typeof orderflowSchema>;
export type ExpiriesBody = Infer<typeof expiriesSchema>;
export type FuturesConversionBody = Infer<typeof futuresConversionSchema>;
export type HistoryUrlBody = Infer<typeof historyUrlSchema>;
export type Whoami = Infer<typeof whoamiSchema>;
export type NegotiateResponse = Infer<typeof negotiateResponseSchema>;
export type LegacyNegotiateResponse = Infer<typeof legacyNegotiateResponseSchema>;
export type PatchResponse = Infer<typeof patchResponseSchema>;
export type NegotiateRequest = Infer<typeof negotiateRequestSchema>;
export type PatchRequest = Infer<typeof patchRequestSchema>;

/**
 * The schema of a live snapshot of (package, canonical category): the classic chain for gex
 * categories, the greek profile for greek categories, orderflow for orderflow; undefined for
 * volume categories (streaming-only JSON whose shape is not published).
 */
export function snapshotSchema(
	pkg: PackageName,
	category: CanonicalCategory
): Schema<unknown> | undefined {
	if (pkg === 'orderflow') return category === 'orderflow' ? orderflowSchema : undefined;
	if (isGexCategory(category)) return classicChainSchema;
	if (pkg === 'state' && isGreekCategory(category)) return greekProfileSchema;
	return undefined;
}

/**
 * The schema of a route's 200 JSON body, or undefined when the body is not JSON (EOD zip,
 * research images/CSV, the history 302) or not published.
 */
export function responseSchema(
	id: RouteId,
	params: RouteParams = {},
	query?: URLSearchParams
): Schema<unknown> | undefined {
	switch (id) {
		case 'whoami':
			return whoamiSchema;
		case 'tickers':
			return tickersSchema;
		case 'quantTickers':
			return quantTickersSchema;
		case 'categories':
			return categoriesSchema;
		case 'classicChain':
		case 'stateSnapshot':
		case 'orderflow':
			return params.package && params.category
				? snapshotSchema(params.package, params.category)
				: undefined;
		case 'classicMajors':
		case 'stateMajors':
			return majorsSchema;
		case 'classicMaxchange':
		case 'stateMaxchange':
			return maxChangeSchema;
		case 'expiries':
			return expiriesSchema;
		case 'futuresConversion':
			return futuresConversionSchema;
		case 'history':
			return query?.has('noredirect') ? historyUrlSchema : undefined;
		case 'negotiatePost':
			return negotiateResponseSchema;
		case 'negotiateGet':
			return legacyNegotiateResponseSchema;
		case 'negotiatePatch':
			return patchResponseSchema;
		case 'eod':
		case 'research':
			return undefined;
	}
}
