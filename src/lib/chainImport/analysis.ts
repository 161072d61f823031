/**
 * Everything the /chain page draws from an imported chain, computed in one pass with the
 * analytics library: exposures by strike (calls and puts apart), zero gamma and majors, the G(X)
 * profile over [0.8 S, 1.2 S] for the whole chain and without the next expiry and the next
 * monthly expiry (each with its own flip), the IV smile per expiry and the IV surface grid.
 * Pure: the worker runs it, unit tests call it directly. Typed arrays throughout, so the answer
 * crosses to the page as a structured clone without per-strike objects.
 */
import {
	computeExposures,
	computeGreeks,
	DEFAULT_CONVENTIONS,
	describeConventions,
	detectChainFormat,
	excludingExpiry,
	expiryBuckets,
	gexProfile,
	majorStrikes,
	nextMonthlyExpiry,
	parseCboeQuotes,
	parseChain,
	priceCboe,
	strikeLadder,
	zeroGamma,
	type ChainArrays,
	type ChainConventions,
	type ChainFileFormat,
	type ConventionsReport,
	type ExposureMeasure,
	type PricedQuoteChain,
	type QuoteChain,
	type SideValues,
	type SkippedCounts,
	type StrikeLadder,
	type Weighting
} from '../analytics';

/** Points of every G(X) curve. */
export const PROFILE_POINTS = 200;
export const WINDOW: [number, number] = [0.8, 1.2];

export type CurveId = 'all' | 'exNext' | 'exMonthly';

export interface ProfileCurve {
	id: CurveId;
	/** Expiry left out (`YYYY-MM-DD`, or a `7.0d` label for files without dates). */
	excluded: string | null;
	oi: Float64Array;
	vol: Float64Array;
	/**
	 * The flip nearest spot; the roots are every sign change in the window for the whole chain,
	 * and those refined on the way to the nearest for the curves without an expiry.
	 */
	zeroOi: number | null;
	zeroVol: number | null;
	rootsOi: number[];
	rootsVol: number[];
}

export interface SmileSlice {
	expiry: string;
	/** Calendar days from the as-of date (or the file's expiry_years x 365). */
	dte: number;
	strikes: Float64Array;
	/** NaN where that side was skipped or is not listed. */
	callIv: Float64Array;
	putIv: Float64Array;
}

export interface ChainModel {
	format: ChainFileFormat;
	name: string;
	/** Underlying symbol from the file (Cboe), null when the file does not say. */
	symbol: string | null;
	spot: number;
	asOf: string | null;
	contracts: number;
	conventions: ConventionsReport;
	skipped: SkippedCounts;
	/** Whether the file's conventions can be changed (Cboe) or are the file's own (JSON, CSV). */
	adjustable: boolean;
	strikes: Float64Array;
	exposures: Record<ExposureMeasure, Record<Weighting, SideValues>>;
	totals: Record<ExposureMeasure, Record<Weighting, { call: number; put: number; net: number }>>;
	zeroGamma: { oi: number | null; vol: number | null };
	majors: {
		posOi: number | null;
		negOi: number | null;
		posVol: number | null;
		negVol: number | null;
	};
	profile: { spots: Float64Array; curves: ProfileCurve[] };
	smile: SmileSlice[];
	/** Expiries x strikes of the out-of-the-money IV (NaN = none), strikes within the window. */
	surface: { strikes: Float64Array; expiries: string[]; dte: Float64Array; iv: Float64Array };
}

/** A parsed file, kept by the worker so a change of conventions does not parse again. */
export type ParsedFile =
	{ format: 'cboe'; quote: QuoteChain } | { format: 'json' | 'csv'; text: string };

export function parseFile(text: string): ParsedFile {
	const format = detectChainFormat(text);
	if (format === 'cboe') return { format, quote: parseCboeQuotes(text) };
	// JSON / CSV are checked now (a bad file fails at once) and priced per analysis.
	parseChain(text, {}, format);
	return { format, text };
}

/** Expiry grouping of a JSON / CSV chain (no dates): labelled by days to expiry. */
function pricedFromArrays(chain: ChainArrays, conventions: ConventionsReport): PricedQuoteChain {
	const buckets = expiryBuckets(chain);
	const expiryIndex = new Int32Array(chain.length);
	buckets.indices.forEach((idx, k) => idx.forEach((i) => (expiryIndex[i] = k)));
	return {
		chain,
		expiries: Array.from(buckets.expiries, (t) => `${(t * 365).toFixed(1)}d`),
		expiryIndex,
		skipped: { total: 0, expired: 0, iv_zero: 0, unsolvable: 0 },
		conventions
	};
}

const WINDOW_OPTIONS = { lower: WINDOW[0], upper: WINDOW[1] };

/** The whole chain's G(X) on the profile grid with every zero in the window (exact roots). */
function wholeCurve(chain: ChainArrays): ProfileCurve & { spots: Float64Array } {
	const p = gexProfile(chain, { ...WINDOW_OPTIONS, points: PROFILE_POINTS });
	const z = zeroGamma(chain, WINDOW_OPTIONS);
	return {
		spots: p.spots,
		id: 'all',
		excluded: null,
		oi: p.oi,
		vol: p.vol,
		zeroOi: z.oi,
		zeroVol: z.vol,
		rootsOi: z.rootsOi,
		rootsVol: z.rootsVol
	};
}

/**
 * G(X) without one expiry: the whole curve minus that expiry's own (G is a sum over contracts,
 * and one expiry is a few hundred of them, so this costs a fraction of a second full profile);
 * the flip nearest spot is solved exactly on the remaining contracts.
 */
function curveWithout(
	chain: ChainArrays,
	priced: PricedQuoteChain,
	whole: ProfileCurve,
	id: CurveId,
	expiry: string
): ProfileCurve {
	const k = priced.expiries.indexOf(expiry);
	const only: number[] = [];
	for (let i = 0; i < chain.length; i++) if (priced.expiryIndex[i] === k) only.push(i);
	const part = gexProfile(chain, {
		...WINDOW_OPTIONS,
		selection: Int32Array.from(only),
		points: PROFILE_POINTS
	});
	const oi = new Float64Array(PROFILE_POINTS);
	const vol = new Float64Array(PROFILE_POINTS);
	for (let j = 0; j < PROFILE_POINTS; j++) {
		oi[j] = whole.oi[j] - part.oi[j];
		vol[j] = whole.vol[j] - part.vol[j];
	}
	const z = zeroGamma(chain, {
		...WINDOW_OPTIONS,
		selection: excludingExpiry(priced, expiry),
		nearestOnly: true
	});
	return {
		id,
		excluded: expiry,
		oi,
		vol,
		zeroOi: z.oi,
		zeroVol: z.vol,
		rootsOi: z.rootsOi,
		rootsVol: z.rootsVol
	};
}

export function analyzeParsed(file: ParsedFile, conventions: ChainConventions): ChainModel {
	let priced: PricedQuoteChain;
	let name: string;
	let symbol: string | null = null;
	let dteOf: (k: number) => number;
	if (file.format === 'cboe') {
		const q = file.quote;
		priced = priceCboe(q, {
			convention: conventions.preset,
			ivFrom: conventions.ivFrom,
			overrides: { rate: conventions.rate, dividendYield: conventions.dividendYield }
		});
		name = q.name;
		symbol = q.symbol || null;
		const base = Date.parse(`${q.asOfDate}T00:00:00Z`);
		dteOf = (k) => (Date.parse(`${priced.expiries[k]}T00:00:00Z`) - base) / 86_400_000;
	} else {
		const parsed = parseChain(file.text, {}, file.format);
		const m = parsed.market;
		const report = {
			...describeConventions(
				{ ...DEFAULT_CONVENTIONS, rate: m.rate, dividendYield: m.dividendYield },
				null,
				m.contractSize
			),
			time_to_expiry: 'expiry_years as given in the file',
			iv_source: parsed.solvedIv > 0 ? `file (${parsed.solvedIv} solved from price)` : 'file'
		};
		priced = pricedFromArrays(parsed.chain, report);
		name = file.format === 'json' ? 'JSON chain' : 'CSV chain';
		const years = expiryBuckets(parsed.chain).expiries;
		dteOf = (k) => years[k] * 365;
	}
	const chain = priced.chain;
	const ladder = strikeLadder(chain);
	const x = computeExposures(chain, computeGreeks(chain), { ladder });
	const byOi = majorStrikes(x.strikes, x.gex.oi.net, chain.spot);
	const byVol = majorStrikes(x.strikes, x.gex.vol.net, chain.spot);

	const nextExpiry = priced.expiries[0] ?? null;
	const monthly = file.format === 'cboe' ? nextMonthlyExpiry(priced.expiries) : null;
	const { spots, ...all } = wholeCurve(chain);
	const curves: ProfileCurve[] = [all];
	if (priced.expiries.length > 1 && nextExpiry !== null)
		curves.push(curveWithout(chain, priced, all, 'exNext', nextExpiry));
	if (priced.expiries.length > 1 && monthly !== null)
		curves.push(curveWithout(chain, priced, all, 'exMonthly', monthly));

	return {
		format: file.format,
		name,
		symbol,
		spot: chain.spot,
		asOf: priced.conventions.as_of,
		contracts: chain.length,
		conventions: priced.conventions,
		skipped: priced.skipped,
		adjustable: file.format === 'cboe',
		strikes: x.strikes,
		exposures: { gex: x.gex, dex: x.dex, vanna: x.vanna, charm: x.charm },
		totals: x.totals,
		zeroGamma: { oi: all.zeroOi, vol: all.zeroVol },
		majors: {
			posOi: byOi.positive,
			negOi: byOi.negative,
			posVol: byVol.positive,
			negVol: byVol.negative
		},
		profile: { spots, curves },
		...smileAndSurface(priced, ladder, dteOf)
	};
}

/** Per-expiry smiles and the OTM IV grid (puts below spot, calls above; the other side else). */
function smileAndSurface(
	priced: PricedQuoteChain,
	ladder: StrikeLadder,
	dteOf: (k: number) => number
): Pick<ChainModel, 'smile' | 'surface'> {
	const { chain, expiries, expiryIndex } = priced;
	const ladderStrikes = ladder.strikes;
	const E = expiries.length;
	const L = ladderStrikes.length;
	const call = new Float64Array(E * L).fill(NaN);
	const put = new Float64Array(E * L).fill(NaN);
	for (let i = 0; i < chain.length; i++) {
		const cell = expiryIndex[i] * L + ladder.index[i];
		(chain.isCall[i] === 1 ? call : put)[cell] = chain.iv[i];
	}
	const smile: SmileSlice[] = [];
	for (let e = 0; e < E; e++) {
		const ks: number[] = [];
		const c: number[] = [];
		const p: number[] = [];
		for (let k = 0; k < L; k++) {
			const a = call[e * L + k];
			const b = put[e * L + k];
			if (Number.isNaN(a) && Number.isNaN(b)) continue;
			ks.push(ladderStrikes[k]);
			c.push(a);
			p.push(b);
		}
		smile.push({
			expiry: expiries[e],
			dte: dteOf(e),
			strikes: Float64Array.from(ks),
			callIv: Float64Array.from(c),
			putIv: Float64Array.from(p)
		});
	}
	const lo = chain.spot * WINDOW[0];
	const hi = chain.spot * WINDOW[1];
	const cols: number[] = [];
	for (let k = 0; k < L; k++) if (ladderStrikes[k] >= lo && ladderStrikes[k] <= hi) cols.push(k);
	const iv = new Float64Array(E * cols.length).fill(NaN);
	for (let e = 0; e < E; e++)
		cols.forEach((k, j) => {
			const otm = ladderStrikes[k] < chain.spot ? put : call;
			const other = otm === put ? call : put;
			const v = otm[e * L + k];
			iv[e * cols.length + j] = Number.isNaN(v) ? other[e * L + k] : v;
		});
	return {
		smile,
		surface: {
			strikes: Float64Array.from(cols, (k) => ladderStrikes[k]),
			expiries: [...expiries],
			dte: Float64Array.from(expiries, (_, e) => dteOf(e)),
			iv
		}
	};
}
