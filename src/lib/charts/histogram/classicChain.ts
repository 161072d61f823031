/**
 * The Classic chain payload (GET /{ticker}/classic/{category}) and the histogram model derived
 * from it. Validation is strict: a malformed payload is a clear error, never a half-drawn chart.
 */
import { classicChainSchema, type ClassicChain } from '../../contract/schemas';
import { parseWith } from '../../contract/validate';
import type { Metric, StrikeWindow } from '../../state/viewState';

export type { ClassicChain };

/** The chain validated against the contract's runtime schema (throws SchemaError with the path). */
export function parseClassicChain(value: unknown): ClassicChain {
	return parseWith(classicChainSchema, value);
}

export interface HistogramRow {
	strike: number;
	/** Net GEX of the chosen metric. */
	value: number;
	/** The other metric, for the readout. */
	other: number;
	priors: number[];
}

export interface MaxChangeMark {
	strike: number;
	change: number;
	/** Window labels sharing this strike, e.g. ['now', '5m']. */
	windows: string[];
}

export interface HistogramModel {
	rows: HistogramRow[];
	spot: number;
	/** null when not computed yet (the upstream sends 0). */
	zeroGamma: number | null;
	/** Null when the chain names none (0: not computed, or n/a for State's OI side). */
	majorPositiveStrike: number | null;
	majorNegativeStrike: number | null;
	maxChange: MaxChangeMark[];
}

export const MAX_CHANGE_WINDOWS = ['now', '1m', '5m', '10m', '15m', '30m'] as const;

export function histogramModel(chain: ClassicChain, metric: Metric): HistogramModel {
	const byVol = metric === 'vol';
	const rows = chain.strikes
		.map(([strike, vol, oi, priors]) => ({
			strike,
			value: byVol ? vol : oi,
			other: byVol ? oi : vol,
			priors
		}))
		.sort((a, b) => a.strike - b.strike);
	const marks = new Map<number, MaxChangeMark>();
	chain.max_priors.forEach(([strike, change], i) => {
		const label = MAX_CHANGE_WINDOWS[i] ?? `#${i}`;
		const m = marks.get(strike);
		if (m) m.windows.push(label);
		else marks.set(strike, { strike, change, windows: [label] });
	});
	return {
		rows,
		spot: chain.spot,
		zeroGamma: chain.zero_gamma === 0 ? null : chain.zero_gamma,
		majorPositiveStrike: (byVol ? chain.major_pos_vol : chain.major_pos_oi) || null,
		majorNegativeStrike: (byVol ? chain.major_neg_vol : chain.major_neg_oi) || null,
		maxChange: [...marks.values()]
	};
}

/**
 * The automatic strike window: the `count` strikes nearest spot, widened to take in the key
 * levels (zero gamma, the majors) nearest first, as long as the window stays within
 * `reach` x `count` strikes (60 on a desktop: still one bar per strike, not the dense paths):
 * a trader reads the bars against those levels, and a major a few strikes beyond a
 * spot-centred window would otherwise vanish from the chart.
 */
export function defaultWindow(
	rows: readonly { strike: number }[],
	spot: number,
	count = 40,
	levels: readonly (number | null | undefined)[] = [],
	reach = 1.5
): StrikeWindow | null {
	if (rows.length === 0) return null;
	const nearest = [...rows]
		.sort((a, b) => Math.abs(a.strike - spot) - Math.abs(b.strike - spot))
		.slice(0, count)
		.map((r) => r.strike);
	let lo = Math.min(...nearest);
	let hi = Math.max(...nearest);
	const strikesWithin = (from: number, to: number) =>
		rows.reduce((n, r) => (r.strike >= from && r.strike <= to ? n + 1 : n), 0);
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
