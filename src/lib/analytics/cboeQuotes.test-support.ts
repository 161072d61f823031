/**
 * Writes Cboe quote-data files in the real layout (see ./parseCboe) for tests, the end-to-end
 * specs and the benchmark: a blank first line, the name and `Last:` line, the quoted `Date:`
 * line, the header (current `Volume`/`Open Interest` or older `Vol`/`Open Int`, with or without
 * Delta/Gamma) and one row per strike and expiry. `syntheticCboeFile` lays the engine's
 * synthetic SPX-like chain (about 12,000 contracts) out on calendar dates.
 */
import { bsmGreeks, emptyGreeks } from './bsm';
import { dateOfDayNumber, dayNumber, MONTHS, WEEKDAYS } from './nyDates';
import { csvField } from './parseCsv';
import {
	SYNTHETIC_EXPIRY_DAYS,
	syntheticChain,
	type SyntheticChainOptions
} from './syntheticChain';

export interface QuoteSide {
	iv: number;
	bid: number;
	ask: number;
	volume: number;
	openInterest: number;
	delta?: number;
	gamma?: number;
}

export interface QuoteRow {
	/** `YYYY-MM-DD`. */
	expiry: string;
	strike: number;
	call: QuoteSide;
	put: QuoteSide;
}

export interface CboeFileOptions {
	name?: string;
	spot: number;
	/** As-of date `YYYY-MM-DD` and wall time `h:mm AM`. */
	date: string;
	time?: string;
	zone?: 'EST' | 'EDT';
	/** Older files say Vol / Open Int. */
	oldHeader?: boolean;
	/** Include the Delta and Gamma columns (default true). */
	greeks?: boolean;
	/** Thousands separators in quoted numbers (default true). */
	grouped?: boolean;
	eol?: '\n' | '\r\n';
	rows: QuoteRow[];
}

const cap = (s: string) => s[0].toUpperCase() + s.slice(1);

/** `2026-11-20` -> `Fri Nov 20 2026`. */
export function cboeExpiryLabel(date: string): string {
	const [y, m, d] = date.split('-').map(Number);
	const wd = WEEKDAYS[new Date(Date.UTC(y, m - 1, d)).getUTCDay()];
	return `${cap(wd)} ${cap(MONTHS[m - 1].slice(0, 3))} ${String(d).padStart(2, '0')} ${y}`;
}

function optionSymbol(root: string, expiry: string, isCall: boolean, strike: number): string {
	return `${root}${expiry.slice(2).replaceAll('-', '')}${isCall ? 'C' : 'P'}${String(Math.round(strike * 1000)).padStart(8, '0')}`;
}

export function writeCboeFile(o: CboeFileOptions): string {
	const grouped = o.grouped ?? true;
	const greeks = o.greeks ?? true;
	const n = (v: number, digits = 2) => {
		const s = v.toFixed(digits);
		return grouped && Math.abs(v) >= 1000
			? Number(s).toLocaleString('en-US', { minimumFractionDigits: digits })
			: s;
	};
	const [y, m, d] = o.date.split('-').map(Number);
	const lines: string[][] = [
		[''],
		[
			o.name ?? 'SPX (S&P 500 INDEX)',
			`Last: ${n(o.spot)}`,
			'Change: +1.25',
			`High: ${n(o.spot * 1.004)}`,
			`Low: ${n(o.spot * 0.996)}`
		],
		[
			`Date: ${cap(MONTHS[m - 1])} ${d}, ${y} at ${o.time ?? '10:15 AM'} ${o.zone ?? 'EST'}`,
			`Bid: ${n(o.spot - 0.5)}`,
			`Ask: ${n(o.spot + 0.5)}`,
			'Size: 1*1',
			'Volume: 0'
		]
	];
	const side = ['Last Sale', 'Net', 'Bid', 'Ask', o.oldHeader ? 'Vol' : 'Volume', 'IV'];
	if (greeks) side.push('Delta', 'Gamma');
	side.push(o.oldHeader ? 'Open Int' : 'Open Interest');
	lines.push(['Expiration Date', 'Calls', ...side, 'Strike', 'Puts', ...side]);
	const root = (o.name ?? 'SPX').split(/[\s(]/)[0];
	const cells = (s: QuoteSide): string[] => {
		const out = [
			n(0.5 * (s.bid + s.ask)),
			'0.0',
			n(s.bid),
			n(s.ask),
			n(s.volume, 0),
			s.iv.toFixed(4)
		];
		if (greeks) out.push((s.delta ?? 0).toFixed(4), (s.gamma ?? 0).toFixed(4));
		out.push(n(s.openInterest, 0));
		return out;
	};
	for (const r of o.rows)
		lines.push([
			cboeExpiryLabel(r.expiry),
			optionSymbol(root, r.expiry, true, r.strike),
			...cells(r.call),
			n(r.strike),
			optionSymbol(root, r.expiry, false, r.strike),
			...cells(r.put)
		]);
	const eol = o.eol ?? '\n';
	return lines.map((cs) => cs.map(csvField).join(',')).join(eol) + eol;
}

/** A side quoted around its BSM price (r = q = 0) so `--iv-from mid` can solve it. */
export function quotedSide(
	isCall: boolean,
	spot: number,
	strike: number,
	years: number,
	iv: number,
	openInterest: number,
	volume: number
): QuoteSide {
	const g = bsmGreeks(isCall, spot, strike, Math.max(years, 1e-6), iv, 0, 0, emptyGreeks());
	const half = Math.max(0.025, g.price * 0.01);
	return {
		iv,
		bid: Math.max(0, g.price - half),
		ask: g.price + half,
		volume,
		openInterest,
		delta: g.delta,
		gamma: g.gamma
	};
}

/**
 * The synthetic chain (./syntheticChain) as a Cboe file as of `date` 10:15 EST: expiry k lands
 * SYNTHETIC_EXPIRY_DAYS[k] calendar days after the as-of date (weekends included: the layout
 * only needs distinct dates).
 */
export function syntheticCboeFile(
	date = '2026-11-16',
	options: SyntheticChainOptions & Partial<Omit<CboeFileOptions, 'rows' | 'spot' | 'date'>> = {}
): string {
	const chain = syntheticChain({ ...options, rate: 0, dividendYield: 0 });
	const byKey = new Map<string, QuoteRow>();
	const expiryOf = new Map<number, string>();
	const days = [...new Set(Array.from(chain.expiryYears))].sort((a, b) => a - b);
	days.forEach((t, k) =>
		expiryOf.set(t, dateOfDayNumber(dayNumber(date) + SYNTHETIC_EXPIRY_DAYS[k]))
	);
	for (let i = 0; i < chain.length; i++) {
		const expiry = expiryOf.get(chain.expiryYears[i]) as string;
		const key = `${expiry}|${chain.strike[i]}`;
		let row = byKey.get(key);
		if (!row) {
			row = { expiry, strike: chain.strike[i], call: undefined!, put: undefined! };
			byKey.set(key, row);
		}
		const s = quotedSide(
			chain.isCall[i] === 1,
			chain.spot,
			chain.strike[i],
			chain.expiryYears[i],
			chain.iv[i],
			chain.openInterest[i],
			chain.volume[i]
		);
		if (chain.isCall[i] === 1) row.call = s;
		else row.put = s;
	}
	return writeCboeFile({ ...options, spot: chain.spot, date, rows: [...byKey.values()] });
}
