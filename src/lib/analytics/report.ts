/**
 * The chain report printed by `npm run analyze`: per-strike and total exposures, zero gamma and
 * majors, in the units of exposures.ts. Built whole before anything is printed.
 */
import type { ChainArrays, Selection, StrikeLadder } from './chain';
import { computeExposures } from './exposures';
import { computeGreeks, type GreekArrays } from './greeks';
import { majorStrikes } from './keyStrikes';
import { zeroGamma } from './zeroGamma';

export interface ExposureRow {
	gex_oi: number;
	gex_vol: number;
	dex_oi: number;
	dex_vol: number;
	vanna_oi: number;
	vanna_vol: number;
	charm_oi: number;
	charm_vol: number;
}

export interface ChainReport {
	spot: number;
	strikes: (ExposureRow & { strike: number })[];
	total: ExposureRow;
	zero_gamma: { oi: number | null; vol: number | null };
	majors: {
		pos_oi: number | null;
		neg_oi: number | null;
		pos_vol: number | null;
		neg_vol: number | null;
	};
}

export function analyzeChain(chain: ChainArrays): ChainReport {
	const greeks = computeGreeks(chain);
	const x = computeExposures(chain, greeks);
	const zg = zeroGamma(chain);
	const strikes = Array.from(x.strikes, (strike, k) => ({
		strike,
		gex_oi: x.gex.oi.net[k],
		gex_vol: x.gex.vol.net[k],
		dex_oi: x.dex.oi.net[k],
		dex_vol: x.dex.vol.net[k],
		vanna_oi: x.vanna.oi.net[k],
		vanna_vol: x.vanna.vol.net[k],
		charm_oi: x.charm.oi.net[k],
		charm_vol: x.charm.vol.net[k]
	}));
	const t = x.totals;
	const byOi = majorStrikes(x.strikes, x.gex.oi.net, chain.spot);
	const byVol = majorStrikes(x.strikes, x.gex.vol.net, chain.spot);
	return {
		spot: chain.spot,
		strikes,
		total: {
			gex_oi: t.gex.oi.net,
			gex_vol: t.gex.vol.net,
			dex_oi: t.dex.oi.net,
			dex_vol: t.dex.vol.net,
			vanna_oi: t.vanna.oi.net,
			vanna_vol: t.vanna.vol.net,
			charm_oi: t.charm.oi.net,
			charm_vol: t.charm.vol.net
		},
		zero_gamma: { oi: zg.oi, vol: zg.vol },
		majors: {
			pos_oi: byOi.positive,
			neg_oi: byOi.negative,
			pos_vol: byVol.positive,
			neg_vol: byVol.negative
		}
	};
}

export interface CategorySnapshot {
	exposures: ReturnType<typeof computeExposures>;
	zeroGamma: ReturnType<typeof zeroGamma>;
	majors: {
		posOi: number | null;
		negOi: number | null;
		posVol: number | null;
		negVol: number | null;
	};
}

/**
 * Everything one category (full chain, 0DTE only, next expiry only...) needs from greeks that
 * were computed once for the whole chain: exposures, both zero-gamma roots and the majors.
 * The roots nearest spot come from GammaKernel; `allRoots` lists every root (full scan).
 */
export function categorySnapshot(
	chain: ChainArrays,
	greeks: GreekArrays,
	options: { selection?: Selection; ladder?: StrikeLadder; allRoots?: boolean } = {}
): CategorySnapshot {
	const exposures = computeExposures(chain, greeks, options);
	const zg = zeroGamma(chain, {
		selection: options.selection,
		nearestOnly: !(options.allRoots ?? false)
	});
	const byOi = majorStrikes(exposures.strikes, exposures.gex.oi.net, chain.spot);
	const byVol = majorStrikes(exposures.strikes, exposures.gex.vol.net, chain.spot);
	return {
		exposures,
		zeroGamma: zg,
		majors: {
			posOi: byOi.positive,
			negOi: byOi.negative,
			posVol: byVol.positive,
			negVol: byVol.negative
		}
	};
}
