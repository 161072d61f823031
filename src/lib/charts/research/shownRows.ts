/**
 * What each research display draws, as one table: the rows behind every mark on screen. The
 * charts draw these rows and the downloads write these rows, so a CSV or JSON file holds
 * exactly what is shown, under the same filters.
 */
import type { ResearchDisplay } from '$lib/state/researchView';
import { isAdditiveMetric, type ContractType, type ResearchPayload } from './payload';

export type Cell = string | number | null;

export interface ShownTable {
	columns: string[];
	rows: Cell[][];
	/** One sentence on how the rows relate to the upstream's (combined, chosen, ...). */
	note: string;
}

export interface StrikeBar {
	strike: number;
	type: ContractType;
	value: number;
}

/** Strike bars: one per (strike, type), expiries combined (summed or averaged, by metric). */
export function strikeBars(p: ResearchPayload): { bars: StrikeBar[]; expiries: string[] } {
	const rows = p.rows ?? [];
	const additive = isAdditiveMetric(p.metric);
	const groups = new Map<string, { strike: number; type: ContractType; sum: number; n: number }>();
	const expiries = new Set<string>();
	for (const r of rows) {
		expiries.add(r.expiry);
		const key = `${r.strike}|${r.type}`;
		const g = groups.get(key);
		if (g) {
			g.sum += r.value;
			g.n++;
		} else groups.set(key, { strike: r.strike, type: r.type, sum: r.value, n: 1 });
	}
	const order = { call: 0, put: 1, all: 2 };
	const bars = [...groups.values()]
		.map((g) => ({ strike: g.strike, type: g.type, value: additive ? g.sum : g.sum / g.n }))
		.sort((a, b) => a.strike - b.strike || order[a.type] - order[b.type]);
	return { bars, expiries: [...expiries].sort() };
}

export interface SkewSeries {
	expiry: string;
	dte: number;
	type: ContractType;
	points: [number, number][];
}

/** All expiries of a skew payload, nearest first. */
export function skewExpiries(p: ResearchPayload): { expiry: string; dte: number }[] {
	const seen = new Map<string, number>();
	for (const s of p.series ?? []) if (!seen.has(s.expiry)) seen.set(s.expiry, s.dte);
	return [...seen]
		.map(([expiry, dte]) => ({ expiry, dte }))
		.sort((a, b) => a.dte - b.dte || a.expiry.localeCompare(b.expiry));
}

/** Expiries a skew shows when the URL names none: the nearest few. */
export const DEFAULT_SKEW_EXPIRIES = 4;

export function chosenSkew(p: ResearchPayload, chosen: string[] | null): SkewSeries[] {
	const all = skewExpiries(p).map((e) => e.expiry);
	const keep = new Set(chosen ?? all.slice(0, DEFAULT_SKEW_EXPIRIES));
	return (p.series ?? [])
		.filter((s) => keep.has(s.expiry) && s.points.length > 0)
		.map((s) => ({ ...s, points: [...s.points].sort((a, b) => a[0] - b[0]) }));
}

export interface TermPoint {
	expiry: string;
	dte: number;
	/** call, put, all, or 'level' for chain-level metrics. */
	type: ContractType | 'level';
	value: number;
}

/** Term rows (ATM value, or sum for additive metrics, per expiry), or levels per expiry. */
export function termPoints(p: ResearchPayload): TermPoint[] {
	const out: TermPoint[] = [];
	if (p.term) {
		for (const r of p.term) if (Number.isFinite(r.value)) out.push({ ...r });
	} else if (p.level) {
		for (const r of p.level.expiries) {
			if (r.value !== null && Number.isFinite(r.value)) {
				out.push({ expiry: r.expiry, dte: r.dte, type: 'level', value: r.value });
			}
		}
	}
	return out.sort((a, b) => a.dte - b.dte || a.type.localeCompare(b.type));
}

/** Term points as one line per type (calls, puts, combined, level), ascending DTE. */
export function termLines(
	points: TermPoint[]
): { type: TermPoint['type']; points: [number, number][] }[] {
	const byType = new Map<TermPoint['type'], [number, number][]>();
	for (const t of points) {
		const list = byType.get(t.type) ?? [];
		list.push([t.dte, t.value]);
		byType.set(t.type, list);
	}
	return [...byType].map(([type, pts]) => ({ type, points: pts.sort((a, b) => a[0] - b[0]) }));
}

/** The rows a display shows, for the downloads. */
export function shownTable(
	p: ResearchPayload,
	display: ResearchDisplay,
	chosenExpiries: string[] | null
): ShownTable {
	switch (display) {
		case 'strikes': {
			const { bars, expiries } = strikeBars(p);
			const how = isAdditiveMetric(p.metric) ? 'summed' : 'averaged';
			return {
				columns: ['strike', 'type', 'value'],
				rows: bars.map((b) => [b.strike, b.type, b.value]),
				note:
					expiries.length > 1
						? `One bar per strike and side, ${how} over ${expiries.length} expiries (${expiries[0]} to ${expiries[expiries.length - 1]}).`
						: expiries.length === 1
							? `One bar per strike and side, expiry ${expiries[0]}.`
							: 'No rows.'
			};
		}
		case 'skew': {
			const series = chosenSkew(p, chosenExpiries);
			return {
				columns: ['expiry', 'dte', 'type', 'strike', 'value'],
				rows: series.flatMap((s) => s.points.map(([k, v]) => [s.expiry, s.dte, s.type, k, v])),
				note: `${new Set(series.map((s) => s.expiry)).size} expiries drawn.`
			};
		}
		case 'term':
			return {
				columns: ['expiry', 'dte', 'type', 'value'],
				rows: termPoints(p).map((t) => [t.expiry, t.dte, t.type, t.value]),
				note: p.level ? 'Level per expiry.' : 'At-the-money value per expiry (sum for exposures).'
			};
		case 'surface': {
			const s = p.surface;
			const rows: Cell[][] = [];
			s?.expiries.forEach((e, i) =>
				s.strikes.forEach((k, j) => {
					const v = s.values[i][j];
					if (v !== null) rows.push([e, s.dte[i], k, v]);
				})
			);
			return { columns: ['expiry', 'dte', 'strike', 'value'], rows, note: 'Cells with a value.' };
		}
	}
}
