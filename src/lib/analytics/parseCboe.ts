/**
 * Cboe delayed-quotes option chain files ("quotedata.csv", the download of Cboe's delayed quotes
 * page): line 2 names the underlying and holds `Last: <spot>`, line 3 holds
 * `Date: <Month D, YYYY> at <h:mm AM|PM> <EDT|EST>` (the as-of time in New York), line 4 is the
 * header and every later row is one strike of one expiry with the call's fields, the strike and
 * the put's fields:
 *
 *   Expiration Date,Calls,Last Sale,Net,Bid,Ask,Volume,IV,Delta,Gamma,Open Interest,Strike,
 *   Puts,Last Sale,Net,Bid,Ask,Volume,IV,Delta,Gamma,Open Interest
 *
 * Older files say `Vol` and `Open Int`, some have no Delta and Gamma; columns are found by name.
 * Numbers may be quoted with thousands separators ("1,234"). The file is read with the one RFC
 * 4180 reader (./parseCsv). Any problem is a ChainParseError naming the line; nothing is
 * returned unless the whole file is valid.
 */
import { failParse as fail } from './parse';
import { CsvSyntaxError, readCsvRecords, type CsvRecord } from './parseCsv';
import { calendarDate, MONTHS, nyOffsetMinutes, nyWallTimeMs, WEEKDAYS } from './nyDates';

/** One option of the file, as quoted (the time to expiry depends on the conventions). */
export interface QuoteContract {
	/** Expiry date `YYYY-MM-DD`. */
	expiry: string;
	strike: number;
	isCall: boolean;
	/** Implied vol per 1.00 as the file gives it (0 when Cboe has none). */
	iv: number;
	bid: number;
	ask: number;
	volume: number;
	openInterest: number;
	/** Cboe's own greeks when the file has them (NaN otherwise). */
	delta: number;
	gamma: number;
	/** 1-based line of the row. */
	line: number;
}

export interface QuoteChain {
	format: 'cboe';
	/** Line 2's first field, e.g. `SPX (S&P 500 INDEX)`. */
	name: string;
	/** The underlying's symbol from the name (`SPX`), upper case, without Cboe's `_` / `^`. */
	symbol: string;
	spot: number;
	/** The as-of instant, epoch ms. */
	asOf: number;
	/** The as-of date in New York, `YYYY-MM-DD`. */
	asOfDate: string;
	/** Minutes after midnight New York of the as-of time. */
	asOfMinute: number;
	/** UTC offset of the as-of time in minutes (-240 EDT, -300 EST). */
	asOfOffset: number;
	/** Which optional columns the file had. */
	columns: { delta: boolean; gamma: boolean };
	contracts: QuoteContract[];
}

const HEADER_FIRST = 'expiration date';
/** How far down the header may be (a blank first line, the two market lines, the header). */
const HEADER_SEARCH = 8;

type Field = 'last' | 'net' | 'bid' | 'ask' | 'volume' | 'iv' | 'delta' | 'gamma' | 'oi';
const FIELD_NAMES: Record<string, Field> = {
	'last sale': 'last',
	last: 'last',
	net: 'net',
	bid: 'bid',
	ask: 'ask',
	volume: 'volume',
	vol: 'volume',
	iv: 'iv',
	delta: 'delta',
	gamma: 'gamma',
	'open interest': 'oi',
	'open int': 'oi'
};
const REQUIRED: readonly Field[] = ['bid', 'ask', 'volume', 'iv', 'oi'];
const COLUMN_TITLE: Record<Field, string> = {
	last: 'Last Sale',
	net: 'Net',
	bid: 'Bid',
	ask: 'Ask',
	volume: 'Volume',
	iv: 'IV',
	delta: 'Delta',
	gamma: 'Gamma',
	oi: 'Open Interest'
};

const GROUPED_NUMBER = /^[+-]?\d{1,3}(,\d{3})+(\.\d*)?$/;

/**
 * A finite number as Cboe writes it: plain decimal (exponent allowed), or with thousands
 * separators; undefined otherwise. Only digits, signs, '.', 'e' reach Number(), so its other
 * spellings (hex, 'Infinity', blanks) never pass; what Number() then refuses is NaN.
 */
export function cboeNumber(raw: string): number | undefined {
	const s = raw.trim();
	if (s === '') return undefined;
	let comma = false;
	for (let i = 0; i < s.length; i++) {
		const c = s.charCodeAt(i);
		// 0-9 . + - e E
		if ((c >= 48 && c <= 57) || c === 46 || c === 43 || c === 45 || c === 101 || c === 69) continue;
		if (c === 44) {
			comma = true;
			continue;
		}
		return undefined;
	}
	if (comma && !GROUPED_NUMBER.test(s)) return undefined;
	const v = Number(comma ? s.replaceAll(',', '') : s);
	return Number.isFinite(v) ? v : undefined;
}

/** Cell `i` of a row as a number (NaN when empty and optional); a clear error otherwise. */
function cellNumber(
	cells: string[],
	i: number,
	line: number,
	titles: string[],
	optional: boolean
): number {
	const raw = cells[i];
	if (optional && raw.trim() === '') return NaN;
	const v = cboeNumber(raw);
	if (v === undefined) fail(`'${raw.trim()}' is not a number`, line, titles[i]);
	return v;
}

const DATE_LINE =
	/^Date:\s*([A-Za-z]+)\s+(\d{1,2}),\s*(\d{4})\s+at\s+(\d{1,2}):(\d{2})\s*([AaPp][Mm])\s*(EDT|EST|ET)?\s*$/;
const EXPIRY = /^([A-Za-z]{3})\s+([A-Za-z]{3})\s+(\d{1,2})\s+(\d{4})$/;
const MONTH_ABBR = MONTHS.map((m) => m.slice(0, 3));

/** Does the text look like a Cboe quote-data file (the header within its first lines)? */
export function looksLikeCboe(text: string): boolean {
	const head = text.slice(0, 4096).split(/\r?\n/).slice(0, HEADER_SEARCH);
	return head.some((l) => /^\s*"?expiration date"?\s*,\s*"?calls"?\s*,/i.test(l));
}

/** `Fri Nov 20 2026` -> `2026-11-20`, checking the weekday agrees. */
function expiryDate(raw: string, line: number): string {
	const m = EXPIRY.exec(raw.trim());
	if (!m) fail(`expiry '${raw}' is not like 'Fri Nov 20 2026'`, line, 'Expiration Date');
	const month = MONTH_ABBR.indexOf(m[2].toLowerCase() as (typeof MONTH_ABBR)[number]) + 1;
	const date = month > 0 ? calendarDate(Number(m[4]), month, Number(m[3])) : undefined;
	if (!date) fail(`expiry '${raw}' is not a real date`, line, 'Expiration Date');
	const wd = WEEKDAYS.indexOf(m[1].toLowerCase() as (typeof WEEKDAYS)[number]);
	const actual = new Date(`${date}T12:00:00Z`).getUTCDay();
	if (wd !== actual)
		fail(
			`expiry '${raw}': ${date} is a ${WEEKDAYS[actual]}, not a ${m[1]}`,
			line,
			'Expiration Date'
		);
	return date;
}

interface AsOf {
	asOf: number;
	asOfDate: string;
	asOfMinute: number;
	asOfOffset: number;
}

function asOfTime(cell: string, line: number): AsOf {
	const m = DATE_LINE.exec(cell.trim());
	if (!m)
		fail(`'${cell.trim()}' is not like 'Date: November 20, 2026 at 10:15 AM EST'`, line, 'Date');
	const month = MONTHS.indexOf(m[1].toLowerCase() as (typeof MONTHS)[number]) + 1;
	const date = month > 0 ? calendarDate(Number(m[3]), month, Number(m[2])) : undefined;
	if (!date) fail(`'${m[1]} ${m[2]}, ${m[3]}' is not a real date`, line, 'Date');
	const hour = Number(m[4]);
	const minute = Number(m[5]);
	if (hour < 1 || hour > 12 || minute > 59) fail(`'${m[4]}:${m[5]}' is not a time`, line, 'Date');
	const pm = m[6].toUpperCase() === 'PM';
	const asOfMinute = ((hour % 12) + (pm ? 12 : 0)) * 60 + minute;
	const zone = m[7]?.toUpperCase();
	const asOfOffset =
		zone === 'EDT' ? -240 : zone === 'EST' ? -300 : nyOffsetMinutes(date, asOfMinute);
	return {
		asOf: nyWallTimeMs(date, asOfMinute, asOfOffset),
		asOfDate: date,
		asOfMinute,
		asOfOffset
	};
}

function symbolOf(name: string): string {
	const first = name.trim().split(/[\s(]/)[0] ?? '';
	return first.replace(/^[_^$]+/, '').toUpperCase();
}

/** Side columns: field -> column index, for the cells between `from` and `to` (exclusive). */
function sideColumns(
	header: string[],
	from: number,
	to: number,
	side: string,
	line: number
): Map<Field, number> {
	const cols = new Map<Field, number>();
	for (let i = from; i < to; i++) {
		const field = FIELD_NAMES[header[i]];
		if (field === undefined) continue;
		if (cols.has(field))
			fail(`the ${side} side has two '${COLUMN_TITLE[field]}' columns`, line, header[i]);
		cols.set(field, i);
	}
	for (const f of REQUIRED)
		if (!cols.has(f)) fail(`the ${side} side has no '${COLUMN_TITLE[f]}' column`, line, side);
	return cols;
}

const NOT_CBOE =
	"no 'Expiration Date,Calls,...' header in the first lines: not a Cboe quote-data file";

export function parseCboeQuotes(text: string): QuoteChain {
	if (!looksLikeCboe(text)) fail(NOT_CBOE, 1);
	let records: CsvRecord[];
	try {
		records = readCsvRecords(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
	} catch (e) {
		if (e instanceof CsvSyntaxError) fail(e.message, e.line);
		throw e;
	}
	const headerAt = records
		.slice(0, HEADER_SEARCH)
		.findIndex((r) => r.cells[0]?.trim().toLowerCase() === HEADER_FIRST);
	if (headerAt < 0) fail(NOT_CBOE, records[0]?.line ?? 1);
	const head = records[headerAt];
	const before = records.slice(0, headerAt);

	// Line 2: the name and `Last: <spot>`.
	const spotRecord = before.find((r) => r.cells.some((c) => /^\s*Last:/i.test(c)));
	if (!spotRecord)
		fail("no 'Last: <spot>' field before the header (Cboe files have it on line 2)", head.line);
	const lastCell = spotRecord.cells.find((c) => /^\s*Last:/i.test(c)) as string;
	const spot = cboeNumber(lastCell.replace(/^\s*Last:/i, ''));
	if (spot === undefined || !(spot > 0))
		fail(`'${lastCell.trim()}' does not give a positive spot`, spotRecord.line, 'Last');
	const name = spotRecord.cells[0].trim();

	// Line 3: the as-of time.
	const dateRecord = before.find((r) => r.cells.some((c) => /^\s*Date:/i.test(c)));
	if (!dateRecord)
		fail("no 'Date: <Month D, YYYY> at <h:mm AM> <EST>' field before the header", head.line);
	const when = asOfTime(
		dateRecord.cells.find((c) => /^\s*Date:/i.test(c)) as string,
		dateRecord.line
	);

	// Line 4: the header, both sides found by name.
	const header = head.cells.map((h) => h.trim().toLowerCase().replace(/\s+/g, ' '));
	const callsAt = header.indexOf('calls');
	const strikeAt = header.indexOf('strike');
	const putsAt = header.indexOf('puts');
	if (callsAt < 0 || strikeAt < 0 || putsAt < 0 || !(callsAt < strikeAt && strikeAt < putsAt))
		fail(
			"the header must hold 'Calls', then 'Strike', then 'Puts' after 'Expiration Date'",
			head.line
		);
	const call = sideColumns(header, callsAt + 1, strikeAt, 'Calls', head.line);
	const put = sideColumns(header, putsAt + 1, header.length, 'Puts', head.line);
	const hasDelta = call.has('delta') && put.has('delta');
	const hasGamma = call.has('gamma') && put.has('gamma');

	// Column indices in flat arrays and expiries looked up once per label: a 12,000-contract file
	// is parsed on every import, so the row loop allocates nothing but the contracts.
	const titles = head.cells.map((c, i) => c.trim() || `column ${i + 1}`);
	const sides = [call, put].map((cols) => ({
		iv: cols.get('iv') as number,
		bid: cols.get('bid') as number,
		ask: cols.get('ask') as number,
		volume: cols.get('volume') as number,
		oi: cols.get('oi') as number,
		delta: hasDelta ? (cols.get('delta') as number) : -1,
		gamma: hasGamma ? (cols.get('gamma') as number) : -1
	}));
	const expiries = new Map<string, string>();
	const contracts: QuoteContract[] = [];
	for (let r = headerAt + 1; r < records.length; r++) {
		const record = records[r];
		if (record.blank) continue;
		const line = record.line;
		const cells = record.cells;
		if (cells.length !== header.length)
			fail(`expected ${header.length} fields like the header, got ${cells.length}`, line);
		let expiry = expiries.get(cells[0]);
		if (expiry === undefined) expiries.set(cells[0], (expiry = expiryDate(cells[0], line)));
		const strike = cellNumber(cells, strikeAt, line, titles, false);
		if (!(strike > 0)) fail(`must be positive, got ${strike}`, line, 'Strike');
		for (let side = 0; side < 2; side++) {
			const at = sides[side];
			const isCall = side === 0;
			const quantity = (i: number, what: string): number => {
				const v = cellNumber(cells, i, line, titles, false);
				if (!(v >= 0))
					fail(
						`${isCall ? 'call' : 'put'} ${what} must be a non-negative number, got ${v}`,
						line,
						titles[i]
					);
				return v;
			};
			contracts.push({
				expiry,
				strike,
				isCall,
				iv: quantity(at.iv, 'IV'),
				bid: quantity(at.bid, 'Bid'),
				ask: quantity(at.ask, 'Ask'),
				volume: quantity(at.volume, 'Volume'),
				openInterest: quantity(at.oi, 'Open Interest'),
				delta: at.delta < 0 ? NaN : cellNumber(cells, at.delta, line, titles, true),
				gamma: at.gamma < 0 ? NaN : cellNumber(cells, at.gamma, line, titles, true),
				line
			});
		}
	}
	if (contracts.length === 0) fail('no option rows after the header', head.line);
	return {
		format: 'cboe',
		name,
		symbol: symbolOf(name),
		spot,
		...when,
		columns: { delta: hasDelta, gamma: hasGamma },
		contracts
	};
}
