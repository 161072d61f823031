/**
 * The multi-ticker watchlist's rows (zero gamma, majors and spot for up to 20 tickers), folded
 * from stream updates: each ticker's row follows its newest GEX update, and spot follows the
 * newest spot message when that is newer.
 */
import type { StreamUpdate } from '../transport/updates';

export const WATCHLIST_MAX_TICKERS = 20;

export interface WatchlistRow {
	ticker: string;
	/** Timestamp of the GEX values (unix s). */
	timestamp: number;
	spot: number;
	spotTimestamp: number;
	zeroGamma: number;
	majorPosVol: number;
	majorNegVol: number;
	majorPosOi: number;
	majorNegOi: number;
}

/**
 * Folds updates into rows; returns a new map when anything changed (for `$state.raw`), else
 * the same one.
 */
export function foldWatchlist(
	rows: ReadonlyMap<string, WatchlistRow>,
	updates: readonly StreamUpdate[],
	tickers: ReadonlySet<string>
): ReadonlyMap<string, WatchlistRow> {
	let next: Map<string, WatchlistRow> | undefined;
	const edit = () => (next ??= new Map(rows));
	for (const u of updates) {
		if (!tickers.has(u.ticker)) continue;
		const row = (next ?? rows).get(u.ticker);
		if (u.kind === 'gex') {
			if (row && row.timestamp > u.timestamp) continue;
			const v = u.value;
			const spot = u.pairedSpot?.spot ?? v.spot;
			// A spot message of the same or a later second is at least as current as the GEX frame.
			const keepSpot =
				row !== undefined &&
				(row.spotTimestamp > u.timestamp || (row.spotTimestamp === u.timestamp && !u.pairedSpot));
			edit().set(u.ticker, {
				ticker: u.ticker,
				timestamp: u.timestamp,
				spot: keepSpot ? row!.spot : spot,
				spotTimestamp: keepSpot ? row!.spotTimestamp : u.timestamp,
				zeroGamma: v.zeroGamma,
				majorPosVol: v.majorPosVol,
				majorNegVol: v.majorNegVol,
				majorPosOi: v.majorPosOi,
				majorNegOi: v.majorNegOi
			});
		} else if (u.kind === 'spot' && row && u.timestamp >= row.spotTimestamp) {
			edit().set(u.ticker, { ...row, spot: u.value.spot, spotTimestamp: u.timestamp });
		}
	}
	return next ?? rows;
}
