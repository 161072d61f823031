/**
 * Research datasets: filters the chain's contract records as the query asks, computes the
 * metric per contract, aggregates (calls with puts, across expiries) and shapes the result as a
 * table or a skew, term or surface grid.
 */
import type {
	LevelRow,
	ResearchQuery,
	ResearchResult,
	TableRow
} from '../../../lib/contract/research';
import { unitExposure } from '../../../lib/analytics/exposures';
import { HttpError } from '../respond';
import type { ChainRecords, ContractRecord } from './contracts';
import { fullGreeks, type FullGreeks, type GreekName } from './researchGreeks';
import { levelOf } from './levels';
import { selectContracts } from './selectContracts';
import { isAdditive, type MetricSpec } from './metrics';

const SIGMA_BUMP = 1e-4;

/** dG/dSigma * dSigma/dSpot under a smile that moves with moneyness (sticky moneyness). */
function skewAdjusted(rec: ContractRecord, greek: GreekName, data: ChainRecords, base: FullGreeks) {
	const { spot, rate, dividend_yield: q } = data.chain;
	const sigma = rec.iv.mid as number;
	const up = fullGreeks(rec.isCall, spot, rec.strike, rec.t, sigma + SIGMA_BUMP, rate, q);
	const down = fullGreeks(
		rec.isCall,
		spot,
		rec.strike,
		rec.t,
		Math.max(sigma - SIGMA_BUMP, 1e-6),
		rate,
		q
	);
	const dGdSigma =
		(up[greek] - down[greek]) / (sigma + SIGMA_BUMP - Math.max(sigma - SIGMA_BUMP, 1e-6));
	const dSigmaDSpot = -(rec.strike / spot) * rec.smileSlope;
	return base[greek] + dGdSigma * dSigmaDSpot;
}

/** One contract's exposure in dollars, signed as the analytics engine signs exposures. */
function exposure(
	rec: ContractRecord,
	spec: Extract<MetricSpec, { family: 'exposure' }>,
	data: ChainRecords,
	skewAdj: boolean
): number | null {
	const g = rec.greeks.mid;
	if (!g) return null;
	const weight =
		spec.basis === 'oi'
			? rec.openInterest
			: spec.basis === 'vol'
				? rec.volume
				: rec.openInterest + rec.volume;
	const S = data.chain.spot;
	const size = 100;
	const value = (name: GreekName) => (skewAdj ? skewAdjusted(rec, name, data, g) : g[name]);
	const s = rec.isCall ? 1 : -1;
	switch (spec.greek) {
		case 'gamma':
		case 'delta':
		case 'vanna':
		case 'charm': {
			const u = unitExposure(
				rec.isCall,
				value('delta'),
				value('gamma'),
				value('vanna'),
				value('charm') / 365,
				S,
				size
			);
			const unit =
				spec.greek === 'gamma'
					? u.gex
					: spec.greek === 'delta'
						? u.dex
						: spec.greek === 'vanna'
							? u.vanna
							: u.charm;
			return unit * weight;
		}
		case 'vega':
			return s * value('vega') * 0.01 * size * weight;
		case 'theta':
			return (s * value('theta') * size * weight) / 365;
		case 'rho':
			return s * value('rho') * 0.01 * size * weight;
		case 'speed':
			return s * value('speed') * size * S * S * 0.01 * S * 0.01 * weight;
		case 'zomma':
			return s * value('zomma') * size * S * S * 0.01 * 0.01 * weight;
		case 'color':
			return (s * value('color') * size * S * S * 0.01 * weight) / 365;
		case 'vomma':
			return s * value('vomma') * size * 1e-4 * weight;
		case 'ultima':
			return s * value('ultima') * size * 1e-6 * weight;
	}
}

/** Quote-side greeks in trader units: vega/rho per point, theta/charm/color per day. */
function quoteValue(rec: ContractRecord, spec: Extract<MetricSpec, { family: 'quote' }>) {
	if (spec.greek === 'iv') return rec.iv[spec.side];
	const g = rec.greeks[spec.side];
	if (!g) return null;
	switch (spec.greek) {
		case 'vega':
		case 'rho':
			return g[spec.greek] * 0.01;
		case 'theta':
		case 'charm':
		case 'color':
			return g[spec.greek] / 365;
		case 'vomma':
			return g.vomma * 1e-4;
		default:
			return g[spec.greek];
	}
}

function fieldValue(
	rec: ContractRecord,
	field: Exclude<Extract<MetricSpec, { family: 'field' }>['field'], 'parity'>,
	spot: number
): number {
	const intrinsic = Math.max(rec.isCall ? spot - rec.strike : rec.strike - spot, 0);
	switch (field) {
		case 'intrinsic_value':
			return intrinsic;
		case 'time_value':
			return rec.mid - intrinsic;
		case 'last_price':
			// The chain carries quotes, not prints: the last price is the quote midpoint.
			return rec.mid;
		case 'open_interest':
			return rec.openInterest;
		case 'volume':
			return rec.volume;
	}
}

/** Put-call parity deviation per expiry and strike: C - P - (S e^-qT - K e^-rT). */
function parityRows(selected: ContractRecord[], data: ChainRecords): TableRow[] {
	const { spot, rate, dividend_yield: q } = data.chain;
	const pairs = new Map<string, { call?: ContractRecord; put?: ContractRecord }>();
	for (const rec of selected) {
		const key = `${rec.expiry}|${rec.strike}`;
		const pair = pairs.get(key) ?? {};
		if (rec.isCall) pair.call = rec;
		else pair.put = rec;
		pairs.set(key, pair);
	}
	const rows: TableRow[] = [];
	for (const { call, put } of pairs.values()) {
		if (!call || !put) continue;
		const forwardValue = spot * Math.exp(-q * call.t) - call.strike * Math.exp(-rate * call.t);
		rows.push({
			expiry: call.expiry,
			dte: call.dte,
			strike: call.strike,
			type: 'all',
			value: call.mid - put.mid - forwardValue
		});
	}
	return rows;
}

function contractRows(
	selected: ContractRecord[],
	spec: MetricSpec,
	data: ChainRecords,
	skewAdj: boolean
): TableRow[] {
	if (spec.family === 'field' && spec.field === 'parity') return parityRows(selected, data);
	const rows: TableRow[] = [];
	for (const rec of selected) {
		let value: number | null;
		if (spec.family === 'quote') value = quoteValue(rec, spec);
		else if (spec.family === 'exposure') value = exposure(rec, spec, data, spec.skewAdj || skewAdj);
		else if (spec.family === 'field' && spec.field !== 'parity')
			value = fieldValue(rec, spec.field, data.chain.spot);
		else value = null;
		if (value === null || !Number.isFinite(value)) continue;
		rows.push({
			expiry: rec.expiry,
			dte: rec.dte,
			strike: rec.strike,
			type: rec.isCall ? 'call' : 'put',
			value
		});
	}
	return rows;
}

/** Groups rows by key and combines values by sum (additive metrics) or mean. */
function combine(
	rows: TableRow[],
	key: (r: TableRow) => string,
	additive: boolean,
	make: (r: TableRow) => TableRow
) {
	const groups = new Map<string, { row: TableRow; sum: number; n: number }>();
	for (const r of rows) {
		const k = key(r);
		const g = groups.get(k);
		if (g) {
			g.sum += r.value;
			g.n++;
		} else groups.set(k, { row: make(r), sum: r.value, n: 1 });
	}
	return [...groups.values()].map((g) => ({ ...g.row, value: additive ? g.sum : g.sum / g.n }));
}

function sortRows(rows: TableRow[]): TableRow[] {
	const typeOrder = { call: 0, put: 1, all: 2 };
	return rows.sort(
		(a, b) =>
			a.expiry.localeCompare(b.expiry) ||
			a.strike - b.strike ||
			typeOrder[a.type] - typeOrder[b.type]
	);
}

/** Clips values to the 1st-99th percentile so one outlier does not flatten a chart. */
function limitY(rows: TableRow[]): TableRow[] {
	if (rows.length < 3) return rows;
	const sorted = rows.map((r) => r.value).sort((a, b) => a - b);
	const lo = sorted[Math.floor(0.01 * (sorted.length - 1))];
	const hi = sorted[Math.ceil(0.99 * (sorted.length - 1))];
	return rows.map((r) => ({ ...r, value: Math.min(hi, Math.max(lo, r.value)) }));
}

/** Computes the response of one research request (json shape; csv is rendered from it). */
export function researchDataset(
	data: ChainRecords,
	metricName: string,
	spec: MetricSpec,
	query: ResearchQuery
): ResearchResult {
	const { chain } = data;
	const base = {
		ticker: chain.ticker,
		metric: metricName,
		timestamp: chain.timestamp,
		spot: chain.spot
	};
	const selected = selectContracts(data, query);

	if (spec.family === 'level') {
		if (query.view === 'skew' || query.view === 'surface') {
			throw new HttpError(
				400,
				`view=${query.view} is not available for the chain-level metric ${metricName}.`
			);
		}
		const expiries = [...new Set(selected.map((r) => r.expiry))].sort();
		const perExpiry: LevelRow[] = expiries.map((expiry) => {
			const recs = selected.filter((r) => r.expiry === expiry);
			return { expiry, dte: recs[0].dte, value: levelOf(spec.level, recs, data) };
		});
		return {
			...base,
			view: query.view === 'term' ? 'term' : 'level',
			level: { value: levelOf(spec.level, selected, data), expiries: perExpiry }
		};
	}

	const additive = isAdditive(spec);
	let rows = contractRows(selected, spec, data, query.skew_adj ?? false);
	if (query.contract_agg && spec.family !== 'field') {
		rows = combine(
			rows,
			(r) => `${r.expiry}|${r.strike}`,
			additive,
			(r) => ({ ...r, type: 'all' })
		);
	}
	if (query.expiry_agg) {
		rows = combine(
			rows,
			(r) => `${r.strike}|${r.type}`,
			additive,
			(r) => ({ ...r, expiry: 'all', dte: -1 })
		);
	}
	rows = sortRows(rows);
	if (query.limit_y) rows = limitY(rows);

	switch (query.view) {
		case undefined:
			return { ...base, view: 'table', rows };
		case 'skew': {
			const series = new Map<string, NonNullable<ResearchResult['series']>[number]>();
			for (const r of rows) {
				const key = `${r.expiry}|${r.type}`;
				let s = series.get(key);
				if (!s) {
					s = { expiry: r.expiry, dte: r.dte, type: r.type, points: [] };
					series.set(key, s);
				}
				s.points.push([r.strike, r.value]);
			}
			return { ...base, view: 'skew', series: [...series.values()] };
		}
		case 'term': {
			const groups = new Map<string, TableRow[]>();
			for (const r of rows) {
				const key = `${r.expiry}|${r.type}`;
				groups.set(key, [...(groups.get(key) ?? []), r]);
			}
			const term = [...groups.values()].map((list) => {
				// Additive metrics sum over strikes; per-contract measures are read at the money.
				const value = additive
					? list.reduce((acc, r) => acc + r.value, 0)
					: list.reduce((best, r) =>
							Math.abs(r.strike - chain.spot) < Math.abs(best.strike - chain.spot) ? r : best
						).value;
				return { expiry: list[0].expiry, dte: list[0].dte, type: list[0].type, value };
			});
			return { ...base, view: 'term', term };
		}
		case 'surface': {
			// One value per (expiry, strike): sums for additive metrics, otherwise the
			// out-of-the-money side (puts below spot, calls above) as vol surfaces are drawn.
			const cell = new Map<string, number>();
			const additiveCells = new Map<string, number>();
			for (const r of rows) {
				const key = `${r.expiry}|${r.strike}`;
				if (additive) additiveCells.set(key, (additiveCells.get(key) ?? 0) + r.value);
				else {
					const otm = r.type === 'all' || (r.type === 'call') === r.strike >= chain.spot;
					if (otm || !cell.has(key)) cell.set(key, r.value);
				}
			}
			const values = additive ? additiveCells : cell;
			const strikes = [...new Set(rows.map((r) => r.strike))].sort((a, b) => a - b);
			const expiries = [...new Set(rows.map((r) => r.expiry))].sort();
			const dte = expiries.map((e) => rows.find((r) => r.expiry === e)!.dte);
			return {
				...base,
				view: 'surface',
				surface: {
					strikes,
					expiries,
					dte,
					values: expiries.map((e) => strikes.map((k) => values.get(`${e}|${k}`) ?? null))
				}
			};
		}
	}
}
