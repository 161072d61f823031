/**
 * Chain files: JSON ({spot, rate, dividend_yield, contract_size, contracts: [...]}) or CSV with
 * the header `expiry_years,strike,right,iv,open_interest,volume` (any order; `price` may replace
 * or accompany `iv`; RFC 4180 quoting, see ./parseCsv) and the market given as flags. A contract
 * with a price instead of an IV gets its IV solved. Every problem is a ChainParseError naming the
 * line and/or field; nothing is returned unless the whole file is valid. Used by the `analyze`
 * CLI and the dashboard's import.
 */
import {
	chainArraysFromContracts,
	DEFAULT_CONTRACT_SIZE,
	type ChainArrays,
	type ChainMarket,
	type OptionContract
} from './chain';
import { impliedVol } from './iv';
import { jsonErrorOffset } from './jsonPosition';
import { CsvSyntaxError, readCsvRecords, type CsvRecord } from './parseCsv';

export class ChainParseError extends Error {
	constructor(
		message: string,
		/** 1-based line in the file, when known. */
		readonly line?: number,
		/** Field (CSV column or JSON path), when known. */
		readonly field?: string
	) {
		super(message);
		this.name = 'ChainParseError';
	}
}

/** Market values given outside the file (command-line flags, a form); they override the file. */
export interface ChainOverrides {
	spot?: number;
	rate?: number;
	dividendYield?: number;
	contractSize?: number;
}

export interface ParsedChain {
	market: ChainMarket;
	contracts: OptionContract[];
	chain: ChainArrays;
	/** Contracts whose IV was solved from a price. */
	solvedIv: number;
}

export type ChainFormat = 'json' | 'csv';

const CONTRACT_FIELDS = [
	'expiry_years',
	'strike',
	'right',
	'iv',
	'price',
	'open_interest',
	'volume'
] as const;
const TOP_FIELDS = ['spot', 'rate', 'dividend_yield', 'contract_size', 'contracts'] as const;

/** Parses a chain file's text; the format is sniffed ('{' starts JSON) unless given. */
export function parseChain(
	text: string,
	overrides: ChainOverrides = {},
	format?: ChainFormat
): ParsedChain {
	const kind = format ?? (text.trimStart().startsWith('{') ? 'json' : 'csv');
	return kind === 'json' ? parseChainJson(text, overrides) : parseChainCsv(text, overrides);
}

function fail(message: string, line?: number, field?: string): never {
	const where = [line !== undefined ? `line ${line}` : '', field ?? ''].filter(Boolean).join(', ');
	throw new ChainParseError(where ? `${where}: ${message}` : message, line, field);
}
/** Throws the ChainParseError `line N, field: message` (for the other chain formats' parsers). */
export { fail as failParse };

interface RawContract {
	expiryYears: number;
	strike: number;
	right: string;
	iv?: number;
	price?: number;
	openInterest: number;
	volume: number;
	line?: number;
	path: string;
}

function resolveMarket(
	file: { spot?: number; rate?: number; dividendYield?: number; contractSize?: number },
	overrides: ChainOverrides
): ChainMarket {
	const spot = overrides.spot ?? file.spot;
	const rate = overrides.rate ?? file.rate ?? 0;
	const dividendYield = overrides.dividendYield ?? file.dividendYield ?? 0;
	const contractSize = overrides.contractSize ?? file.contractSize ?? DEFAULT_CONTRACT_SIZE;
	if (spot === undefined) fail('missing (give it in the file or with --spot)', undefined, 'spot');
	if (!Number.isFinite(spot) || !(spot > 0))
		fail(`must be a positive number, got ${spot}`, undefined, 'spot');
	if (!Number.isFinite(rate)) fail(`must be a finite number, got ${rate}`, undefined, 'rate');
	if (!Number.isFinite(dividendYield))
		fail(`must be a finite number, got ${dividendYield}`, undefined, 'dividend_yield');
	if (!Number.isFinite(contractSize) || !(contractSize > 0))
		fail(`must be a positive number, got ${contractSize}`, undefined, 'contract_size');
	return { spot, rate, dividendYield, contractSize };
}

function finish(market: ChainMarket, raws: RawContract[]): ParsedChain {
	if (raws.length === 0) fail('the chain has no contracts', undefined, 'contracts');
	let solvedIv = 0;
	const contracts = raws.map((c): OptionContract => {
		const field = (name: string) => (c.line !== undefined ? name : `${c.path}.${name}`);
		const right = c.right.trim().toUpperCase();
		const isCall = right === 'C' || right === 'CALL';
		if (!isCall && right !== 'P' && right !== 'PUT')
			fail(`right must be C or P, got '${c.right}'`, c.line, field('right'));
		if (!Number.isFinite(c.expiryYears) || c.expiryYears < 0)
			fail(`must be a non-negative number, got ${c.expiryYears}`, c.line, field('expiry_years'));
		if (!Number.isFinite(c.strike) || !(c.strike > 0))
			fail(`must be a positive number, got ${c.strike}`, c.line, field('strike'));
		if (!Number.isFinite(c.openInterest) || c.openInterest < 0)
			fail(`must be a non-negative number, got ${c.openInterest}`, c.line, field('open_interest'));
		if (!Number.isFinite(c.volume) || c.volume < 0)
			fail(`must be a non-negative number, got ${c.volume}`, c.line, field('volume'));
		let iv = c.iv;
		if (iv !== undefined) {
			if (!Number.isFinite(iv) || iv < 0)
				fail(`must be a non-negative number, got ${iv}`, c.line, field('iv'));
		} else if (c.price !== undefined) {
			if (!Number.isFinite(c.price) || c.price < 0)
				fail(`must be a non-negative number, got ${c.price}`, c.line, field('price'));
			if (!(c.expiryYears > 0))
				fail('an IV cannot be solved for an expired contract', c.line, field('price'));
			try {
				iv = impliedVol(
					c.price,
					isCall,
					market.spot,
					c.strike,
					c.expiryYears,
					market.rate,
					market.dividendYield
				);
			} catch (e) {
				fail((e as Error).message, c.line, field('price'));
			}
			solvedIv++;
		} else {
			fail('needs iv or price', c.line, c.line !== undefined ? 'iv' : c.path);
		}
		return {
			expiryYears: c.expiryYears,
			strike: c.strike,
			isCall,
			iv,
			openInterest: c.openInterest,
			volume: c.volume
		};
	});
	return { market, contracts, chain: chainArraysFromContracts(market, contracts), solvedIv };
}

/** 1-based line of a character offset. */
function lineOf(text: string, offset: number): number {
	let line = 1;
	for (let i = 0; i < offset && i < text.length; i++) if (text.charCodeAt(i) === 10) line++;
	return line;
}

export function parseChainJson(text: string, overrides: ChainOverrides = {}): ParsedChain {
	let doc: unknown;
	try {
		doc = JSON.parse(text);
	} catch (e) {
		const offset = jsonErrorOffset(text);
		fail(
			`malformed JSON (${(e as Error).message})`,
			offset >= 0 ? lineOf(text, offset) : undefined
		);
	}
	if (typeof doc !== 'object' || doc === null || Array.isArray(doc))
		fail('the file must be a JSON object');
	const top = doc as Record<string, unknown>;
	for (const key of Object.keys(top))
		if (!(TOP_FIELDS as readonly string[]).includes(key))
			fail(`unknown field (expected ${TOP_FIELDS.join(', ')})`, undefined, key);
	const num = (v: unknown, field: string): number | undefined => {
		if (v === undefined) return undefined;
		if (typeof v !== 'number') fail(`must be a number, got ${JSON.stringify(v)}`, undefined, field);
		return v;
	};
	const market = resolveMarket(
		{
			spot: num(top.spot, 'spot'),
			rate: num(top.rate, 'rate'),
			dividendYield: num(top.dividend_yield, 'dividend_yield'),
			contractSize: num(top.contract_size, 'contract_size')
		},
		overrides
	);
	if (!Array.isArray(top.contracts)) fail('must be an array of contracts', undefined, 'contracts');
	const raws = top.contracts.map((item: unknown, i): RawContract => {
		const path = `contracts[${i}]`;
		if (typeof item !== 'object' || item === null || Array.isArray(item))
			fail('must be an object', undefined, path);
		const c = item as Record<string, unknown>;
		for (const key of Object.keys(c))
			if (!(CONTRACT_FIELDS as readonly string[]).includes(key))
				fail(`unknown field (expected ${CONTRACT_FIELDS.join(', ')})`, undefined, `${path}.${key}`);
		const need = (key: string): number => {
			const v = c[key];
			if (v === undefined) fail('missing', undefined, `${path}.${key}`);
			if (typeof v !== 'number')
				fail(`must be a number, got ${JSON.stringify(v)}`, undefined, `${path}.${key}`);
			return v;
		};
		const opt = (key: string): number | undefined =>
			c[key] === undefined || c[key] === null ? undefined : need(key);
		if (typeof c.right !== 'string') fail('must be "C" or "P"', undefined, `${path}.right`);
		return {
			expiryYears: need('expiry_years'),
			strike: need('strike'),
			right: c.right,
			iv: opt('iv'),
			price: opt('price'),
			openInterest: need('open_interest'),
			volume: need('volume'),
			path
		};
	});
	return finish(market, raws);
}

const NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

export function parseChainCsv(text: string, overrides: ChainOverrides = {}): ParsedChain {
	let records: CsvRecord[];
	try {
		records = readCsvRecords(text, { comment: '#' }).filter((r) => !r.blank);
	} catch (e) {
		if (e instanceof CsvSyntaxError) fail(e.message, e.line);
		throw e;
	}
	const head = records[0];
	if (!head)
		fail('empty file: expected a header row expiry_years,strike,right,iv,open_interest,volume');
	const header = head.cells.map((h) => h.trim().toLowerCase());
	const col = new Map<string, number>();
	header.forEach((name, i) => {
		if (!(CONTRACT_FIELDS as readonly string[]).includes(name))
			fail(`unknown column '${name}' (expected ${CONTRACT_FIELDS.join(', ')})`, head.line, name);
		if (col.has(name)) fail(`duplicate column '${name}'`, head.line, name);
		col.set(name, i);
	});
	for (const name of ['expiry_years', 'strike', 'right', 'open_interest', 'volume'])
		if (!col.has(name)) fail(`missing column '${name}'`, head.line, name);
	if (!col.has('iv') && !col.has('price'))
		fail("needs an 'iv' or a 'price' column", head.line, 'iv');
	const market = resolveMarket({}, overrides);
	const raws: RawContract[] = [];
	for (const record of records.slice(1)) {
		const line = record.line;
		const cells = record.cells.map((c) => c.trim());
		if (cells.length !== header.length)
			fail(`expected ${header.length} fields, got ${cells.length}`, line);
		const cell = (name: string) => cells[col.get(name) ?? -1];
		const num = (name: string, optional = false): number | undefined => {
			const raw = col.has(name) ? cell(name) : '';
			if (raw === '') {
				if (optional) return undefined;
				fail('missing value', line, name);
			}
			if (!NUMBER.test(raw)) fail(`'${raw}' is not a number`, line, name);
			return Number(raw);
		};
		raws.push({
			expiryYears: num('expiry_years') as number,
			strike: num('strike') as number,
			right: cell('right'),
			iv: num('iv', true),
			price: num('price', true),
			openInterest: num('open_interest') as number,
			volume: num('volume') as number,
			line,
			path: `line ${line}`
		});
	}
	return finish(market, raws);
}
