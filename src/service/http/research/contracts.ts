/**
 * Per-contract research records of one chain: implied vol solved from the bid, ask and mid
 * quotes with the analytics engine, the greeks at each, and the smile slope used by skew
 * adjustment. A chain changes only at its 15-minute floor, so the records are kept per
 * (ticker, chain timestamp) and every request of that window reuses them.
 */
import type { ResearchChain } from '../../source';
import { solveImpliedVol } from './researchIv';
import { fullGreeks, type FullGreeks } from './researchGreeks';
import type { Side } from './metrics';

export interface ContractRecord {
	expiry: string;
	/** Calendar days to expiry (0 on expiration day). */
	dte: number;
	t: number;
	strike: number;
	isCall: boolean;
	bid: number;
	ask: number;
	mid: number;
	openInterest: number;
	volume: number;
	iv: Record<Side, number | null>;
	greeks: Record<Side, FullGreeks | null>;
	/** dIV/dStrike of the expiry's out-of-the-money smile at this strike (mid IVs). */
	smileSlope: number;
}

export interface ChainRecords {
	chain: ResearchChain;
	records: ContractRecord[];
}

const SIDES: Side[] = ['bid', 'ask', 'mid'];

function buildRecords(chain: ResearchChain): ContractRecord[] {
	const { spot, rate: r, dividend_yield: q } = chain;
	const records = chain.contracts.map((c): ContractRecord => {
		const isCall = c.right === 'C';
		const mid = (c.bid + c.ask) / 2;
		const prices: Record<Side, number> = { bid: c.bid, ask: c.ask, mid };
		const iv = {} as Record<Side, number | null>;
		const greeks = {} as Record<Side, FullGreeks | null>;
		for (const side of SIDES) {
			const sigma = solveImpliedVol(prices[side], isCall, spot, c.strike, c.expiry_years, r, q);
			iv[side] = sigma;
			greeks[side] =
				sigma === null ? null : fullGreeks(isCall, spot, c.strike, c.expiry_years, sigma, r, q);
		}
		return {
			expiry: c.expiry,
			dte: Math.max(0, Math.round(c.expiry_years * 365)),
			t: c.expiry_years,
			strike: c.strike,
			isCall,
			bid: c.bid,
			ask: c.ask,
			mid,
			openInterest: c.open_interest,
			volume: c.volume,
			iv,
			greeks,
			smileSlope: 0
		};
	});
	attachSmileSlopes(records, spot);
	return records;
}

/** Central differences of the out-of-the-money mid-IV smile per expiry. */
function attachSmileSlopes(records: ContractRecord[], spot: number): void {
	const byExpiry = new Map<string, ContractRecord[]>();
	for (const rec of records) {
		const list = byExpiry.get(rec.expiry) ?? [];
		list.push(rec);
		byExpiry.set(rec.expiry, list);
	}
	for (const list of byExpiry.values()) {
		const otm = list
			.filter((rec) => rec.isCall === rec.strike >= spot && rec.iv.mid !== null)
			.sort((a, b) => a.strike - b.strike);
		const strikes = otm.map((rec) => rec.strike);
		const vols = otm.map((rec) => rec.iv.mid as number);
		for (const rec of list) {
			if (strikes.length < 2) continue;
			let i = strikes.findIndex((k) => k >= rec.strike);
			if (i === -1) i = strikes.length - 1;
			const lo = Math.max(0, i - 1);
			const hi = Math.min(strikes.length - 1, lo === i ? i + 1 : i);
			const dk = strikes[hi] - strikes[lo];
			rec.smileSlope = dk > 0 ? (vols[hi] - vols[lo]) / dk : 0;
		}
	}
}

const cache = new Map<string, ChainRecords>();
const CACHE_SIZE = 16;

/** The chain's records, computed once per ticker and chain timestamp. */
export function chainRecords(chain: ResearchChain): ChainRecords {
	const key = `${chain.ticker}|${chain.timestamp}|${chain.spot}`;
	let hit = cache.get(key);
	if (!hit) {
		hit = { chain, records: buildRecords(chain) };
		cache.set(key, hit);
		if (cache.size > CACHE_SIZE) cache.delete(cache.keys().next().value as string);
	}
	return hit;
}
