/**
 * Served tickers that are views of another ticker's chain: SPXW / NDXP / RUTW / VIXW carry their
 * index's numbers under their own symbol; ES_SPX / NQ_NDX are shifted to the front-month future
 * by the basis (levels by the exact additive, strikes by the additive rounded to the strike
 * step so the ladder stays on round strikes); XSP is SPX at 1/10 of the level with its own,
 * smaller open interest. Transforming the computed values costs far less than a second engine.
 */
import type {
	GexChainValue,
	GreekProfileValue,
	MajorsValue,
	MaxChangeValue,
	OrderflowValue,
	VolumeProfileValue
} from './categoryPayloads';

export interface ViewFormat {
	ticker: string;
	/** Multiplier of strikes and levels. */
	scale: number;
	/** Added to levels (spot, zero gamma). */
	levelShift: number;
	/** Added to strikes. */
	strikeShift: number;
	/** Multiplier of exposures ($M) and volumes. */
	exposureScale: number;
}

const r2 = (x: number): number => Math.round(x * 100) / 100;
const r3 = (x: number): number => Math.round(x * 1000) / 1000;

export function isIdentity(v: ViewFormat): boolean {
	return v.scale === 1 && v.levelShift === 0 && v.strikeShift === 0 && v.exposureScale === 1;
}

function makers(v: ViewFormat) {
	return {
		strike: (x: number) => (x === 0 ? 0 : r2(x * v.scale + v.strikeShift)),
		level: (x: number) => (x === 0 ? 0 : r2(x * v.scale + v.levelShift)),
		exp: (x: number) => r2(x * v.exposureScale),
		exp3: (x: number) => r3(x * v.exposureScale)
	};
}

export function viewGexChain(value: GexChainValue, v: ViewFormat): GexChainValue {
	const m = makers(v);
	return {
		...value,
		ticker: v.ticker,
		spot: m.level(value.spot),
		zero_gamma: m.level(value.zero_gamma),
		major_pos_vol: m.strike(value.major_pos_vol),
		major_pos_oi: m.strike(value.major_pos_oi),
		major_neg_vol: m.strike(value.major_neg_vol),
		major_neg_oi: m.strike(value.major_neg_oi),
		strikes: value.strikes.map(([k, vol, oi, priors]) => [
			m.strike(k),
			m.exp(vol),
			m.exp(oi),
			priors.map(m.exp)
		]),
		sum_gex_vol: m.exp3(value.sum_gex_vol),
		sum_gex_oi: m.exp3(value.sum_gex_oi),
		max_priors: value.max_priors.map(([k, c]) => [m.strike(k), m.exp3(c)])
	};
}

export function viewMajors(value: MajorsValue, v: ViewFormat): MajorsValue {
	const m = makers(v);
	return {
		...value,
		ticker: v.ticker,
		spot: m.level(value.spot),
		zero_gamma: m.level(value.zero_gamma),
		mpos_vol: m.strike(value.mpos_vol),
		mpos_oi: m.strike(value.mpos_oi),
		mneg_vol: m.strike(value.mneg_vol),
		mneg_oi: m.strike(value.mneg_oi),
		net_gex_vol: m.exp3(value.net_gex_vol),
		net_gex_oi: m.exp3(value.net_gex_oi)
	};
}

export function viewMaxChange(value: MaxChangeValue, v: ViewFormat): MaxChangeValue {
	const m = makers(v);
	const pair = ([k, c]: [number, number]): [number, number] => [m.strike(k), m.exp3(c)];
	return {
		...value,
		ticker: v.ticker,
		current: pair(value.current),
		one: pair(value.one),
		five: pair(value.five),
		ten: pair(value.ten),
		fifteen: pair(value.fifteen),
		thirty: pair(value.thirty)
	};
}

export function viewGreekProfile(value: GreekProfileValue, v: ViewFormat): GreekProfileValue {
	const m = makers(v);
	return {
		...value,
		ticker: v.ticker,
		spot: m.level(value.spot),
		major_positive: m.strike(value.major_positive),
		major_negative: m.strike(value.major_negative),
		major_long_gamma: m.strike(value.major_long_gamma),
		major_short_gamma: m.strike(value.major_short_gamma),
		mini_contracts: value.mini_contracts.map(([k, civ, piv, cv, cp, pv, pp]) => [
			m.strike(k),
			civ,
			piv,
			m.exp(cv),
			cp.map(m.exp),
			pv === null ? null : m.exp(pv),
			pp === null ? null : pp.map(m.exp)
		])
	};
}

export function viewVolumeProfile(value: VolumeProfileValue, v: ViewFormat): VolumeProfileValue {
	const m = makers(v);
	const vol = (x: number) => Math.round(x * v.exposureScale);
	return {
		...value,
		ticker: v.ticker,
		spot: m.level(value.spot),
		total_call_volume: vol(value.total_call_volume),
		total_put_volume: vol(value.total_put_volume),
		strikes: value.strikes.map(
			([k, ...rest]) => [m.strike(k), ...rest.map(vol)] as VolumeProfileValue['strikes'][number]
		)
	};
}

const ORDERFLOW_STRIKES = new Set([
	'z_mlgamma',
	'z_msgamma',
	'o_mlgamma',
	'o_msgamma',
	'zero_mcall',
	'zero_mput',
	'one_mcall',
	'one_mput'
]);
const ORDERFLOW_RATIOS = new Set(['zcvr', 'ocvr', 'zgr', 'ogr']);

export function viewOrderflow(value: OrderflowValue, v: ViewFormat): OrderflowValue {
	const m = makers(v);
	const out: OrderflowValue = { ...value, ticker: v.ticker, spot: m.level(value.spot) };
	for (const [key, x] of Object.entries(value)) {
		if (typeof x !== 'number' || key === 'timestamp' || key === 'spot') continue;
		if (ORDERFLOW_STRIKES.has(key)) out[key] = m.strike(x);
		else if (!ORDERFLOW_RATIOS.has(key)) out[key] = m.exp(x);
	}
	return out;
}
