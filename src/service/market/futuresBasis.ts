/**
 * Futures conversion (GET /v2/futures/conversion): futures price = level x multiplier +
 * additive. The additive is the front-month basis: cost of carry to the contract's expiry plus a
 * slowly drifting premium, re-marked every 15 minutes of the session from the spot at that
 * mark. ES_SPX and NQ_NDX levels are shifted by the same basis.
 */
import { FUTURES_PAIRS } from '../../lib/contract/futures';
import { sessionSeconds } from './clock';
import { daysToFuturesExpiry, frontMonthContract } from './calendar';
import { sessionPath } from './path';
import { Rng } from './prng';
import { RISK_FREE_RATE, tickerModel } from './universe';

/** Level the future tracks, per ticker: which simulated series and its multiplier. */
const CONVERSION: Record<string, { series: string; multiplier: (ratio: number) => number }> = {
	SPX: { series: 'SPX', multiplier: () => 1 },
	SPY: { series: 'SPX', multiplier: (ratio) => ratio },
	NDX: { series: 'NDX', multiplier: () => 1 },
	QQQ: { series: 'NDX', multiplier: (ratio) => ratio },
	RUT: { series: 'RUT', multiplier: () => 1 },
	IWM: { series: 'RUT', multiplier: (ratio) => ratio },
	DIA: { series: 'DIA', multiplier: () => 100 },
	GLD: { series: 'GLD', multiplier: () => 10.87 },
	USO: { series: 'USO', multiplier: () => 0.82 }
};

export const BASIS_MARK_SECONDS = 15 * 60;

export interface Conversion {
	future_contract: string;
	multiplier: number;
	additive: number;
}

/** The conversion in force at `tick` of session `date` (the close tick = the close mark). */
export function futuresConversionAt(
	seed: number,
	ticker: string,
	future: string,
	date: string,
	tick: number
): Conversion | undefined {
	if (FUTURES_PAIRS[ticker] !== future || !Object.hasOwn(FUTURES_PAIRS, ticker)) return undefined;
	const spec = CONVERSION[ticker];
	const mark = Math.min(
		Math.floor(tick / BASIS_MARK_SECONDS) * BASIS_MARK_SECONDS,
		sessionSeconds(date)
	);
	const seriesLevel = sessionPath(seed, spec.series, date)[mark];
	const ownLevel = sessionPath(seed, ticker, date)[mark];
	const multiplier = Math.round(spec.multiplier(seriesLevel / ownLevel) * 10_000) / 10_000;
	const level = ownLevel * multiplier;
	const q = tickerModel(spec.series).dividendYield;
	const carry = (RISK_FREE_RATE - q) * (daysToFuturesExpiry(future, date) / 365);
	const rng = new Rng(`${seed}|${future}|${date}|basis`);
	// The premium over carry drifts through the day: a random walk across the 27 marks.
	let premium = 0.0004 * rng.normal();
	for (let m = 0; m < mark / BASIS_MARK_SECONDS; m++) premium += 0.00005 * rng.normal();
	return {
		future_contract: frontMonthContract(future, date),
		multiplier,
		additive: Math.round(level * (carry + premium) * 100) / 100
	};
}
