/**
 * A quoted chain (./parseCboe) turned into the engine's ChainArrays under stated conventions:
 * the time to expiry, the rate and dividend yield, and where each contract's IV comes from.
 *
 * - `calendar` (default): T = (expiry date 16:00 America/New_York - as-of) / 365 days.
 * - `perfiliev`: the well-known public GEX calculator's choices, so its numbers can be checked:
 *   T = weekdays from the as-of date to the expiry (numpy.busday_count: Monday to Friday, no
 *   holiday list) / 262, and 1/262 when that count is 0 (an expiry on the as-of business day);
 *   r = q = 0 unless given.
 * IV: `file` uses the file's IV and skips a contract whose IV is 0; `mid` solves every
 * contract's IV from its bid/ask midpoint under these r, q and T and skips the unsolvable ones.
 * An expired contract (T <= 0; under perfiliev an expiry date before the as-of date) is skipped.
 * Every skip is counted, never silent.
 */
import { createChainArrays, DEFAULT_CONTRACT_SIZE, type ChainArrays } from './chain';
import { impliedVol } from './iv';
import { dayNumber, isThirdFriday, nyWallTimeMs, weekdayCount } from './nyDates';
import type { QuoteChain } from './parseCboe';

export const CONVENTION_PRESETS = ['calendar', 'perfiliev'] as const;
export type ConventionPreset = (typeof CONVENTION_PRESETS)[number];
export const IV_SOURCES = ['file', 'mid'] as const;
export type IvSource = (typeof IV_SOURCES)[number];

export interface ChainConventions {
	preset: ConventionPreset;
	rate: number;
	dividendYield: number;
	ivFrom: IvSource;
}

export const DEFAULT_CONVENTIONS: ChainConventions = {
	preset: 'calendar',
	rate: 0,
	dividendYield: 0,
	ivFrom: 'file'
};

/** Weekdays per year in the perfiliev preset (as the calculator has it). */
export const PERFILIEV_DAYS_PER_YEAR = 262;
export const EXPIRY_MINUTE = 16 * 60;

/** The conventions as the report states them (snake_case, like the rest of the report). */
export interface ConventionsReport {
	preset: ConventionPreset;
	time_to_expiry: string;
	as_of: string | null;
	rate: number;
	dividend_yield: number;
	iv_source: string;
	contract_size: number;
	zero_gamma_window: [number, number];
}

export interface SkippedCounts {
	total: number;
	/** Expiry already passed at the as-of time. */
	expired: number;
	/** IV 0 in the file (iv source `file`). */
	iv_zero: number;
	/** No IV could be solved from the bid/ask midpoint (iv source `mid`). */
	unsolvable: number;
}

export interface PricedQuoteChain {
	chain: ChainArrays;
	/** Distinct expiry dates of the priced contracts, ascending. */
	expiries: string[];
	/** Per priced contract: its position in `expiries`. */
	expiryIndex: Int32Array;
	skipped: SkippedCounts;
	conventions: ConventionsReport;
}

/** Time to expiry in years of an expiry date seen at the quote's as-of time. */
export function timeToExpiry(
	quote: Pick<QuoteChain, 'asOf' | 'asOfDate'>,
	expiry: string,
	preset: ConventionPreset
): number {
	if (preset === 'perfiliev') {
		if (dayNumber(expiry) < dayNumber(quote.asOfDate)) return -1;
		const days = weekdayCount(quote.asOfDate, expiry);
		return (days === 0 ? 1 : days) / PERFILIEV_DAYS_PER_YEAR;
	}
	return (nyWallTimeMs(expiry, EXPIRY_MINUTE) - quote.asOf) / (365 * 86_400_000);
}

/** ISO 8601 with the file's own New York offset, e.g. 2026-11-20T10:15:00-05:00. */
export function asOfIso(quote: Pick<QuoteChain, 'asOfDate' | 'asOfMinute' | 'asOfOffset'>): string {
	const hh = String(Math.floor(quote.asOfMinute / 60)).padStart(2, '0');
	const mm = String(quote.asOfMinute % 60).padStart(2, '0');
	const off = quote.asOfOffset;
	const sign = off >= 0 ? '+' : '-';
	const oh = String(Math.floor(Math.abs(off) / 60)).padStart(2, '0');
	const om = String(Math.abs(off) % 60).padStart(2, '0');
	return `${quote.asOfDate}T${hh}:${mm}:00${sign}${oh}:${om}`;
}

export function describeConventions(
	conventions: ChainConventions,
	asOf: string | null,
	contractSize = DEFAULT_CONTRACT_SIZE
): ConventionsReport {
	return {
		preset: conventions.preset,
		time_to_expiry:
			conventions.preset === 'perfiliev'
				? 'weekdays from the as-of date to the expiry date / 262 (1/262 when 0)'
				: '(expiry date 16:00 America/New_York - as-of) / 365 days',
		as_of: asOf,
		rate: conventions.rate,
		dividend_yield: conventions.dividendYield,
		iv_source:
			conventions.ivFrom === 'mid'
				? 'solved from the bid/ask midpoint; unsolvable contracts skipped'
				: 'file; contracts with IV 0 skipped',
		contract_size: contractSize,
		zero_gamma_window: [0.8, 1.2]
	};
}

/** The quoted contracts that can be priced, as ChainArrays, with what was skipped and why. */
export function priceQuoteChain(
	quote: QuoteChain,
	conventions: ChainConventions
): PricedQuoteChain {
	const { rate, dividendYield, preset, ivFrom } = conventions;
	const skipped: SkippedCounts = { total: 0, expired: 0, iv_zero: 0, unsolvable: 0 };
	const n = quote.contracts.length;
	const kept = new Int32Array(n);
	const ivs = new Float64Array(n);
	const years = new Float64Array(n);
	const tOfExpiry = new Map<string, number>();
	let count = 0;
	for (let i = 0; i < n; i++) {
		const c = quote.contracts[i];
		let t = tOfExpiry.get(c.expiry);
		if (t === undefined) tOfExpiry.set(c.expiry, (t = timeToExpiry(quote, c.expiry, preset)));
		if (!(t > 0)) {
			skipped.expired++;
			continue;
		}
		let iv = c.iv;
		if (ivFrom === 'mid') {
			iv = NaN;
			const mid = 0.5 * (c.bid + c.ask);
			if (mid > 0)
				try {
					iv = impliedVol(mid, c.isCall, quote.spot, c.strike, t, rate, dividendYield);
				} catch {
					// Outside the no-arbitrage bounds: counted below.
				}
			if (!(iv > 0)) {
				skipped.unsolvable++;
				continue;
			}
		} else if (!(iv > 0)) {
			skipped.iv_zero++;
			continue;
		}
		kept[count] = i;
		ivs[count] = iv;
		years[count] = t;
		count++;
	}
	skipped.total = skipped.expired + skipped.iv_zero + skipped.unsolvable;

	const chain = createChainArrays(count, { spot: quote.spot, rate, dividendYield });
	const expiries = [
		...new Set(Array.from(kept.subarray(0, count), (i) => quote.contracts[i].expiry))
	].sort();
	const position = new Map(expiries.map((e, k) => [e, k]));
	const expiryIndex = new Int32Array(count);
	for (let j = 0; j < count; j++) {
		const c = quote.contracts[kept[j]];
		chain.strike[j] = c.strike;
		chain.expiryYears[j] = years[j];
		chain.iv[j] = ivs[j];
		chain.isCall[j] = c.isCall ? 1 : 0;
		chain.openInterest[j] = c.openInterest;
		chain.volume[j] = c.volume;
		expiryIndex[j] = position.get(c.expiry) as number;
	}
	return {
		chain,
		expiries,
		expiryIndex,
		skipped,
		conventions: describeConventions(conventions, asOfIso(quote), chain.contractSize)
	};
}

/** The nearest monthly expiry (third Friday) among ascending expiry dates, or null. */
export function nextMonthlyExpiry(expiries: readonly string[]): string | null {
	return expiries.find(isThirdFriday) ?? null;
}

/** Mask of the priced contracts whose expiry is not `expiry` (all of them for null). */
export function excludingExpiry(priced: PricedQuoteChain, expiry: string | null): Uint8Array {
	const n = priced.chain.length;
	const mask = new Uint8Array(n);
	const k = expiry === null ? -1 : priced.expiries.indexOf(expiry);
	for (let i = 0; i < n; i++) mask[i] = priced.expiryIndex[i] === k ? 0 : 1;
	return mask;
}
