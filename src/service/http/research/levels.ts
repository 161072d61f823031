/**
 * The level metrics of a research request (`max_pain`, `gamma_flip`, `gamma_wall_abs`,
 * `volatility_trigger`): one strike or price computed over the selected contracts.
 */
import { chainArraysFromContracts } from '../../../lib/analytics/chain';
import { unitExposure } from '../../../lib/analytics/exposures';
import { zeroGamma } from '../../../lib/analytics/zeroGamma';
import type { ChainRecords, ContractRecord } from './contracts';
import type { MetricSpec } from './metrics';

function maxPain(recs: ContractRecord[]): number | null {
	const strikes = [...new Set(recs.map((r) => r.strike))].sort((a, b) => a - b);
	let best: number | null = null;
	let bestPain = Infinity;
	for (const x of strikes) {
		let pain = 0;
		for (const r of recs) {
			pain += r.openInterest * Math.max(r.isCall ? x - r.strike : r.strike - x, 0);
		}
		if (pain < bestPain) {
			bestPain = pain;
			best = x;
		}
	}
	return best;
}

function netGexByStrike(
	recs: ContractRecord[],
	spot: number
): Map<number, { net: number; abs: number }> {
	const out = new Map<number, { net: number; abs: number }>();
	for (const r of recs) {
		const g = r.greeks.mid;
		if (!g) continue;
		const u = unitExposure(r.isCall, g.delta, g.gamma, g.vanna, g.charm / 365, spot, 100);
		const v = u.gex * r.openInterest;
		const e = out.get(r.strike) ?? { net: 0, abs: 0 };
		e.net += v;
		e.abs += Math.abs(v);
		out.set(r.strike, e);
	}
	return out;
}

/** The level `level` of the contracts `recs` of `data` (null when it has none). */
export function levelOf(
	level: Extract<MetricSpec, { family: 'level' }>['level'],
	recs: ContractRecord[],
	data: ChainRecords
) {
	const spot = data.chain.spot;
	if (recs.length === 0) return null;
	switch (level) {
		case 'max_pain':
			return maxPain(recs);
		case 'gamma_flip': {
			const usable = recs.filter((r) => r.iv.mid !== null && r.t > 0);
			if (usable.length === 0) return null;
			const chain = chainArraysFromContracts(
				{ spot, rate: data.chain.rate, dividendYield: data.chain.dividend_yield },
				usable.map((r) => ({
					expiryYears: r.t,
					strike: r.strike,
					isCall: r.isCall,
					iv: r.iv.mid as number,
					openInterest: r.openInterest,
					volume: r.volume
				}))
			);
			return zeroGamma(chain).oi;
		}
		case 'gamma_wall_abs': {
			let best: number | null = null;
			let bestAbs = -1;
			for (const [k, e] of netGexByStrike(recs, spot)) {
				if (
					e.abs > bestAbs ||
					(e.abs === bestAbs && best !== null && Math.abs(k - spot) < Math.abs(best - spot))
				) {
					bestAbs = e.abs;
					best = k;
				}
			}
			return best;
		}
		case 'volatility_trigger': {
			// The lowest strike from which the cumulative net GEX by OI (summed upward from the
			// lowest strike) stays positive through spot: below it dealers are short gamma.
			const ladder = [...netGexByStrike(recs, spot)].sort((a, b) => a[0] - b[0]);
			let cumulative = 0;
			let trigger: number | null = null;
			for (const [k, e] of ladder) {
				if (k > spot) break;
				cumulative += e.net;
				if (cumulative <= 0) trigger = null;
				else trigger ??= k;
			}
			return trigger;
		}
	}
}
