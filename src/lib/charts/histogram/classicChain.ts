/**
 * The Classic chain payload (GET /{ticker}/classic/{category}) and the histogram model derived
 * from its columns (wire/columnar.ts ColumnarGex, the shape the worker posts). Validation is strict: a malformed payload is a clear error, never a half-drawn chart.
 */
import { classicChainSchema, type ClassicChain } from '../../contract/schemas';
import { parseWith } from '../../contract/validate';
import type { Metric, StrikeWindow } from '../../state/viewState';
import {
	COLUMNAR_GEX_ARRAYS,
	COLUMNAR_GEX_SCALARS,
	columnarGex,
	type ColumnarGex
} from '../../wire/columnar';

export type { ClassicChain, ColumnarGex };

/** The chain validated against the contract's runtime schema (throws SchemaError with the path). */
export function parseClassicChain(value: unknown): ClassicChain {
	return parseWith(classicChainSchema, value);
}

/**
 * A polled REST chain in the shape the views read, the worker's columns: validated, then
 * mapped once (wire/columnar.ts columnarGex, the one REST JSON -> columns mapping). The
 * snapshot cache keeps streamed chains as columns (no rows per update): those come back as
 * they are, once their columns are checked.
 */
export function parseGexColumns(value: unknown): ColumnarGex {
	if (isColumnarGex(value)) return value;
	return columnarGex(parseClassicChain(value));
}

const SCALARS = COLUMNAR_GEX_SCALARS;

/** A ColumnarGex as structured clone gives it back (typed arrays of consistent lengths). */
function isColumnarGex(v: unknown): v is ColumnarGex {
	if (!v || typeof v !== 'object') return false;
	const c = v as Record<string, unknown>;
	const f64 = (k: string) => c[k] instanceof Float64Array;
	if (!COLUMNAR_GEX_ARRAYS.every(f64)) return false;
	if (typeof c.ticker !== 'string' || !SCALARS.every((k) => typeof c[k] === 'number')) return false;
	const g = v as ColumnarGex;
	const n = g.strikes.length;
	return g.gexVol.length === n && g.gexOi.length === n && g.priors.length === n * g.priorCount;
}

/**
 * The histogram as columns, strikes ascending: `values[i]` is strike i's net GEX of the chosen
 * metric, `others[i]` the other metric's (for the readout), its lookback priors
 * `priors[i * priorCount ... (i + 1) * priorCount]` (NaN where a strike has fewer). Built from
 * the worker's columns without a row object per strike: the chart reads the window it draws.
 */
export interface HistogramModel {
	strikes: Float64Array;
	values: Float64Array;
	others: Float64Array;
	priorCount: number;
	priors: Float64Array;
	spot: number;
	/** null when not computed yet (the upstream sends 0). */
	zeroGamma: number | null;
	/** Null when the chain names none (0: not computed, or n/a for State's OI side). */
	majorPositiveStrike: number | null;
	majorNegativeStrike: number | null;
	maxChange: MaxChangeMark[];
}

export interface MaxChangeMark {
	strike: number;
	change: number;
	/** Window labels sharing this strike, e.g. ['now', '5m']. */
	windows: string[];
}

export const MAX_CHANGE_WINDOWS = ['now', '1m', '5m', '10m', '15m', '30m'] as const;

function ascending(a: Float64Array): boolean {
	for (let i = 1; i < a.length; i++) if (!(a[i] >= a[i - 1])) return false;
	return true;
}

export function histogramModel(chain: ColumnarGex, metric: Metric): HistogramModel {
	const byVol = metric === 'vol';
	// The service's lookback priors are the by-volume history. Open interest is published once a
	// day, so by OI there is no intraday history to draw: no priors (issue 25 item 2), rather
	// than the volume's, which had stretched the OI axis and read as OI history.
	const priorCount = byVol ? chain.priorCount : 0;
	let strikes = chain.strikes;
	let values = byVol ? chain.gexVol : chain.gexOi;
	let others = byVol ? chain.gexOi : chain.gexVol;
	let priors = byVol ? chain.priors : new Float64Array(0);
	// The service sends strikes ascending: the columns are used as they are (no copy). Any
	// other order is sorted once here.
	if (!ascending(strikes)) {
		const order = Array.from(strikes.keys()).sort((a, b) => strikes[a] - strikes[b]);
		const pick = (col: Float64Array) => Float64Array.from(order, (i) => col[i]);
		const sortedPriors = new Float64Array(priors.length);
		order.forEach((from, to) =>
			sortedPriors.set(priors.subarray(from * priorCount, (from + 1) * priorCount), to * priorCount)
		);
		[strikes, values, others, priors] = [pick(strikes), pick(values), pick(others), sortedPriors];
	}
	const marks = new Map<number, MaxChangeMark>();
	for (let i = 0; 2 * i + 1 < chain.maxPriors.length; i++) {
		const strike = chain.maxPriors[2 * i];
		const label = MAX_CHANGE_WINDOWS[i] ?? `#${i}`;
		const m = marks.get(strike);
		if (m) m.windows.push(label);
		else marks.set(strike, { strike, change: chain.maxPriors[2 * i + 1], windows: [label] });
	}
	return {
		strikes,
		values,
		others,
		priorCount,
		priors,
		spot: chain.spot,
		zeroGamma: chain.zeroGamma === 0 ? null : chain.zeroGamma,
		majorPositiveStrike: (byVol ? chain.majorPosVol : chain.majorPosOi) || null,
		majorNegativeStrike: (byVol ? chain.majorNegVol : chain.majorNegOi) || null,
		maxChange: [...marks.values()]
	};
}

/** Index range [from, to) of the ascending `strikes` within [lo, hi]. */
export function windowRange(strikes: ArrayLike<number>, lo: number, hi: number): [number, number] {
	const first = (v: number, inclusive: boolean) => {
		let a = 0;
		let b = strikes.length;
		while (a < b) {
			const mid = (a + b) >>> 1;
			if (inclusive ? strikes[mid] < v : strikes[mid] <= v) a = mid + 1;
			else b = mid;
		}
		return a;
	};
	return [first(lo, true), first(hi, false)];
}

/**
 * The automatic strike window: the `count` strikes nearest spot, widened to take in the key
 * levels (zero gamma, the majors) nearest first, as long as the window stays within
 * `reach` x `count` strikes (60 on a desktop: still one bar per strike, not the dense paths):
 * a trader reads the bars against those levels, and a major a few strikes beyond a
 * spot-centred window would otherwise vanish from the chart.
 */
export function defaultWindow(
	strikes: ArrayLike<number>,
	spot: number,
	count = 40,
	levels: readonly (number | null | undefined)[] = [],
	reach = 1.5
): StrikeWindow | null {
	if (strikes.length === 0) return null;
	const nearest = Array.from(strikes)
		.sort((a, b) => Math.abs(a - spot) - Math.abs(b - spot))
		.slice(0, count);
	let lo = Math.min(...nearest);
	let hi = Math.max(...nearest);
	const strikesWithin = (from: number, to: number) => {
		let n = 0;
		for (let i = 0; i < strikes.length; i++) if (strikes[i] >= from && strikes[i] <= to) n++;
		return n;
	};
	const wanted = levels
		.filter((l): l is number => typeof l === 'number' && Number.isFinite(l) && l > 0)
		.sort((a, b) => Math.abs(a - spot) - Math.abs(b - spot));
	for (const level of wanted) {
		if (level >= lo && level <= hi) continue;
		const from = Math.min(lo, level);
		const to = Math.max(hi, level);
		if (strikesWithin(from, to) <= count * reach) [lo, hi] = [from, to];
	}
	return lo < hi ? { lo, hi } : { lo: lo - 1, hi: hi + 1 };
}

/** The levels the automatic window tries to show: zero gamma and both majors. */
export function keyLevels(model: HistogramModel): (number | null)[] {
	return [model.zeroGamma, model.majorPositiveStrike, model.majorNegativeStrike];
}

/** Narrow (factor < 1) or widen (factor > 1) a window around its centre. */
export function scaleWindow(w: StrikeWindow, factor: number): StrikeWindow {
	const mid = (w.lo + w.hi) / 2;
	const half = Math.max(0.5, ((w.hi - w.lo) / 2) * factor);
	const round = (n: number) => Math.round(n * 100) / 100;
	return { lo: round(Math.max(0.01, mid - half)), hi: round(mid + half) };
}
