/**
 * Dealer exposures per contract, summed per strike and in total, weighted by open interest and
 * by volume. With s = +1 for calls and -1 for puts (dealers long calls, short puts), N the
 * weight (OI or volume), M the contract size and S the spot:
 *   GEX   = s * gamma * N * M * S^2 * 0.01      ($ per 1% move)
 *   DEX   = delta * N * M * S                   ($, holder-signed: puts carry their own sign)
 *   vanna = s * vanna * N * M * S * 0.01        ($ delta change per vol point)
 *   charm = s * charmPerDay * N * M * S         ($ delta change per day)
 * The call and put parts of every strike are kept apart (already signed as above) because the
 * greek ladders show both; net = call + put.
 */
import {
	selectionIndices,
	strikeLadder,
	type ChainArrays,
	type Selection,
	type StrikeLadder
} from './chain';
import type { GreekArrays } from './greeks';

export const EXPOSURE_MEASURES = ['gex', 'dex', 'vanna', 'charm'] as const;
export type ExposureMeasure = (typeof EXPOSURE_MEASURES)[number];
export const WEIGHTINGS = ['oi', 'vol'] as const;
export type Weighting = (typeof WEIGHTINGS)[number];

export interface SideValues {
	call: Float64Array;
	put: Float64Array;
	net: Float64Array;
}
export interface SideTotals {
	call: number;
	put: number;
	net: number;
}
export type ByWeighting<T> = Record<Weighting, T>;

export interface ExposureLadder {
	spot: number;
	/** Ascending unique strikes of the selected contracts. */
	strikes: Float64Array;
	gex: ByWeighting<SideValues>;
	dex: ByWeighting<SideValues>;
	vanna: ByWeighting<SideValues>;
	charm: ByWeighting<SideValues>;
	totals: Record<ExposureMeasure, ByWeighting<SideTotals>>;
}

export interface ExposureOptions {
	/** Contracts to include (index list or mask); every contract when omitted. */
	selection?: Selection;
	/** The chain's strike ladder when the caller keeps one; rebuilt otherwise. */
	ladder?: StrikeLadder;
}

/** Unit exposures of one contract (per one contract of weight), in the units above. */
export interface UnitExposure {
	gex: number;
	dex: number;
	vanna: number;
	charm: number;
}

export function unitExposure(
	isCall: boolean,
	delta: number,
	gamma: number,
	vanna: number,
	charmPerDay: number,
	spot: number,
	contractSize: number,
	out: UnitExposure = { gex: 0, dex: 0, vanna: 0, charm: 0 }
): UnitExposure {
	const s = isCall ? 1 : -1;
	const ms = contractSize * spot;
	out.gex = s * gamma * ms * spot * 0.01;
	out.dex = delta * ms;
	out.vanna = s * vanna * ms * 0.01;
	out.charm = s * charmPerDay * ms;
	return out;
}

function sideValues(n: number): SideValues {
	return { call: new Float64Array(n), put: new Float64Array(n), net: new Float64Array(n) };
}

/** Per-strike and total exposures of the selected contracts from precomputed greeks. */
export function computeExposures(
	chain: ChainArrays,
	greeks: GreekArrays,
	options: ExposureOptions = {}
): ExposureLadder {
	const ladder = options.ladder ?? strikeLadder(chain);
	const idx = selectionIndices(chain.length, options.selection);
	const L = ladder.strikes.length;
	// Accumulate on the full ladder: [measure][weighting][side] flattened into one buffer.
	const acc = new Float64Array(16 * L);
	const present = new Uint8Array(L);
	const { spot, contractSize, isCall, openInterest, volume } = chain;
	const ms = contractSize * spot;
	const gexScale = ms * spot * 0.01;
	const vannaScale = ms * 0.01;
	for (let j = 0; j < idx.length; j++) {
		const i = idx[j];
		const k = ladder.index[i];
		present[k] = 1;
		const call = isCall[i] === 1;
		const s = call ? 1 : -1;
		const gex = s * greeks.gamma[i] * gexScale;
		const dex = greeks.delta[i] * ms;
		const van = s * greeks.vanna[i] * vannaScale;
		const chm = s * greeks.charmPerDay[i] * ms;
		const oi = openInterest[i];
		const vol = volume[i];
		// Layout: ((measure * 2 + weighting) * 2 + side) * L + strike.
		const base = (call ? 0 : L) + k;
		acc[base] += gex * oi;
		acc[base + 2 * L] += gex * vol;
		acc[base + 4 * L] += dex * oi;
		acc[base + 6 * L] += dex * vol;
		acc[base + 8 * L] += van * oi;
		acc[base + 10 * L] += van * vol;
		acc[base + 12 * L] += chm * oi;
		acc[base + 14 * L] += chm * vol;
	}
	let count = 0;
	for (let k = 0; k < L; k++) count += present[k];
	const strikes = new Float64Array(count);
	for (let k = 0, p = 0; k < L; k++) if (present[k] === 1) strikes[p++] = ladder.strikes[k];

	const build = (
		m: number
	): { values: ByWeighting<SideValues>; totals: ByWeighting<SideTotals> } => {
		const values = { oi: sideValues(count), vol: sideValues(count) };
		const totals = { oi: { call: 0, put: 0, net: 0 }, vol: { call: 0, put: 0, net: 0 } };
		for (let w = 0; w < 2; w++) {
			const sv = w === 0 ? values.oi : values.vol;
			const st = w === 0 ? totals.oi : totals.vol;
			const callOff = (m * 2 + w) * 2 * L;
			const putOff = callOff + L;
			for (let k = 0, p = 0; k < L; k++) {
				if (present[k] === 0) continue;
				const c = acc[callOff + k];
				const pu = acc[putOff + k];
				sv.call[p] = c;
				sv.put[p] = pu;
				sv.net[p] = c + pu;
				st.call += c;
				st.put += pu;
				p++;
			}
			st.net = st.call + st.put;
		}
		return { values, totals };
	};
	const gex = build(0);
	const dex = build(1);
	const vanna = build(2);
	const charm = build(3);
	return {
		spot,
		strikes,
		gex: gex.values,
		dex: dex.values,
		vanna: vanna.values,
		charm: charm.values,
		totals: { gex: gex.totals, dex: dex.totals, vanna: vanna.totals, charm: charm.totals }
	};
}
