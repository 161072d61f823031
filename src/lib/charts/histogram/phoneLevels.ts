/**
 * The phone levels list: spot, zero gamma, majors by volume and OI and the largest max change,
 * each with its distance from spot, optionally converted to the future
 * (futures price = index level x multiplier + additive).
 */
import type { FuturesConversionBody } from '../../contract/schemas';
import type { ColumnarGex } from '../../wire/columnar';
import { MAX_CHANGE_WINDOWS } from './classicChain';

export interface LevelRow {
	id: string;
	label: string;
	/** Level in the underlying's terms; null when not available (zero gamma not computed). */
	value: number | null;
	tone: 'spot' | 'zero' | 'pos' | 'neg' | 'change';
	/** The max change row: its GEX change ($ millions per 1% move) over `window`. */
	change?: { value: number; window: string };
}

/**
 * The max change window with the largest absolute change, from the flat [strike, change] pairs
 * of ColumnarGex.maxPriors (`max_priors` order: now, 1, 5, 10, 15, 30 min).
 */
export function largestMaxChange(
	maxPriors: ArrayLike<number>
): { strike: number; change: number; window: string } | undefined {
	let best: { strike: number; change: number; window: string } | undefined;
	for (let i = 0; 2 * i + 1 < maxPriors.length; i++) {
		const [strike, change] = [maxPriors[2 * i], maxPriors[2 * i + 1]];
		if (!best || Math.abs(change) > Math.abs(best.change)) {
			best = { strike, change, window: MAX_CHANGE_WINDOWS[i] ?? `#${i}` };
		}
	}
	return best;
}

/**
 * Levels from the Classic chain: one api_default request that the Classic view of the same
 * ticker shares through the proxy's coalescing, instead of two calls on the smaller majors and
 * max change pools.
 */
export function levelRows(chain: ColumnarGex): LevelRow[] {
	const rows: LevelRow[] = [
		{ id: 'spot', label: 'Spot', value: chain.spot, tone: 'spot' },
		{
			id: 'zero',
			label: 'Zero gamma',
			value: chain.zeroGamma === 0 ? null : chain.zeroGamma,
			tone: 'zero'
		},
		{ id: 'mpos_vol', label: 'Major + (vol)', value: chain.majorPosVol, tone: 'pos' },
		{ id: 'mpos_oi', label: 'Major + (OI)', value: chain.majorPosOi, tone: 'pos' },
		{ id: 'mneg_vol', label: 'Major − (vol)', value: chain.majorNegVol, tone: 'neg' },
		{ id: 'mneg_oi', label: 'Major − (OI)', value: chain.majorNegOi, tone: 'neg' }
	];
	const big = largestMaxChange(chain.maxPriors);
	if (big) {
		rows.push({
			id: 'maxchange',
			label: `Max change (${big.window})`,
			value: big.strike,
			tone: 'change',
			change: { value: big.change, window: big.window }
		});
	}
	return rows;
}

export function toFuture(value: number, conv: FuturesConversionBody): number {
	return value * conv.multiplier + conv.additive;
}

/** Distance of a level from spot in points and percent. */
export function distance(value: number, spot: number): { points: number; percent: number } {
	return { points: value - spot, percent: spot === 0 ? 0 : ((value - spot) / spot) * 100 };
}
