/**
 * One chain file of any supported format (JSON, the engine's CSV, a Cboe quote-data file) to the
 * `analyze` report: the per-strike exposures, zero gamma and majors of ./report plus the
 * conventions it was computed under, what was skipped and, on request, the G(X) profile. Format
 * detection lives here so the CLI and the browser import read files the same way.
 */
import { failParse as fail, parseChain, type ChainOverrides } from './parse';
import { looksLikeCboe, parseCboeQuotes, type QuoteChain } from './parseCboe';
import {
	DEFAULT_CONVENTIONS,
	describeConventions,
	priceQuoteChain,
	type ChainConventions,
	type ConventionPreset,
	type ConventionsReport,
	type IvSource,
	type PricedQuoteChain,
	type SkippedCounts
} from './quoteChain';
import { analyzeChain, type ChainReport } from './report';
import { gexProfile } from './zeroGamma';
import type { ChainArrays } from './chain';

export const CHAIN_FILE_FORMATS = ['json', 'csv', 'cboe'] as const;
export type ChainFileFormat = (typeof CHAIN_FILE_FORMATS)[number];

/** '{' starts JSON; an `Expiration Date,Calls,...` header near the top is Cboe; else CSV. */
export function detectChainFormat(text: string): ChainFileFormat {
	if (text.trimStart().startsWith('{')) return 'json';
	return looksLikeCboe(text) ? 'cboe' : 'csv';
}

export interface ChainFileOptions {
	format?: ChainFileFormat;
	/** Market values given outside the file; spot, rate, dividend yield, contract size. */
	overrides?: ChainOverrides;
	/** Cboe files only. */
	convention?: ConventionPreset;
	ivFrom?: IvSource;
	/** Points of the G(X) profile to include (none when 0 or omitted). */
	profilePoints?: number;
}

export interface ProfilePoint {
	spot: number;
	oi: number;
	vol: number;
}

export interface ChainFileReport extends ChainReport {
	format: ChainFileFormat;
	/** The underlying as the file names it (Cboe files). */
	underlying: { name: string; symbol: string } | null;
	conventions: ConventionsReport;
	skipped: SkippedCounts;
	profile?: ProfilePoint[];
}

/** A Cboe chain priced under conventions from the options (defaults: calendar, r = q = 0, file IV). */
export function priceCboe(quote: QuoteChain, options: ChainFileOptions = {}): PricedQuoteChain {
	const o = options.overrides ?? {};
	const conventions: ChainConventions = {
		preset: options.convention ?? DEFAULT_CONVENTIONS.preset,
		rate: o.rate ?? 0,
		dividendYield: o.dividendYield ?? 0,
		ivFrom: options.ivFrom ?? DEFAULT_CONVENTIONS.ivFrom
	};
	const q = o.spot !== undefined ? { ...quote, spot: o.spot } : quote;
	if (!(q.spot > 0) || !Number.isFinite(q.spot))
		fail(`must be a positive number, got ${q.spot}`, undefined, 'spot');
	const priced = priceQuoteChain(q, conventions);
	if (o.contractSize !== undefined) {
		if (!(o.contractSize > 0) || !Number.isFinite(o.contractSize))
			fail(`must be a positive number, got ${o.contractSize}`, undefined, 'contract_size');
		priced.chain.contractSize = o.contractSize;
		priced.conventions.contract_size = o.contractSize;
	}
	if (priced.chain.length === 0) {
		const s = priced.skipped;
		fail(
			`every contract was skipped (${s.expired} expired, ${s.iv_zero} with IV 0, ${s.unsolvable} unsolvable from the mid)`
		);
	}
	return priced;
}

export function profilePoints(chain: ChainArrays, points: number): ProfilePoint[] {
	const p = gexProfile(chain, { points });
	return Array.from(p.spots, (spot, j) => ({ spot, oi: p.oi[j], vol: p.vol[j] }));
}

/** Parses and analyses a chain file; throws ChainParseError (naming the line) on bad input. */
export function analyzeChainFile(text: string, options: ChainFileOptions = {}): ChainFileReport {
	const format = options.format ?? detectChainFormat(text);
	let chain: ChainArrays;
	let conventions: ConventionsReport;
	let skipped: SkippedCounts = { total: 0, expired: 0, iv_zero: 0, unsolvable: 0 };
	let underlying: ChainFileReport['underlying'] = null;
	if (format === 'cboe') {
		const quote = parseCboeQuotes(text);
		const priced = priceCboe(quote, options);
		chain = priced.chain;
		conventions = priced.conventions;
		skipped = priced.skipped;
		underlying = { name: quote.name, symbol: quote.symbol };
	} else {
		if (options.convention !== undefined || options.ivFrom !== undefined)
			fail('--convention and --iv-from apply to Cboe quote-data files only');
		const parsed = parseChain(text, options.overrides ?? {}, format);
		chain = parsed.chain;
		const m = parsed.market;
		conventions = {
			...describeConventions(
				{ ...DEFAULT_CONVENTIONS, rate: m.rate, dividendYield: m.dividendYield },
				null,
				m.contractSize
			),
			preset: 'calendar',
			time_to_expiry: 'expiry_years as given in the file',
			iv_source:
				parsed.solvedIv > 0 ? `file (${parsed.solvedIv} solved from the price column)` : 'file'
		};
	}
	const report: ChainFileReport = {
		format,
		underlying,
		...analyzeChain(chain),
		conventions,
		skipped
	};
	if (options.profilePoints) report.profile = profilePoints(chain, options.profilePoints);
	return report;
}
