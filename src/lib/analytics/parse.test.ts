import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { bsmPrice } from './bsm';
import { ChainParseError, parseChain, parseChainCsv, parseChainJson } from './parse';

const json = (contracts: unknown[], extra: Record<string, unknown> = {}) =>
	JSON.stringify(
		{ spot: 5000, rate: 0.05, dividend_yield: 0.013, contract_size: 100, contracts, ...extra },
		null,
		2
	);
const good = {
	expiry_years: 0.0192,
	strike: 4850,
	right: 'C',
	iv: 0.215,
	open_interest: 300,
	volume: 120
};

function parseError(fn: () => unknown): ChainParseError {
	try {
		fn();
	} catch (e) {
		expect(e).toBeInstanceOf(ChainParseError);
		return e as ChainParseError;
	}
	throw new Error('expected a ChainParseError');
}

describe('chain parser', () => {
	it('reads the documented JSON form', () => {
		const p = parseChain(json([good, { ...good, right: 'P', strike: 5100 }]));
		expect(p.market).toEqual({ spot: 5000, rate: 0.05, dividendYield: 0.013, contractSize: 100 });
		expect(p.chain.length).toBe(2);
		expect(p.contracts[1]).toEqual({
			expiryYears: 0.0192,
			strike: 5100,
			isCall: false,
			iv: 0.215,
			openInterest: 300,
			volume: 120
		});
	});

	it('reads CSV with market flags, columns in any order, comments and CRLF', () => {
		const csv =
			'# chain\r\nstrike,right,expiry_years,iv,volume,open_interest\r\n4850,C,0.0192,0.215,120,300\r\n\r\n4900,p,0.0192,0.2,1,2\r\n';
		const p = parseChain(csv, { spot: 5000, rate: 0.05, dividendYield: 0.013 });
		expect(p.contracts).toEqual([
			{
				expiryYears: 0.0192,
				strike: 4850,
				isCall: true,
				iv: 0.215,
				openInterest: 300,
				volume: 120
			},
			{ expiryYears: 0.0192, strike: 4900, isCall: false, iv: 0.2, openInterest: 2, volume: 1 }
		]);
		expect(p.market.contractSize).toBe(100);
	});

	it('solves IV from a price', () => {
		const price = bsmPrice(false, 5000, 4900, 0.1, 0.23, 0.05, 0.013);
		const p = parseChainJson(
			json([{ expiry_years: 0.1, strike: 4900, right: 'P', price, open_interest: 1, volume: 0 }])
		);
		expect(p.contracts[0].iv).toBeCloseTo(0.23, 12);
		expect(p.solvedIv).toBe(1);
		const csv = parseChainCsv(
			`expiry_years,strike,right,price,open_interest,volume\n0.1,4900,P,${price},1,0\n`,
			{ spot: 5000, rate: 0.05, dividendYield: 0.013 }
		);
		expect(csv.contracts[0].iv).toBeCloseTo(0.23, 12);
	});

	it('names the line or field of every problem', () => {
		expect(parseError(() => parseChain('{ "spot": 5000,\n "contracts": [ }')).line).toBe(2);
		expect(parseError(() => parseChain(json([{ ...good, open_interest: -1 }]))).field).toBe(
			'contracts[0].open_interest'
		);
		expect(parseError(() => parseChain(json([good], { spot: 0 }))).field).toBe('spot');
		expect(parseError(() => parseChain(json([{ ...good, strike: -5 }]))).message).toMatch(
			/contracts\[0\]\.strike/
		);
		expect(parseError(() => parseChain(json([{ ...good, colour: 'red' }]))).field).toBe(
			'contracts[0].colour'
		);
		expect(parseError(() => parseChain(json([good], { extra: 1 }))).field).toBe('extra');
		expect(parseError(() => parseChain(json([{ ...good, right: 'X' }]))).field).toBe(
			'contracts[0].right'
		);
		expect(parseError(() => parseChain(json([]))).field).toBe('contracts');
		const { iv: _iv, ...noIv } = good;
		expect(parseError(() => parseChain(json([noIv]))).message).toMatch(/iv or price/);
		const flags = { spot: 5000 };
		const head = 'expiry_years,strike,right,iv,open_interest,volume\n';
		const e1 = parseError(() =>
			parseChain(head + '0.1,4900,C,0.2,10,1\n0.1,abc,C,0.2,10,1\n', flags)
		);
		expect([e1.line, e1.field]).toEqual([3, 'strike']);
		expect(parseError(() => parseChain(head + '0.1,4900,C,0.2,10\n', flags)).line).toBe(2);
		const e2 = parseError(() =>
			parseChain('expiry_years,strike,right,iv,open_interest,volume,delta\n', flags)
		);
		expect([e2.line, e2.field]).toEqual([1, 'delta']);
		expect(parseError(() => parseChain(head + '0.1,4900,C,0.2,10,1\n')).field).toBe('spot');
		expect(parseError(() => parseChain(head + '0.1,4900,C,0.2,-10,1\n', flags)).field).toBe(
			'open_interest'
		);
		expect(parseError(() => parseChain(head + '0.1,0,C,0.2,10,1\n', flags)).field).toBe('strike');
		const e3 = parseError(() =>
			parseChain(
				'expiry_years,strike,right,price,open_interest,volume\n0.1,4900,C,6000,10,1\n',
				flags
			)
		);
		expect([e3.line, e3.field]).toEqual([2, 'price']);
		expect(parseError(() => parseChain('')).message).toMatch(/header/);
	});

	it('never throws anything but ChainParseError, and never returns a partial chain (property)', () => {
		const cell = fc.oneof(
			fc.constant(''),
			fc.string({ maxLength: 6 }),
			fc.double().map(String),
			fc.constantFrom('C', 'P', '-1', '0')
		);
		const row = fc.array(cell, { minLength: 5, maxLength: 7 }).map((cells) => cells.join(','));
		fc.assert(
			fc.property(fc.array(row, { maxLength: 6 }), fc.boolean(), (rows, withHeader) => {
				const text =
					(withHeader ? 'expiry_years,strike,right,iv,open_interest,volume\n' : '') +
					rows.join('\n');
				try {
					const p = parseChain(text, { spot: 100 });
					expect(p.chain.length).toBe(
						rows.filter((r) => r.trim() !== '' && !r.trim().startsWith('#')).length
					);
					for (const c of p.contracts) {
						expect(c.strike).toBeGreaterThan(0);
						expect(c.openInterest).toBeGreaterThanOrEqual(0);
					}
				} catch (e) {
					expect(e).toBeInstanceOf(ChainParseError);
				}
			}),
			{ numRuns: 500 }
		);
		fc.assert(
			fc.property(fc.json(), (text) => {
				try {
					parseChainJson(text);
				} catch (e) {
					expect(e).toBeInstanceOf(ChainParseError);
				}
			}),
			{ numRuns: 300 }
		);
	});
});

describe('jsonErrorOffset', () => {
	it('is -1 exactly for what JSON.parse accepts (property)', async () => {
		const { jsonErrorOffset } = await import('./jsonPosition');
		const mutated = fc
			.tuple(fc.json(), fc.nat(), fc.constantFrom('', '}', ',', '"', 'x', '\\', '['))
			.map(([t, at, ins]) => t.slice(0, at % (t.length + 1)) + ins + t.slice(at % (t.length + 1)));
		fc.assert(
			fc.property(fc.oneof(fc.json(), mutated), (text) => {
				let valid = true;
				try {
					JSON.parse(text);
				} catch {
					valid = false;
				}
				expect(jsonErrorOffset(text) === -1).toBe(valid);
			}),
			{ numRuns: 1000 }
		);
	});
});
