import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { detectChainFormat } from './chainFile';
import { quotedSide, writeCboeFile, type QuoteRow } from './cboeQuotes.test-support';
import { ChainParseError } from './parse';
import { parseCboeQuotes } from './parseCboe';
import { priceQuoteChain, DEFAULT_CONVENTIONS, timeToExpiry } from './quoteChain';

const SPOT = 5812.34;

function row(expiry: string, strike: number, iv = 0.15, oi = 1234, vol = 56): QuoteRow {
	return {
		expiry,
		strike,
		call: quotedSide(true, SPOT, strike, 0.05, iv, oi, vol),
		put: quotedSide(false, SPOT, strike, 0.05, iv, oi + 1, vol + 1)
	};
}

/** Written by hand in the layout of a current download (quoted grouped numbers, CRLF). */
const CURRENT = [
	'',
	'"SPX (S&P 500 INDEX)","Last: 5,812.34",Change: +12.10,"High: 5,820.00","Low: 5,790.12"',
	'"Date: November 20, 2026 at 10:15 AM EST","Bid: 5,811.20","Ask: 5,813.00",Size: 1*1,Volume: 0',
	'Expiration Date,Calls,Last Sale,Net,Bid,Ask,Volume,IV,Delta,Gamma,Open Interest,Strike,Puts,Last Sale,Net,Bid,Ask,Volume,IV,Delta,Gamma,Open Interest',
	'Fri Nov 20 2026,SPXW261120C05800000,20.5,1.0,19.8,20.4,"1,204",0.1421,0.5512,0.0041,"12,345","5,800.00",SPXW261120P05800000,8.5,-1.0,8.1,8.6,934,0.1502,-0.4488,0.0040,"10,001"',
	'Fri Nov 20 2026,SPXW261120C05850000,3.5,1.0,3.3,3.6,800,0,0.2,0.002,5000,"5,850.00",SPXW261120P05850000,40.1,-1.0,39.5,41.0,12,0.1602,-0.8,0.002,300',
	'Fri Dec 18 2026,SPX261218C05800000,90.5,1.0,89.8,91.4,100,0.1521,0.55,0.001,"22,345","5,800.00",SPX261218P05800000,75.5,-1.0,74.1,76.6,80,0.1602,-0.45,0.001,"30,001"',
	'Thu Nov 19 2026,SPXW261119C05800000,0,0,0,0,0,0.2,0.55,0.001,100,"5,800.00",SPXW261119P05800000,0,0,0,0,0,0.2,-0.45,0.001,100',
	''
].join('\r\n');

/** An older download: Vol / Open Int, no Delta / Gamma, LF, an as-of on a holiday (Thanksgiving). */
const OLDER = [
	',',
	'SPY (SPDR S&P 500 ETF),Last: 581.2,Change: -0.4',
	'"Date: November 26, 2026 at 1:05 PM EST",Bid: 581.1,Ask: 581.3',
	'Expiration Date,Calls,Last Sale,Net,Bid,Ask,Vol,IV,Open Int,Strike,Puts,Last Sale,Net,Bid,Ask,Vol,IV,Open Int',
	'Fri Nov 27 2026,SPY261127C00580000,2.1,0.1,2.0,2.2,"3,100",0.1211,"15,000",580.00,SPY261127P00580000,1.1,0,1.0,1.2,2000,0.1302,"9,000"',
	'Mon Nov 30 2026,SPY261130C00585000,1.1,0.1,1.0,1.2,10,0.1111,500,585.00,SPY261130P00585000,5.1,0,5.0,5.2,20,0.1402,700'
].join('\n');

function parseError(text: string): ChainParseError {
	try {
		parseCboeQuotes(text);
	} catch (e) {
		expect(e).toBeInstanceOf(ChainParseError);
		return e as ChainParseError;
	}
	throw new Error('expected a ChainParseError');
}

describe('Cboe quote-data parser', () => {
	it('reads a current download: name, spot, as-of, quoted grouped numbers, CRLF', () => {
		const q = parseCboeQuotes(CURRENT);
		expect(detectChainFormat(CURRENT)).toBe('cboe');
		expect(q.name).toBe('SPX (S&P 500 INDEX)');
		expect(q.symbol).toBe('SPX');
		expect(q.spot).toBe(5812.34);
		expect(new Date(q.asOf).toISOString()).toBe('2026-11-20T15:15:00.000Z');
		expect(q.asOfDate).toBe('2026-11-20');
		expect(q.columns).toEqual({ delta: true, gamma: true });
		expect(q.contracts).toHaveLength(8);
		const [call, put] = q.contracts;
		expect(call).toMatchObject({
			expiry: '2026-11-20',
			strike: 5800,
			isCall: true,
			iv: 0.1421,
			bid: 19.8,
			ask: 20.4,
			volume: 1204,
			openInterest: 12345,
			delta: 0.5512,
			line: 5
		});
		expect(put).toMatchObject({ isCall: false, volume: 934, openInterest: 10001, iv: 0.1502 });
		expect(q.contracts[7].line).toBe(8);
	});

	it('reads an older download (Vol / Open Int, no greeks) as of a holiday afternoon', () => {
		const q = parseCboeQuotes(OLDER);
		expect(q.symbol).toBe('SPY');
		expect(q.spot).toBe(581.2);
		// Thanksgiving 2026: NYSE is closed, the file still has a time; EST is UTC-5.
		expect(new Date(q.asOf).toISOString()).toBe('2026-11-26T18:05:00.000Z');
		expect(q.columns).toEqual({ delta: false, gamma: false });
		expect(q.contracts.map((c) => c.openInterest)).toEqual([15000, 9000, 500, 700]);
		expect(q.contracts.map((c) => c.volume)).toEqual([3100, 2000, 10, 20]);
		expect(Number.isNaN(q.contracts[0].delta)).toBe(true);
		// Calendar time from Thursday 13:05 to Friday 16:00 (27 h); perfiliev counts Thursday
		// itself as one weekday (no holiday list, as numpy.busday_count).
		expect(timeToExpiry(q, '2026-11-27', 'calendar')).toBeCloseTo((26 + 55 / 60) / 24 / 365, 12);
		expect(timeToExpiry(q, '2026-11-27', 'perfiliev')).toBe(1 / 262);
		expect(timeToExpiry(q, '2026-11-30', 'perfiliev')).toBe(2 / 262);
		expect(timeToExpiry(q, '2026-11-26', 'perfiliev')).toBe(1 / 262);
	});

	it('reads the as-of time in New York: EDT, EST, or by the rule when the zone is missing', () => {
		const at = (date: string) =>
			new Date(parseCboeQuotes(CURRENT.replace(/Date: [^"]+/, date)).asOf).toISOString();
		expect(at('Date: July 1, 2026 at 3:59 PM EDT')).toBe('2026-07-01T19:59:00.000Z');
		expect(at('Date: January 5, 2027 at 12:00 AM EST')).toBe('2027-01-05T05:00:00.000Z');
		expect(at('Date: March 15, 2027 at 9:30 AM')).toBe('2027-03-15T13:30:00.000Z');
		expect(at('Date: March 12, 2027 at 9:30 AM')).toBe('2027-03-12T14:30:00.000Z');
		expect(() => at('Date: February 30, 2027 at 9:30 AM EST')).toThrow(/not a real date/);
		expect(() => at('Date: March 3, 2027 at 13:30 PM EST')).toThrow(/not a time/);
	});

	it('skips and counts expired rows and IV 0 contracts, or solves them from the mid', () => {
		const q = parseCboeQuotes(CURRENT);
		const priced = priceQuoteChain(q, DEFAULT_CONVENTIONS);
		// The Nov 19 row (2 contracts) expired; the 5850 call has IV 0.
		expect(priced.skipped).toEqual({ total: 3, expired: 2, iv_zero: 1, unsolvable: 0 });
		expect(priced.chain.length).toBe(5);
		expect(priced.expiries).toEqual(['2026-11-20', '2026-12-18']);
		const perfiliev = priceQuoteChain(q, { ...DEFAULT_CONVENTIONS, preset: 'perfiliev' });
		expect(perfiliev.skipped.expired).toBe(2);
		// Same-day expiry counts 1/262.
		expect(perfiliev.chain.expiryYears[0]).toBe(1 / 262);
		const mid = priceQuoteChain(q, { ...DEFAULT_CONVENTIONS, ivFrom: 'mid' });
		expect(mid.skipped.iv_zero).toBe(0);
		expect(mid.skipped.expired).toBe(2);
		expect(mid.chain.length + mid.skipped.unsolvable).toBe(6);
		for (let i = 0; i < mid.chain.length; i++) expect(mid.chain.iv[i]).toBeGreaterThan(0);
	});

	it('reads files written in both header variants, with and without greeks, CRLF or LF', () => {
		const rows = [row('2026-11-20', 5800), row('2026-11-20', 5825, 0.14), row('2026-12-18', 5800)];
		for (const oldHeader of [false, true])
			for (const greeks of [false, true])
				for (const eol of ['\n', '\r\n'] as const) {
					const text = writeCboeFile({
						spot: SPOT,
						date: '2026-11-20',
						rows,
						oldHeader,
						greeks,
						eol
					});
					const q = parseCboeQuotes(text);
					expect(q.contracts).toHaveLength(6);
					expect(q.columns.delta).toBe(greeks);
					expect(q.contracts[1].openInterest).toBe(1235);
					expect(q.contracts[2].strike).toBe(5825);
				}
	});

	it('names the line of every problem and returns nothing partial', () => {
		const lines = CURRENT.split('\r\n');
		const withLine = (i: number, text: string) =>
			lines.map((l, k) => (k === i ? text : l)).join('\r\n');
		expect(parseError(withLine(5, lines[5].replace('800,0,', 'abc,0,'))).line).toBe(6);
		expect(parseError(withLine(5, lines[5].replace('Fri Nov 20', 'Sat Nov 20'))).message).toMatch(
			/line 6.*is a fri, not a Sat/
		);
		expect(parseError(withLine(6, lines[6].replace(',80,', ',-80,'))).message).toMatch(
			/line 7.*put Volume must be a non-negative number/
		);
		expect(parseError(withLine(4, lines[4].slice(0, 40))).message).toMatch(
			/line 5: expected 22 fields/
		);
		expect(parseError(withLine(2, 'Date: soon')).message).toMatch(
			/line 3.*Date: November 20, 2026/
		);
		expect(parseError(withLine(1, '"SPX","Last: n/a"')).line).toBe(2);
		expect(parseError(withLine(3, lines[3].replace('IV,Delta', 'Vola,Delta'))).message).toMatch(
			/line 4.*Calls side has no 'IV' column/
		);
		expect(parseError(lines.slice(0, 4).join('\r\n')).message).toMatch(/no option rows/);
		expect(parseError('{"spot": 1}').message).toMatch(/not a Cboe quote-data file/);
		expect(parseError(withLine(4, lines[4].replace('C0580', 'C"0580'))).message).toMatch(
			/line 5: a quote/
		);
	});

	it('never crashes: any text is a quote chain or a ChainParseError', () => {
		const header = CURRENT.split('\r\n').slice(0, 4).join('\r\n');
		const cell = fc.oneof(
			fc.constantFrom(
				'',
				'0',
				'1,234',
				'"1,234"',
				'0.15',
				'-1',
				'NaN',
				'1e400',
				'Fri Nov 20 2026',
				'"'
			),
			fc.string({ maxLength: 6 })
		);
		const line = fc.array(cell, { maxLength: 24 }).map((cs) => cs.join(','));
		const check = (text: string) => {
			try {
				const q = parseCboeQuotes(text);
				for (const c of q.contracts) {
					expect(c.strike).toBeGreaterThan(0);
					expect(c.openInterest).toBeGreaterThanOrEqual(0);
					expect(Number.isFinite(c.iv)).toBe(true);
				}
			} catch (e) {
				expect(e).toBeInstanceOf(ChainParseError);
			}
		};
		fc.assert(
			fc.property(fc.array(line, { maxLength: 6 }), fc.constantFrom('\n', '\r\n'), (ls, eol) =>
				check(header + eol + ls.join(eol))
			),
			{ numRuns: 400 }
		);
		fc.assert(fc.property(fc.string({ maxLength: 300 }), check), { numRuns: 400 });
		// Mutations of a valid file: any character replaced or dropped.
		fc.assert(
			fc.property(fc.nat(CURRENT.length - 1), fc.string({ maxLength: 2 }), (at, s) =>
				check(CURRENT.slice(0, at) + s + CURRENT.slice(at + 1))
			),
			{ numRuns: 600 }
		);
	});
});
