/**
 * One-minute candles of the underlying from recorded spot samples, and the levels (zero gamma,
 * the majors) as step series through the day, for the price chart (issue 25). Pure: the chart
 * and the tests call it with the heatmap grid's columns (times ascending, one sample each).
 */

export interface Candle {
	/** Start of the minute (unix s, a multiple of `seconds`). */
	t: number;
	open: number;
	high: number;
	low: number;
	close: number;
	/** Samples in the minute. */
	n: number;
}

/** A level through the day: one value per minute (its last in the minute); null = none. */
export interface LevelStep {
	t: number;
	value: number | null;
}

/** A sample that is no price: not finite or not positive (a chain without spot reads 0). */
const noPrice = (p: number) => !(p > 0) || !Number.isFinite(p);

/**
 * Candles of `seconds` (default 60) from samples (times[i], prices[i]) for i < length, times
 * ascending. Minutes without a sample have no candle (gaps stay gaps).
 */
export function buildCandles(
	times: ArrayLike<number>,
	prices: ArrayLike<number>,
	length = times.length,
	seconds = 60
): Candle[] {
	const out: Candle[] = [];
	let cur: Candle | undefined;
	for (let i = 0; i < length; i++) {
		const p = prices[i];
		if (noPrice(p)) continue;
		const t = Math.floor(times[i] / seconds) * seconds;
		if (!cur || cur.t !== t) {
			cur = { t, open: p, high: p, low: p, close: p, n: 1 };
			out.push(cur);
			continue;
		}
		if (p > cur.high) cur.high = p;
		if (p < cur.low) cur.low = p;
		cur.close = p;
		cur.n++;
	}
	return out;
}

/** Samples farther apart than this many candle intervals are a gap in the data (an outage). */
const GAP_INTERVALS = 3;

/**
 * A level as steps: for each minute with samples, the minute's last value (null where the level
 * is not named: 0 or not finite). Consecutive equal minutes are merged into one step. Where the
 * samples stop for more than GAP_INTERVALS minutes (the recording was down), the level is null
 * from the minute after the last sample: a step line does not run flat across an outage as if
 * the level had been seen there, as the candles leave the minutes without a sample empty.
 */
export function levelSteps(
	times: ArrayLike<number>,
	values: ArrayLike<number>,
	length = times.length,
	seconds = 60
): LevelStep[] {
	const out: LevelStep[] = [];
	const add = (t: number, value: number | null) => {
		const last = out[out.length - 1];
		if (last && last.t === t) last.value = value;
		else out.push({ t, value });
		// A minute that ends equal to the one before is the same step.
		const prev = out[out.length - 2];
		if (prev && out[out.length - 1].value === prev.value) out.pop();
	};
	const minute = (at: number) => Math.floor(at / seconds) * seconds;
	for (let i = 0; i < length; i++) {
		if (i > 0 && times[i] - times[i - 1] > GAP_INTERVALS * seconds)
			add(minute(times[i - 1]) + seconds, null);
		add(minute(times[i]), noPrice(values[i]) ? null : values[i]);
	}
	return out;
}

/** The value of a step series at time t (the last step at or before t); null before the first. */
export function stepAt(steps: readonly LevelStep[], t: number): number | null {
	let lo = 0;
	let hi = steps.length;
	while (lo < hi) {
		const mid = (lo + hi) >>> 1;
		if (steps[mid].t <= t) lo = mid + 1;
		else hi = mid;
	}
	return lo === 0 ? null : steps[lo - 1].value;
}

/** Index of the candle whose minute holds t, or -1. */
export function candleAt(candles: readonly Candle[], t: number, seconds = 60): number {
	let lo = 0;
	let hi = candles.length;
	while (lo < hi) {
		const mid = (lo + hi) >>> 1;
		if (candles[mid].t <= t) lo = mid + 1;
		else hi = mid;
	}
	const i = lo - 1;
	return i >= 0 && t < candles[i].t + seconds ? i : -1;
}

/** Index of the candle whose minute's middle is nearest t (a pointer between candles or past
 * the last still reads one), or -1 when there are none. */
export function nearestCandle(candles: readonly Candle[], t: number, seconds = 60): number {
	let lo = 0;
	let hi = candles.length;
	while (lo < hi) {
		const mid = (lo + hi) >>> 1;
		if (candles[mid].t + seconds / 2 <= t) lo = mid + 1;
		else hi = mid;
	}
	if (lo === candles.length) return lo - 1;
	if (lo === 0) return 0;
	const after = candles[lo].t + seconds / 2 - t;
	const before = t - (candles[lo - 1].t + seconds / 2);
	return before <= after ? lo - 1 : lo;
}
