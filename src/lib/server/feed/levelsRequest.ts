/**
 * `/feed/v1/levels/<TICKER>[.json|.csv|.txt]` and its query, parsed (pure): which ticker,
 * category, format and options a request asks for, or the 400/404 it gets.
 */
import { FUTURES_PAIRS, FUTURE_ROOTS } from '../../contract/futures';

export const LEVELS_PREFIX = '/feed/v1/levels/';
export const CATEGORIES = ['gex_full', 'gex_zero', 'gex_one'] as const;
export const MAX_STRIKES = 200;

export type LevelsFormat = 'json' | 'csv' | 'bookmap' | 'tradingview' | 'thinkscript';

export interface LevelsRequest {
	ticker: string;
	category: string;
	format: LevelsFormat;
	strikes: number;
	/** Future root and the ticker whose conversion it is (ES_SPX and SPXW convert like SPX). */
	future?: { root: string; of: string };
	/** Bookmap's own symbol for the notes (`ESZ6.CME@RITHMIC`), else the instrument's. */
	symbol?: string;
}

export type Parsed =
	{ ok: true; value: LevelsRequest } | { ok: false; status: 400 | 404; error: string };

const TICKER = /^[A-Z0-9_]{1,16}$/;

/** The underlying a futures conversion is published for (ES_SPX -> SPX, SPXW -> SPX). */
function conversionTicker(ticker: string): string | undefined {
	if (Object.hasOwn(FUTURES_PAIRS, ticker)) return ticker;
	const base = ticker.includes('_')
		? ticker.slice(ticker.indexOf('_') + 1)
		: ticker.replace(/W$/, '');
	return Object.hasOwn(FUTURES_PAIRS, base) ? base : undefined;
}

export function parseLevelsRequest(pathname: string, query: URLSearchParams): Parsed {
	if (!pathname.startsWith(LEVELS_PREFIX)) {
		return { ok: false, status: 404, error: `Not a feed route; use ${LEVELS_PREFIX}<TICKER>.` };
	}
	const file = pathname.slice(LEVELS_PREFIX.length);
	const m = /^([^./]+)(?:\.(json|csv|txt))?$/.exec(file);
	if (!m)
		return { ok: false, status: 404, error: `No such feed: ${LEVELS_PREFIX}${file.slice(0, 40)}` };
	const ticker = m[1].toUpperCase();
	if (!TICKER.test(ticker)) return { ok: false, status: 400, error: 'Bad ticker.' };
	const ext = m[2] ?? 'json';
	const style = query.get('style');
	let format: LevelsFormat;
	if (ext === 'json') format = 'json';
	else if (ext === 'csv') {
		if (style !== null && style !== 'bookmap')
			return { ok: false, status: 400, error: '.csv styles: bookmap (or none).' };
		format = style === 'bookmap' ? 'bookmap' : 'csv';
	} else {
		if (style !== 'tradingview' && style !== 'thinkscript') {
			return {
				ok: false,
				status: 400,
				error: '.txt needs style=tradingview or style=thinkscript.'
			};
		}
		format = style;
	}
	const category = query.get('category') ?? 'gex_full';
	if (!(CATEGORIES as readonly string[]).includes(category)) {
		return { ok: false, status: 400, error: `category is one of ${CATEGORIES.join(', ')}.` };
	}
	const strikesText = query.get('strikes');
	const strikes = strikesText === null ? 0 : Number(strikesText);
	if (!Number.isInteger(strikes) || strikes < 0 || strikes > MAX_STRIKES) {
		return { ok: false, status: 400, error: `strikes is a whole number 0-${MAX_STRIKES}.` };
	}
	const value: LevelsRequest = { ticker, category, format, strikes };
	const future = query.get('future')?.toUpperCase();
	if (future) {
		const of = conversionTicker(ticker);
		if (
			!(FUTURE_ROOTS as readonly string[]).includes(future) ||
			!of ||
			FUTURES_PAIRS[of] !== future
		) {
			return { ok: false, status: 400, error: `No ${future} conversion for ${ticker}.` };
		}
		value.future = { root: future, of };
	}
	const symbol = query.get('symbol');
	if (symbol) value.symbol = symbol.replace(/[^\x21-\x7e]/g, '').slice(0, 60);
	return { ok: true, value };
}
