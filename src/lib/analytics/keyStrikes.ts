/**
 * Key strikes from per-strike exposure ladders: the major positive / negative strike (largest /
 * smallest net value, ties broken toward spot) and the strike of largest absolute change against
 * earlier snapshots (the max-change lookbacks: current tick, 1, 5, 10, 15, 30 minutes).
 */

/** A per-strike series: ascending strikes and one value per strike. */
export interface StrikeSeries {
	strikes: ArrayLike<number>;
	values: ArrayLike<number>;
}

export interface Majors {
	/** Strike with the largest value, null for an empty ladder. */
	positive: number | null;
	/** Strike with the smallest value, null for an empty ladder. */
	negative: number | null;
}

/** Is strike a closer to spot than b (exact ties go to the lower strike, deterministically)? */
function closer(a: number, b: number, spot: number): boolean {
	const da = Math.abs(a - spot);
	const db = Math.abs(b - spot);
	return da < db || (da === db && a < b);
}

/** Strike of the largest and of the smallest value; equal values resolve toward spot. */
export function majorStrikes(
	strikes: ArrayLike<number>,
	values: ArrayLike<number>,
	spot: number
): Majors {
	let pos = -1;
	let neg = -1;
	for (let i = 0; i < strikes.length; i++) {
		const v = values[i];
		if (Number.isNaN(v)) continue;
		if (pos < 0 || v > values[pos] || (v === values[pos] && closer(strikes[i], strikes[pos], spot)))
			pos = i;
		if (neg < 0 || v < values[neg] || (v === values[neg] && closer(strikes[i], strikes[neg], spot)))
			neg = i;
	}
	return { positive: pos < 0 ? null : strikes[pos], negative: neg < 0 ? null : strikes[neg] };
}

/** Strike of the largest absolute value (ties toward spot), e.g. the largest call or put gamma. */
export function largestAbsStrike(
	strikes: ArrayLike<number>,
	values: ArrayLike<number>,
	spot: number
): number | null {
	let best = -1;
	for (let i = 0; i < strikes.length; i++) {
		const a = Math.abs(values[i]);
		if (Number.isNaN(a)) continue;
		const b = best < 0 ? -1 : Math.abs(values[best]);
		if (best < 0 || a > b || (a === b && closer(strikes[i], strikes[best], spot))) best = i;
	}
	return best < 0 ? null : strikes[best];
}

/** Value of `series` at `strike`, 0 when the strike is not listed (it held no exposure then). */
function valueAt(series: StrikeSeries, strike: number, hint: { i: number }): number {
	const { strikes, values } = series;
	let i = hint.i;
	while (i < strikes.length && strikes[i] < strike) i++;
	hint.i = i;
	return i < strikes.length && strikes[i] === strike ? values[i] : 0;
}

/**
 * [strike, signed change] with the largest |current - prior| over the union of both ladders'
 * strikes (a strike missing from one side counts as 0 there), ties toward spot. Null when the
 * prior snapshot is missing (not enough history yet) or both ladders are empty.
 */
export function maxChange(
	current: StrikeSeries,
	prior: StrikeSeries | null,
	spot: number
): [number, number] | null {
	if (prior === null) return null;
	let bestStrike = NaN;
	let bestChange = 0;
	let found = false;
	const consider = (strike: number, change: number) => {
		const a = Math.abs(change);
		const b = Math.abs(bestChange);
		if (!found || a > b || (a === b && closer(strike, bestStrike, spot))) {
			bestStrike = strike;
			bestChange = change;
			found = true;
		}
	};
	const hp = { i: 0 };
	for (let i = 0; i < current.strikes.length; i++) {
		const k = current.strikes[i];
		consider(k, current.values[i] - valueAt(prior, k, hp));
	}
	const hc = { i: 0 };
	for (let i = 0; i < prior.strikes.length; i++) {
		const k = prior.strikes[i];
		const inCurrent = valueAt(current, k, hc);
		const listed = hc.i < current.strikes.length && current.strikes[hc.i] === k;
		if (!listed) consider(k, inCurrent - prior.values[i]);
	}
	return found ? [bestStrike, bestChange] : null;
}

/** Lookback windows of the max-change route, in minutes (0 = previous tick). */
export const MAX_CHANGE_LOOKBACKS = [0, 1, 5, 10, 15, 30] as const;

/**
 * Max change for each lookback: priors[i] is the snapshot at MAX_CHANGE_LOOKBACKS[i] (or null
 * when history is too short). Returns one entry per prior.
 */
export function maxChanges(
	current: StrikeSeries,
	priors: readonly (StrikeSeries | null)[],
	spot: number
): ([number, number] | null)[] {
	return priors.map((p) => maxChange(current, p, spot));
}
