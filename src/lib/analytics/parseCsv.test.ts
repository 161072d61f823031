import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CsvSyntaxError, readCsvRecords, writeCsv } from './parseCsv';
import { ChainParseError, parseChain } from './parse';

const cellsOf = (text: string) => readCsvRecords(text).map((r) => r.cells);

/** The error `fn` throws, checked to be an instance of `kind`. */
function thrown<E extends Error>(fn: () => unknown, kind: new (...args: never[]) => E): E {
	let caught: unknown;
	try {
		fn();
	} catch (e) {
		caught = e;
	}
	expect(caught).toBeInstanceOf(kind);
	return caught as E;
}

const syntaxError = (text: string) => thrown(() => readCsvRecords(text), CsvSyntaxError);

describe('RFC 4180 records', () => {
	it('reads quoted commas, doubled quotes, line breaks in quotes and CRLF', () => {
		const text = 'a,"b,c","say ""hi"""\r\n"two\r\nlines",x,\r\n"",y,"z"\n';
		expect(cellsOf(text)).toEqual([
			['a', 'b,c', 'say "hi"'],
			['two\r\nlines', 'x', ''],
			['', 'y', 'z']
		]);
		// A record spanning lines starts on its first line; the next one is counted after it.
		expect(readCsvRecords(text).map((r) => r.line)).toEqual([1, 2, 4]);
	});

	it('ends the last record at a final line break, keeps blank lines as blank records', () => {
		expect(cellsOf('')).toEqual([]);
		expect(cellsOf('a\n')).toEqual([['a']]);
		expect(cellsOf('a\n\nb')).toEqual([['a'], [''], ['b']]);
		expect(readCsvRecords('a\n  \n""').map((r) => r.blank)).toEqual([false, true, false]);
		expect(cellsOf('a,')).toEqual([['a', '']]);
	});

	it('skips comment lines only outside quotes', () => {
		const records = readCsvRecords('# note "unbalanced\na,"\n# not a comment"\n', { comment: '#' });
		expect(records.map((r) => [r.cells, r.line])).toEqual([[['a', '\n# not a comment'], 2]]);
	});

	it('ignores blanks around a quoted field, not inside it', () => {
		expect(cellsOf(' "a b" ,  c ')).toEqual([['a b', '  c ']]);
	});

	it('names the line of an unterminated quote and of stray quotes', () => {
		const open = syntaxError('a,b\nc,"d\ne,f\n');
		expect(open.line).toBe(2);
		expect(open.message).toMatch(/unterminated quoted field.*line 2/);
		expect(syntaxError('a\n"b"c,d').line).toBe(2);
		expect(syntaxError('a\nb\nc"d').message).toMatch(/quote inside an unquoted field/);
		expect(syntaxError('a\nb\nc"d').line).toBe(3);
		expect(syntaxError('"x\ny"z').line).toBe(2);
	});

	it('any table of strings written with proper quoting reads back to the same cells (property)', () => {
		const char = fc.constantFrom(
			'a',
			'Z',
			'0',
			' ',
			'\t',
			',',
			'"',
			'\r',
			'\n',
			'#',
			'é',
			'\u2028'
		);
		const cell = fc.oneof(
			fc.string({ maxLength: 8 }),
			fc.array(char, { maxLength: 8 }).map((cs) => cs.join(''))
		);
		const table = fc.array(fc.array(cell, { minLength: 1, maxLength: 5 }), { maxLength: 6 });
		fc.assert(
			fc.property(table, fc.constantFrom('\r\n', '\n'), fc.boolean(), (rows, eol, trailing) => {
				const text = writeCsv(rows, eol) + (trailing && rows.length > 0 ? eol : '');
				expect(cellsOf(text)).toEqual(rows);
			}),
			{ numRuns: 1000 }
		);
	});
});

describe('chain CSV with quoting', () => {
	const flags = { spot: 5000, rate: 0.05, dividendYield: 0.013 };

	it('reads quoted cells and CRLF like plain ones', () => {
		const plain = parseChain(
			'expiry_years,strike,right,iv,open_interest,volume\n0.1,4900,C,0.2,10,1\n',
			flags
		);
		const quoted = parseChain(
			'"expiry_years","strike","right","iv","open_interest","volume"\r\n"0.1", "4900" ,"C",0.2,"10",1\r\n',
			flags
		);
		expect(quoted.contracts).toEqual(plain.contracts);
	});

	it('reports the starting line of a record that spans lines and a wrong field count', () => {
		const text =
			'expiry_years,strike,right,iv,open_interest,volume\n0.1,4900,"C\nP",0.2,10,1\n0.1,4950,C,0.2,1,1\n';
		const e = thrown(() => parseChain(text, flags), ChainParseError);
		expect([e.line, e.field]).toEqual([2, 'right']);
		const short = 'expiry_years,strike,right,iv,open_interest,volume\n"0.1,4900",C,0.2,10,1\n';
		expect(() => parseChain(short, flags)).toThrow(/line 2: expected 6 fields, got 5/);
	});

	it('turns a quoting mistake into a ChainParseError naming the line', () => {
		const text =
			'expiry_years,strike,right,iv,open_interest,volume\n0.1,4900,C,0.2,10,1\n0.1,"4950,C\n';
		const e = thrown(() => parseChain(text, flags), ChainParseError);
		expect(e.line).toBe(3);
		expect(e.message).toMatch(/^line 3: unterminated quoted field/);
	});
});
