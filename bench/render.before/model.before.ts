/**
 * The Classic view's main-thread path per streamed update as it was before issue 23 item 3, kept
 * runnable for bench/render.bench.ts (before and after in one run): the worker's columns turned
 * back into REST rows (wire/columnar.ts chainFromColumnar, via live/streamFeed gexChain), the
 * histogram model built from those rows (charts classicChain.ts histogramModel), and the strike
 * window from the model's rows. Copied verbatim from those files at the commit before the change.
 */
import type { ClassicChain } from '../../src/lib/contract/schemas';
import type { Metric, StrikeWindow } from '../../src/lib/state/viewState';
import type { ColumnarGex } from '../../src/lib/wire/columnar';

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
