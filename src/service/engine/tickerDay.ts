/**
 * The engine state of one simulated chain for one session, advanced one second at a time.
 * Each step computes every contract's greeks once, lets the second's trades arrive (classified
 * by the quote and tick rules), and aggregates what every category needs per strike. Payload
 * values are built from that state on request (engine/categoryPayloads.ts), so the live loop builds all
 * of them and a history regeneration only the one asked for, from the very same numbers.
 */
import { etToUtc, sessionSeconds } from '../market/clock';
import { buildChain, type ChainDay } from '../market/chainDay';
import { sessionPath } from '../market/path';
import {
	buildSmile,
	contractVol,
	fillImpliedVols,
	sliceTerms,
	type SliceTerms,
	type SmileDay
} from '../market/smile';
import { TradeTape } from '../market/trades';
import { RISK_FREE_RATE } from '../market/universe';
import { ClassifiedFlows, classifyTrade } from '../../lib/analytics/classify';
import { createChainArrays, type ChainArrays, type Selection } from '../../lib/analytics/chain';
import { bsmGamma, bsmGreeks, emptyGreeks } from '../../lib/analytics/bsm';
import { computeGreeks, createGreekArrays, type GreekArrays } from '../../lib/analytics/greeks';
import { GammaKernel } from '../../lib/analytics/gammaKernel';
import { LaggedVolume } from './laggedVolume';
import { deriveLongLags } from './subsetLags';
import { LOOKBACK_DEPTH, SHORT_LAG_DEPTH } from './lookback';

const YEAR_MS = 365 * 86_400_000;
/** Time-to-expiry floor: a 0DTE contract at the close still has two minutes of gamma. */
const MIN_YEARS = 120_000 / YEAR_MS;
const CONTRACT_SIZE = 100;
const MILLION = 1e6;
/**
 * Zero-gamma roots to this many price units. Payloads round levels to cents, so a published level
 * can differ from the rounded exact root only when that root lies within this distance of a
 * half-cent boundary (about one level in 5,000, and then by one cent).
 */
const ROOT_TOLERANCE = 1e-6;

/** Years from `nowMs` to a settlement at `expiryMs`, floored (the step's and greeksAt's rule). */
function yearsToExpiry(expiryMs: number, nowMs: number): number {
	return Math.max((expiryMs - nowMs) / YEAR_MS, MIN_YEARS);
}

/**
 * The engine's zero gamma of a set of contracts: the root of the by-volume GEX profile nearest
 * spot, and only when there is none (the session has not traded enough yet) the by-OI root.
 */
export function zeroGammaRoots(
	kernel: GammaKernel,
	chain: ChainArrays,
	selection: Selection
): { vol: number | null; oi: number | null } {
	kernel.update(chain, { selection });
	const vol = kernel.nearestRoots(ROOT_TOLERANCE, undefined, 'vol').vol;
	const oi = vol === null ? kernel.nearestRoots(ROOT_TOLERANCE, undefined, 'oi').oi : null;
	return { vol, oi };
}

/** Greeks of a contract range at an earlier second (TickerDay.greeksAt), index c - start. */
export interface PastGreeks {
	tick: number;
	spot: number;
	iv: Float64Array;
	delta: Float64Array;
	gamma: Float64Array;
	vanna: Float64Array;
	charmPerDay: Float64Array;
}

import { GREEK_NAMES, makeSubset, type Flows, type Subset, type SubsetName } from './subset';

export { GREEK_NAMES, type Flows, type GreekName, type Subset, type SubsetName } from './subset';

/** What a step computes (TickerDay.step). */
export type StepMode = 'rings' | 'gamma' | 'front' | 'trades';

export class TickerDay {
	readonly seed: number;
	readonly ticker: string;
	readonly date: string;
	readonly chain: ChainDay;
	readonly smile: SmileDay;
	readonly path: Float64Array;
	readonly openMs: number;
	readonly years: Float64Array;
	readonly iv: Float64Array;
	readonly greeks: GreekArrays;
	/** The chain as the analytics engine reads it: strikes, times, IVs, OI and volume of now. */
	readonly arrays: ChainArrays;
	private readonly single = new Int32Array(1);
	private readonly frontContracts: Int32Array;
	readonly volume: Float64Array;
	/** Classified (Lee-Ready) buy / sell volume per contract, from the analytics engine's flows. */
	readonly buyVolume: Float64Array;
	readonly sellVolume: Float64Array;
	private readonly classified: ClassifiedFlows;
	private readonly tape: TradeTape;
	/** Every contract's volume 1 s to 30 min ago, for explicit-expiry priors (./laggedVolume). */
	readonly laggedVolume: LaggedVolume;
	readonly subsets: Record<SubsetName, Subset>;
	/** The close tick: 23,400, or 12,600 on an early-close day (13:00 ET). */
	readonly closeTick: number;
	/** Last computed tick (seconds since 09:30:00), -1 before the first step. */
	tick = -1;
	spot = 0;

	/**
	 * `lags`: how the zero / one sets read their 5- to 30-minute priors. 'derived' (the live loop:
	 * a minute of rings, longer lags recomputed from that second's greeks, ./subsetLags.ts) or
	 * 'rings' (a day generated second by second: 30-minute rings, about 10 MB more per chain, and
	 * none of the derivation's greeks, which were a quarter to a third of a history part's CPU).
	 * Both give the same values (subsetLags.test.ts).
	 */
	constructor(seed: number, ticker: string, date: string, lags: 'derived' | 'rings' = 'derived') {
		this.seed = seed;
		this.ticker = ticker;
		this.date = date;
		this.chain = buildChain(seed, ticker, date);
		this.smile = buildSmile(seed, this.chain);
		this.path = sessionPath(seed, ticker, date);
		this.closeTick = sessionSeconds(date);
		this.openMs = etToUtc(date, 9, 30);
		const n = this.chain.n;
		this.years = new Float64Array(n);
		this.iv = new Float64Array(n);
		this.greeks = createGreekArrays(n);
		this.volume = new Float64Array(n);
		// The analytics engine's view of the same arrays (spot is set every step).
		this.arrays = {
			...createChainArrays(0, {
				spot: this.chain.refSpot,
				rate: RISK_FREE_RATE,
				dividendYield: this.chain.model.dividendYield
			}),
			length: n,
			strike: this.chain.strike,
			expiryYears: this.years,
			iv: this.iv,
			isCall: this.chain.isCall,
			openInterest: this.chain.openInterest,
			volume: this.volume
		};
		this.classified = new ClassifiedFlows(n, CONTRACT_SIZE);
		this.buyVolume = this.classified.buyVolume;
		this.sellVolume = this.classified.sellVolume;
		this.tape = new TradeTape(seed, this.chain);
		this.laggedVolume = new LaggedVolume(n);
		const frontEnd = this.chain.expiryStart[Math.min(2, this.chain.expiries.length)];
		this.frontContracts = Int32Array.from({ length: frontEnd }, (_, i) => i);
		const e = this.chain.expiryStart;
		const nExp = this.chain.expiries.length;
		const depth = lags === 'rings' ? LOOKBACK_DEPTH : SHORT_LAG_DEPTH;
		this.subsets = {
			full: makeSubset(this.chain, 'full', 0, n, [...Array(nExp).keys()]),
			zero: makeSubset(this.chain, 'zero', e[0], e[Math.min(1, nExp)], nExp > 0 ? [0] : [], depth),
			one: makeSubset(
				this.chain,
				'one',
				e[Math.min(1, nExp)],
				e[Math.min(2, nExp)],
				nExp > 1 ? [1] : [],
				depth
			)
		};
		if (lags === 'derived') {
			deriveLongLags(this, this.subsets.zero);
			deriveLongLags(this, this.subsets.one);
		}
	}

	/** Unix seconds of a tick. */
	timestampOf(tick: number): number {
		return Math.round(this.openMs / 1000) + tick;
	}

	/**
	 * Advance to the next second of the session; returns false once past the close.
	 * - `rings` (default): every contract's IV and greeks, the second's trades, and the per-strike
	 *   aggregates and lookback rings every payload reads;
	 * - `gamma`: as `rings` for the GEX categories only: gamma of every contract (the analytics
	 *   engine's bsmGamma, the same arithmetic as its full greeks), every greek only for the two
	 *   front expiries and the contracts that print. History of a GEX category regenerates this way;
	 *   other categories' values are not valid after such a step;
	 * - `front`: as `gamma` without the gamma of every contract, and without the all-expiries set's
	 *   aggregates: for the zero / one sets' categories only (greek and volume profiles, orderflow,
	 *   their GEX chains), whose contracts are the two front expiries. History of those categories
	 *   regenerates this way (the live loop's values, tested in history/historyLags.test.ts);
	 * - `trades`: only the trades, pricing just the contracts that print. A day is fast-forwarded
	 *   this way up to 30 minutes before the first payload anyone needs; the state it leaves
	 *   (volumes, flows, tick-test memory) is bit-identical to the `rings` path.
	 */
	step(mode: StepMode = 'rings'): boolean {
		if (this.tick >= this.closeTick) return false;
		const tick = ++this.tick;
		const chain = this.chain;
		const spot = this.path[tick];
		this.spot = spot;
		this.zeroGammaTick = -1;
		const nowMs = this.openMs + tick * 1000;
		for (let e = 0; e < chain.expiries.length; e++) {
			const years = yearsToExpiry(chain.expiryMs[e], nowMs);
			for (let c = chain.expiryStart[e]; c < chain.expiryStart[e + 1]; c++) this.years[c] = years;
		}
		this.arrays.spot = spot;
		if (mode === 'rings') {
			fillImpliedVols(this.smile, chain, tick, spot, this.years, this.iv);
			computeGreeks(this.arrays, this.greeks);
			this.trade(tick, spot, undefined);
			for (const subset of Object.values(this.subsets)) this.aggregate(subset, spot);
		} else if (mode === 'gamma' || mode === 'front') {
			fillImpliedVols(this.smile, chain, tick, spot, this.years, this.iv);
			const { strike, expiryYears, iv, rate, dividendYield } = this.arrays;
			const gamma = this.greeks.gamma;
			if (mode === 'gamma')
				for (let c = 0; c < chain.n; c++)
					gamma[c] = bsmGamma(spot, strike[c], expiryYears[c], iv[c], rate, dividendYield);
			// Every greek where a GEX payload reads more than gamma: the front expiries (risk
			// reversal) and the contracts that print (quotes, flows).
			computeGreeks(this.arrays, this.greeks, this.frontContracts);
			this.trade(tick, spot, (c) => {
				this.single[0] = c;
				computeGreeks(this.arrays, this.greeks, this.single);
			});
			if (mode === 'gamma') this.aggregate(this.subsets.full, spot);
			this.aggregate(this.subsets.zero, spot);
			this.aggregate(this.subsets.one, spot);
		} else {
			this.sliceTick.fill(-1);
			this.trade(tick, spot, (c) => {
				const e = chain.expiry[c];
				if (this.sliceTick[e] !== tick) {
					this.slices[e] = sliceTerms(this.smile, chain, e, tick, spot, this.years[c]);
					this.sliceTick[e] = tick;
				}
				this.iv[c] = contractVol(this.smile, this.slices[e], c);
				this.single[0] = c;
				computeGreeks(this.arrays, this.greeks, this.single);
			});
		}
		this.laggedVolume.endTick(tick, this.volume);
		return true;
	}

	/**
	 * Greeks of contracts [start, end) as they were at an earlier second `tick` of this session,
	 * recomputed from the day's fixed inputs (spot path, smile, settlement times) with the step's
	 * own arithmetic (sliceTerms + contractVol, bsmGreeks as computeGreeks calls it), so they equal
	 * bit for bit what a step at that second computed. Pure: callable at any later time.
	 */
	greeksAt(tick: number, start: number, end: number): PastGreeks {
		const chain = this.chain;
		const spot = this.path[tick];
		const nowMs = this.openMs + tick * 1000;
		const n = end - start;
		const out: PastGreeks = {
			tick,
			spot,
			iv: new Float64Array(n),
			delta: new Float64Array(n),
			gamma: new Float64Array(n),
			vanna: new Float64Array(n),
			charmPerDay: new Float64Array(n)
		};
		const { rate, dividendYield } = this.arrays;
		const g = emptyGreeks();
		let e = -1;
		let years = 0;
		let terms: SliceTerms | undefined;
		for (let c = start; c < end; c++) {
			if (chain.expiry[c] !== e) {
				e = chain.expiry[c];
				years = yearsToExpiry(chain.expiryMs[e], nowMs);
				terms = sliceTerms(this.smile, chain, e, tick, spot, years);
			}
			const iv = contractVol(this.smile, terms as SliceTerms, c);
			bsmGreeks(chain.isCall[c] === 1, spot, chain.strike[c], years, iv, rate, dividendYield, g);
			const i = c - start;
			out.iv[i] = iv;
			out.delta[i] = g.delta;
			out.gamma[i] = g.gamma;
			out.vanna[i] = g.vanna;
			out.charmPerDay[i] = g.charmPerDay;
		}
		return out;
	}

	private readonly slices: SliceTerms[] = [];
	private readonly sliceTick = new Int32Array(256);
	private zeroGammaTick = -1;

	/**
	 * Zero gamma of a set at the current tick (computed on first use per tick: only payloads need
	 * it, and a history regeneration of a non-GEX category never does): the roots of the set's
	 * GEX profile nearest spot, by the analytics engine's GammaKernel on the day's own arrays.
	 * Cold every time (no warm start from an earlier second): the live loop computes only the
	 * seconds it publishes, a regeneration every second, and both must give the same bits.
	 */
	zeroGamma(subset: Subset): { vol: number | null; oi: number | null } {
		if (this.zeroGammaTick !== this.tick) {
			for (const s of Object.values(this.subsets)) s.zeroGammaReady = false;
			this.zeroGammaTick = this.tick;
		}
		if (!subset.zeroGammaReady) {
			const roots = zeroGammaRoots(subset.kernel, this.arrays, subset.selection);
			subset.zeroGammaVol = roots.vol;
			subset.zeroGammaOi = roots.oi;
			subset.zeroGammaReady = true;
		}
		return { vol: subset.zeroGammaVol, oi: subset.zeroGammaOi };
	}

	private trade(tick: number, spot: number, price: ((c: number) => void) | undefined): void {
		const back = this.path[Math.max(0, tick - 60)];
		const trend = Math.tanh((spot / back - 1) * 400);
		const prints = this.tape.next(tick, this.greeks.price, trend, price);
		const { delta, gamma } = this.greeks;
		const zero = this.subsets.zero;
		const one = this.subsets.one;
		const full = this.subsets.full.flows;
		for (const p of prints) {
			const c = p.contract;
			const call = this.chain.isCall[c] === 1;
			const side = classifyTrade(
				'lee-ready',
				p.price,
				p.quote.bid,
				p.quote.ask,
				this.classified.ticks[c]
			);
			this.volume[c] += p.size;
			this.laggedVolume.record(c, p.size);
			this.classified.record(c, side, p.size, call, delta[c], gamma[c], spot);
			if (side === 0) continue;
			const sign = call ? 1 : -1;
			const dex = (side * delta[c] * p.size * CONTRACT_SIZE * spot) / MILLION;
			const conv = (gamma[c] * p.size * CONTRACT_SIZE * spot * spot * 0.01) / MILLION;
			addFlow(full, dex, side * sign * conv, side * conv, conv);
			if (c >= zero.start && c < zero.end)
				addFlow(zero.flows, dex, side * sign * conv, side * conv, conv);
			else if (c >= one.start && c < one.end)
				addFlow(one.flows, dex, side * sign * conv, side * conv, conv);
		}
	}

	private aggregate(subset: Subset, spot: number): void {
		const chain = this.chain;
		const { gamma, delta, vanna, charmPerDay } = this.greeks;
		const gexUnit = (CONTRACT_SIZE * spot * spot * 0.01) / MILLION;
		const dexUnit = (CONTRACT_SIZE * spot) / MILLION;
		const vannaUnit = (CONTRACT_SIZE * spot * 0.01) / MILLION;
		subset.slotGexVol.fill(0);
		subset.slotGexOi.fill(0);
		let sumVol = 0;
		let sumOi = 0;
		const greekCall = subset.greekCall;
		const greekPut = subset.greekPut;
		if (greekCall && greekPut) {
			for (const g of GREEK_NAMES) {
				greekCall[g].fill(0);
				greekPut[g].fill(0);
			}
			for (const v of subset.volumeRows as Float64Array[]) v.fill(0);
		}
		for (let c = subset.start; c < subset.end; c++) {
			const slot = chain.strikeSlot[c];
			const call = chain.isCall[c] === 1;
			const sign = call ? 1 : -1;
			const vol = this.volume[c];
			const oi = chain.openInterest[c];
			const g = sign * gamma[c] * gexUnit;
			subset.slotGexVol[slot] += g * vol;
			subset.slotGexOi[slot] += g * oi;
			sumVol += g * vol;
			sumOi += g * oi;
			if (greekCall && greekPut) {
				const row = subset.rowOfSlot[slot];
				if (row < 0) continue;
				const target = call ? greekCall : greekPut;
				target.delta[row] += delta[c] * dexUnit * vol;
				target.gamma[row] += g * vol;
				target.vanna[row] += sign * vanna[c] * vannaUnit * vol;
				target.charm[row] += sign * charmPerDay[c] * dexUnit * vol;
				const rows = subset.volumeRows as Float64Array[];
				if (call) {
					(subset.callIv as Float64Array)[row] = this.iv[c];
					rows[0][row] += vol;
					rows[2][row] += this.buyVolume[c];
					rows[3][row] += this.sellVolume[c];
				} else {
					(subset.putIv as Float64Array)[row] = this.iv[c];
					rows[1][row] += vol;
					rows[4][row] += this.buyVolume[c];
					rows[5][row] += this.sellVolume[c];
				}
			}
		}
		subset.sumGexVol = sumVol;
		subset.sumGexOi = sumOi;
		for (let r = 0; r < subset.rowSlots.length; r++) {
			subset.gexVol[r] = subset.slotGexVol[subset.rowSlots[r]];
			subset.gexOi[r] = subset.slotGexOi[subset.rowSlots[r]];
		}
		subset.gexRing.push(this.tick, subset.gexVol);
		if (greekCall && greekPut) {
			for (const g of GREEK_NAMES) {
				subset.greekCallRing?.[g].push(this.tick, greekCall[g]);
				subset.greekPutRing?.[g].push(this.tick, greekPut[g]);
			}
		}
	}
}

function addFlow(f: Flows, dex: number, gex: number, cvr: number, cvrAbs: number): void {
	f.dex += dex;
	f.gex += gex;
	f.cvr += cvr;
	f.cvrAbs += cvrAbs;
}
