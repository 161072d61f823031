/**
 * What the /chain charts draw, picked out of the worker's ChainModel: strike bars of one measure
 * and weighting (calls and puts apart or net) within a strike range, the G(X) lines, one IV smile
 * per expiry and the surface payload the Research surface component reads.
 */
import type { ChainModel, CurveId } from '../../chainImport/analysis';
import type { ExposureMeasure, Weighting } from '../../analytics';
import type { StrikeBar } from '../research/shownRows';
import type { SurfacePayload } from '../surface/grid';
import type { LineSeries } from '../research/LineChart.svg.svelte';
import type { ProfileLine } from './GammaProfile.svg.svelte';

export function chainBars(
	model: ChainModel,
	measure: ExposureMeasure,
	weight: Weighting,
	split: boolean,
	range: number
): StrikeBar[] {
	const v = model.exposures[measure][weight];
	const lo = model.spot * (1 - range);
	const hi = model.spot * (1 + range);
	const bars: StrikeBar[] = [];
	for (let k = 0; k < model.strikes.length; k++) {
		const strike = model.strikes[k];
		if (strike < lo || strike > hi) continue;
		if (split) {
			bars.push({ strike, type: 'call', value: v.call[k] });
			bars.push({ strike, type: 'put', value: v.put[k] });
		} else bars.push({ strike, type: 'all', value: v.net[k] });
	}
	return bars;
}

const CURVE_STYLE: Record<CurveId, { color: string; dashed: boolean }> = {
	all: { color: 'var(--accent)', dashed: false },
	exNext: { color: 'var(--maxchange)', dashed: true },
	exMonthly: { color: 'var(--pos)', dashed: true }
};

export function profileLines(
	model: ChainModel,
	weight: Weighting,
	shown: { exNext: boolean; exMonthly: boolean }
): ProfileLine[] {
	return model.profile.curves
		.filter((c) => c.id === 'all' || shown[c.id])
		.map((c) => ({
			id: c.id,
			label:
				c.id === 'all'
					? 'all expiries'
					: `without ${c.excluded}${c.id === 'exNext' ? ' (next)' : ' (monthly)'}`,
			...CURVE_STYLE[c.id],
			values: c[weight]
		}));
}

const EXPIRY_COLORS = [
	'#4da3ff',
	'#f5c542',
	'#2fbf71',
	'#ef5b5b',
	'#b48cff',
	'#ffa94d',
	'#3cc6c6',
	'#e377c2'
];

/** Expiries with a smile worth drawing (three quoted strikes or more near spot). */
export function smileExpiries(model: ChainModel, range: number): { expiry: string; dte: number }[] {
	return model.smile
		.filter((s) => smilePoints(model, s, range).length >= 3)
		.map((s) => ({ expiry: s.expiry, dte: s.dte }));
}

function smilePoints(
	model: ChainModel,
	s: ChainModel['smile'][number],
	range: number
): [number, number][] {
	const lo = model.spot * (1 - range);
	const hi = model.spot * (1 + range);
	const points: [number, number][] = [];
	for (let j = 0; j < s.strikes.length; j++) {
		const k = s.strikes[j];
		if (k < lo || k > hi) continue;
		const otm = k < model.spot ? s.putIv[j] : s.callIv[j];
		const v = Number.isNaN(otm) ? (k < model.spot ? s.callIv[j] : s.putIv[j]) : otm;
		if (Number.isFinite(v)) points.push([k, v]);
	}
	return points;
}

/**
 * One smile per chosen expiry (the `count` nearest when none is chosen), the out-of-the-money
 * side (puts below spot, calls above), strikes within range.
 */
export function smileSeries(
	model: ChainModel,
	range: number,
	chosen: readonly string[] | null,
	count = 6
): LineSeries[] {
	const out: LineSeries[] = [];
	model.smile.forEach((s, e) => {
		if (chosen ? !chosen.includes(s.expiry) : out.length >= count) return;
		const points = smilePoints(model, s, range);
		if (points.length < 3) return;
		out.push({
			id: s.expiry,
			label: `${s.expiry} (${Math.round(s.dte)}d)`,
			color: EXPIRY_COLORS[e % EXPIRY_COLORS.length],
			points
		});
	});
	// A shared link's expiries may not be in this chain: show the nearest rather than nothing.
	return out.length === 0 && chosen ? smileSeries(model, range, null, count) : out;
}

/** The model's IV grid in the shape of a research surface answer (values per 1.00). */
export function surfacePayload(model: ChainModel): SurfacePayload {
	const { strikes, expiries, dte, iv } = model.surface;
	const n = strikes.length;
	return {
		ticker: model.symbol ?? model.name,
		metric: 'iv',
		timestamp: model.asOf ? Math.floor(Date.parse(model.asOf) / 1000) : 0,
		spot: model.spot,
		surface: {
			strikes: Array.from(strikes),
			expiries: [...expiries],
			dte: Array.from(dte),
			values: expiries.map((_, e) =>
				Array.from(iv.subarray(e * n, (e + 1) * n), (v) => (Number.isFinite(v) ? v : null))
			)
		}
	};
}
