/**
 * Columnar forms of decoded frames for the page: typed arrays the worker can post as
 * transferables (zero copy), and that d3/canvas/three code reads without per-row objects.
 *
 * `priors` is one flat Float64Array of `strikes.length * priorCount` values, row-major: the
 * priors of strike i are `priors.subarray(i * priorCount, (i + 1) * priorCount)`. Rows with
 * fewer priors than the widest row are padded with NaN (a gap, not a zero).
 *
 * Pure and free of the codec: the page imports it (its charts read these forms), so it must not
 * bring protobufjs, the generated messages and the zstd decoder into the page's scripts. Bytes
 * to these forms is ./columnarDecode's, in the decode workers and on the server.
 */

import {
	fromWire,
	GEX_SCALES as G,
	MAX_PRIORS_SCALES as MP,
	STRIKE_SCALES as ST
} from '../contract/scaling';
import type { ClassicChain, GreekProfile } from '../contract/schemas';
import type { gex_profile } from '../proto/generated/wire';
import { int64ToNumber } from './fromMessage';

export interface ColumnarGex {
	ticker: string;
	timestamp: number;
	spot: number;
	zeroGamma: number;
	majorPosVol: number;
	majorPosOi: number;
	majorNegVol: number;
	majorNegOi: number;
	sumGexVol: number;
	sumGexOi: number;
	deltaRiskReversal: number;
	minDte: number;
	secMinDte: number;
	strikes: Float64Array;
	gexVol: Float64Array;
	gexOi: Float64Array;
	priorCount: number;
	priors: Float64Array;
	/** Flat [strike, value] x 6 (current, 1, 5, 10, 15, 30 minutes). */
	maxPriors: Float64Array;
}

/** ColumnarGex's numbers, and its typed arrays: what a check of one, or a JSON form, walks. */
export const COLUMNAR_GEX_SCALARS = [
	'timestamp',
	'spot',
	'zeroGamma',
	'majorPosVol',
	'majorPosOi',
	'majorNegVol',
	'majorNegOi',
	'sumGexVol',
	'sumGexOi',
	'deltaRiskReversal',
	'minDte',
	'secMinDte',
	'priorCount'
] as const;
export const COLUMNAR_GEX_ARRAYS = ['strikes', 'gexVol', 'gexOi', 'priors', 'maxPriors'] as const;

export interface ColumnarGreekProfile {
	ticker: string;
	timestamp: number;
	spot: number;
	minDte: number;
	secMinDte: number;
	majorPositive: number;
	majorNegative: number;
	majorLongGamma: number;
	majorShortGamma: number;
	strikes: Float64Array;
	callIvol: Float64Array;
	putIvol: Float64Array;
	callValue: Float64Array;
	putValue: Float64Array;
	callPriorCount: number;
	callPriors: Float64Array;
	putPriorCount: number;
	putPriors: Float64Array;
}

function flatten(rows: readonly (readonly number[])[]): { width: number; flat: Float64Array } {
	let width = 0;
	for (const r of rows) if (r.length > width) width = r.length;
	const flat = new Float64Array(rows.length * width).fill(Number.NaN);
	for (let i = 0; i < rows.length; i++) flat.set(rows[i], i * width);
	return { width, flat };
}

export function columnarGex(chain: ClassicChain): ColumnarGex {
	const n = chain.strikes.length;
	const strikes = new Float64Array(n);
	const gexVol = new Float64Array(n);
	const gexOi = new Float64Array(n);
	for (let i = 0; i < n; i++) {
		const row = chain.strikes[i];
		strikes[i] = row[0];
		gexVol[i] = row[1];
		gexOi[i] = row[2];
	}
	const priors = flatten(chain.strikes.map((r) => r[3]));
	return {
		ticker: chain.ticker,
		timestamp: chain.timestamp,
		spot: chain.spot,
		zeroGamma: chain.zero_gamma,
		majorPosVol: chain.major_pos_vol,
		majorPosOi: chain.major_pos_oi,
		majorNegVol: chain.major_neg_vol,
		majorNegOi: chain.major_neg_oi,
		sumGexVol: chain.sum_gex_vol,
		sumGexOi: chain.sum_gex_oi,
		deltaRiskReversal: chain.delta_risk_reversal,
		minDte: chain.min_dte,
		secMinDte: chain.sec_min_dte,
		strikes,
		gexVol,
		gexOi,
		priorCount: priors.width,
		priors: priors.flat,
		maxPriors: Float64Array.from(chain.max_priors.flat())
	};
}

const opt = (v: number | null | undefined): number => (typeof v === 'number' ? v : 0);

/**
 * A decoded Gex message straight into columns: the same numbers as
 * `columnarGex(chainFromGex(m))` (same scaling, same NaN padding of short prior rows) without
 * building the REST rows in between, which is a third of a 400-strike frame's decode after
 * zstd. Live frames and backfills both come through here (decodeColumnarFrame).
 */
export function columnarGexFromMessage(m: gex_profile.Gex.$Properties): ColumnarGex {
	const rows = m.strikes ?? [];
	const n = rows.length;
	const strikes = new Float64Array(n);
	const gexVol = new Float64Array(n);
	const gexOi = new Float64Array(n);
	let priorCount = 0;
	for (let i = 0; i < n; i++) {
		const row = rows[i];
		strikes[i] = fromWire(opt(row.strike_price), ST.strike_price);
		gexVol[i] = fromWire(opt(row.value_1), ST.value_1);
		gexOi[i] = fromWire(opt(row.value_2), ST.value_2);
		const width = row.priors?.values?.length ?? 0;
		if (width > priorCount) priorCount = width;
	}
	const priors = new Float64Array(n * priorCount).fill(Number.NaN);
	for (let i = 0; i < n; i++) {
		const values = rows[i].priors?.values;
		if (!values) continue;
		for (let j = 0; j < values.length; j++) {
			priors[i * priorCount + j] = fromWire(values[j], ST.prior);
		}
	}
	const tuples = m.max_priors?.tuples ?? [];
	const maxPriors = new Float64Array(tuples.length * 2);
	for (let i = 0; i < tuples.length; i++) {
		maxPriors[2 * i] = fromWire(opt(tuples[i].first_value), MP.first_value);
		maxPriors[2 * i + 1] = fromWire(opt(tuples[i].second_value), MP.second_value);
	}
	return {
		ticker: m.ticker ?? '',
		timestamp: int64ToNumber(m.timestamp),
		spot: fromWire(opt(m.spot), G.spot),
		zeroGamma: fromWire(opt(m.zero_gamma), G.zero_gamma),
		majorPosVol: fromWire(opt(m.major_pos_vol), G.major_pos_vol),
		majorPosOi: fromWire(opt(m.major_pos_oi), G.major_pos_oi),
		majorNegVol: fromWire(opt(m.major_neg_vol), G.major_neg_vol),
		majorNegOi: fromWire(opt(m.major_neg_oi), G.major_neg_oi),
		sumGexVol: fromWire(opt(m.sum_gex_vol), G.sum_gex_vol),
		sumGexOi: fromWire(opt(m.sum_gex_oi), G.sum_gex_oi),
		deltaRiskReversal: fromWire(opt(m.delta_risk_reversal), G.delta_risk_reversal),
		minDte: opt(m.min_dte),
		secMinDte: opt(m.sec_min_dte),
		strikes,
		gexVol,
		gexOi,
		priorCount,
		priors,
		maxPriors
	};
}

export function columnarGreekProfile(profile: GreekProfile): ColumnarGreekProfile {
	const rows = profile.mini_contracts;
	const n = rows.length;
	const col = () => new Float64Array(n);
	const strikes = col();
	const callIvol = col();
	const putIvol = col();
	const callValue = col();
	const putValue = col();
	for (let i = 0; i < n; i++) {
		const r = rows[i];
		strikes[i] = r[0];
		callIvol[i] = r[1];
		putIvol[i] = r[2];
		callValue[i] = r[3];
		// A null put side (net-value profiles) is NaN: no value, never a zero.
		putValue[i] = r[5] ?? Number.NaN;
	}
	const callPriors = flatten(rows.map((r) => r[4]));
	const putPriors = flatten(rows.map((r) => r[6] ?? []));
	return {
		ticker: profile.ticker,
		timestamp: profile.timestamp,
		spot: profile.spot,
		minDte: profile.min_dte,
		secMinDte: profile.sec_min_dte,
		majorPositive: profile.major_positive,
		majorNegative: profile.major_negative,
		majorLongGamma: profile.major_long_gamma,
		majorShortGamma: profile.major_short_gamma,
		strikes,
		callIvol,
		putIvol,
		callValue,
		putValue,
		callPriorCount: callPriors.width,
		callPriors: callPriors.flat,
		putPriorCount: putPriors.width,
		putPriors: putPriors.flat
	};
}

/** The buffers to list as transferables in postMessage (each typed array owns its buffer). */
export function transferables(c: ColumnarGex | ColumnarGreekProfile): ArrayBuffer[] {
	const arrays: Float64Array[] =
		'gexVol' in c
			? [c.strikes, c.gexVol, c.gexOi, c.priors, c.maxPriors]
			: [c.strikes, c.callIvol, c.putIvol, c.callValue, c.putValue, c.callPriors, c.putPriors];
	return arrays.map((a) => a.buffer as ArrayBuffer);
}

/** Back to the REST row form (tests, exports, and IndexedDB snapshots). */
export function chainFromColumnar(c: ColumnarGex): ClassicChain {
	const strikes: ClassicChain['strikes'] = [];
	for (let i = 0; i < c.strikes.length; i++) {
		const priors = Array.from(c.priors.subarray(i * c.priorCount, (i + 1) * c.priorCount)).filter(
			(v) => !Number.isNaN(v)
		);
		strikes.push([c.strikes[i], c.gexVol[i], c.gexOi[i], priors]);
	}
	const maxPriors: [number, number][] = [];
	for (let i = 0; i + 1 < c.maxPriors.length; i += 2)
		maxPriors.push([c.maxPriors[i], c.maxPriors[i + 1]]);
	return {
		timestamp: c.timestamp,
		ticker: c.ticker,
		min_dte: c.minDte,
		sec_min_dte: c.secMinDte,
		spot: c.spot,
		zero_gamma: c.zeroGamma,
		major_pos_vol: c.majorPosVol,
		major_pos_oi: c.majorPosOi,
		major_neg_vol: c.majorNegVol,
		major_neg_oi: c.majorNegOi,
		strikes,
		sum_gex_vol: c.sumGexVol,
		sum_gex_oi: c.sumGexOi,
		delta_risk_reversal: c.deltaRiskReversal,
		max_priors: maxPriors
	};
}
