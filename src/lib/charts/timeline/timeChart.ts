/**
 * The arithmetic of the session time charts, kept out of the components so it is tested: the
 * shared zoom domain (clamped to the session), the crosshair's nearest point, ET clock ticks,
 * and the per-pixel decimation that keeps a 23,400-point day to a few hundred drawn vertices.
 */
import { lowerBound } from '../../stream/series/orderflowSeries';

/** A time window in unix seconds. */
export interface TimeDomain {
	lo: number;
	hi: number;
}

/** The narrowest zoom: one minute. */
export const MIN_SPAN_S = 60;

/**
 * `d` moved and resized to lie inside `full` with a span of at least `minSpan` (or the whole of
 * `full` when that is narrower); a domain that is not finite becomes `full`.
 */
export function clampDomain(d: TimeDomain, full: TimeDomain, minSpan = MIN_SPAN_S): TimeDomain {
	const fullSpan = full.hi - full.lo;
	if (!Number.isFinite(d.lo) || !Number.isFinite(d.hi) || !(fullSpan > 0)) return { ...full };
	const span = Math.min(fullSpan, Math.max(Math.min(minSpan, fullSpan), Math.abs(d.hi - d.lo)));
	const center = (d.lo + d.hi) / 2;
	const lo = Math.min(full.hi - span, Math.max(full.lo, center - span / 2));
	return { lo, hi: lo + span };
}

/** Zoom by `factor` (< 1 zooms in) keeping the time under `anchor` where it is on screen. */
export function zoomDomain(
	d: TimeDomain,
	anchor: number,
	factor: number,
	full: TimeDomain,
	minSpan = MIN_SPAN_S
): TimeDomain {
	const span = d.hi - d.lo;
	const at = span > 0 ? Math.min(1, Math.max(0, (anchor - d.lo) / span)) : 0.5;
	const fullSpan = full.hi - full.lo;
	const next = Math.min(fullSpan, Math.max(Math.min(minSpan, fullSpan), span * factor));
	const lo = anchor - at * next;
	const hi = lo + next;
	// Clamp by shifting, not by re-centring, so the anchor stays put until an edge is reached.
	const shift = lo < full.lo ? full.lo - lo : hi > full.hi ? full.hi - hi : 0;
	return clampDomain({ lo: lo + shift, hi: hi + shift }, full, minSpan);
}

/**
 * The charts' whole window fitted to the data (issue 25 item 12): from the first point to a
 * little past the last (a tenth of the span, at least 30 s), at least `minSpan` wide so a
 * recording that just began can be zoomed into, never past the session's close once the data
 * reaches it. No data: the session.
 */
export function fittedDomain(
	first: number,
	last: number,
	session: TimeDomain,
	minSpan = 300
): TimeDomain {
	if (!Number.isFinite(first) || !Number.isFinite(last) || last < session.lo) return { ...session };
	// Points before the open stay out of the window, as they did on the session's axis.
	const lo = Math.max(first, session.lo);
	const end = Math.max(last + Math.max(30, (last - lo) * 0.1), lo + minSpan);
	return { lo, hi: Math.min(end, Math.max(session.hi, last)) };
}

export function panDomain(d: TimeDomain, seconds: number, full: TimeDomain): TimeDomain {
	const span = d.hi - d.lo;
	const lo = Math.min(full.hi - span, Math.max(full.lo, d.lo + seconds));
	return { lo, hi: lo + span };
}

export function isFullDomain(d: TimeDomain, full: TimeDomain): boolean {
	return Math.abs(d.lo - full.lo) < 0.5 && Math.abs(d.hi - full.hi) < 0.5;
}

/** Index of the point nearest to `t` in times[0, length) (the earlier one on a tie), -1 if none. */
export function nearestIndex(times: Uint32Array, length: number, t: number): number {
	if (length === 0 || !Number.isFinite(t)) return -1;
	const i = lowerBound(times, length, t);
	if (i === 0) return 0;
	if (i === length) return length - 1;
	return t - times[i - 1] <= times[i] - t ? i - 1 : i;
}

const TICK_STEPS = [60, 120, 300, 600, 900, 1800, 3600, 7200];

/** Clock ticks (unix s) on whole ET minutes/hours: the coarsest step giving <= maxTicks. */
export function timeTicks(d: TimeDomain, midnight: number, maxTicks: number): number[] {
	const span = d.hi - d.lo;
	if (!(span > 0) || maxTicks < 1) return [];
	const step = TICK_STEPS.find((s) => span / s <= maxTicks) ?? TICK_STEPS[TICK_STEPS.length - 1];
	const out: number[] = [];
	for (let t = midnight + Math.ceil((d.lo - midnight) / step) * step; t <= d.hi; t += step) {
		out.push(t);
	}
	return out;
}

/** Polyline vertices: NaN values break the line (a gap in the data). */
export interface DrawnLine {
	t: Float64Array;
	v: Float64Array;
	/** Smallest and largest finite value drawn (NaN when none). */
	min: number;
	max: number;
}

/**
 * The vertices to draw one series over `d` on `buckets` pixel columns: per column the first,
 * lowest, highest and last point (so the drawn envelope is exact), plus the neighbours just
 * outside the window so the line reaches the edges. A silence longer than `gapSeconds` between
 * two points (the page was closed, the feed stalled) breaks the line instead of bridging it.
 */
export function decimate(
	times: Uint32Array,
	values: Float64Array,
	length: number,
	d: TimeDomain,
	buckets: number,
	gapSeconds = 30
): DrawnLine {
	const i0 = Math.max(0, lowerBound(times, length, d.lo) - 1);
	const i1 = Math.min(length, lowerBound(times, length, d.hi) + 1);
	const picked: number[] = [];
	const span = d.hi - d.lo;
	const cols = Math.max(1, Math.floor(buckets));
	let col = -1;
	let first = -1;
	let lo = -1;
	let hi = -1;
	let last = -1;
	const pick = (i: number) => {
		if (i >= 0 && picked[picked.length - 1] !== i) picked.push(i);
	};
	// Indices rise through a column: first <= min, max <= last; only min and max need ordering
	// (both are -1 in a column of NaN, which pick skips).
	const flush = () => {
		if (first < 0) return;
		pick(first);
		pick(Math.min(lo, hi));
		pick(Math.max(lo, hi));
		pick(last);
	};
	for (let i = i0; i < i1; i++) {
		const c = span > 0 ? Math.floor(((times[i] - d.lo) / span) * cols) : 0;
		if (c !== col) {
			flush();
			col = c;
			first = i;
			lo = -1;
			hi = -1;
		}
		last = i;
		const v = values[i];
		if (Number.isFinite(v)) {
			if (lo < 0 || v < values[lo]) lo = i;
			if (hi < 0 || v > values[hi]) hi = i;
		}
	}
	flush();
	const t: number[] = [];
	const v: number[] = [];
	let min = NaN;
	let max = NaN;
	let prevT = NaN;
	for (const i of picked) {
		if (times[i] - prevT > gapSeconds) {
			t.push(NaN);
			v.push(NaN);
		}
		prevT = times[i];
		t.push(times[i]);
		v.push(values[i]);
		const inside = times[i] >= d.lo && times[i] <= d.hi;
		if (inside && Number.isFinite(values[i])) {
			if (!(values[i] >= min)) min = values[i];
			if (!(values[i] <= max)) max = values[i];
		}
	}
	return { t: Float64Array.from(t), v: Float64Array.from(v), min, max };
}

/** A linear map from a scale's domain to its range (what a d3 linear scale computes unclamped). */
export interface LinearMap {
	domain: readonly [number, number];
	range: readonly [number, number];
}

/**
 * The SVG path of a drawn line: a move to the first point of every run of finite points, a line
 * to each one after (what d3's line() with `defined` draws), in pixels rounded to 0.1. A full
 * day's lines are ~2,400 vertices each: d3's generator, its accessors and scale calls were
 * 10-30 ms of the Orderflow view's first draw on a cold page (issue 26).
 */
export function linePath(d: DrawnLine, x: LinearMap, y: LinearMap): string {
	const xb = (x.range[1] - x.range[0]) / (x.domain[1] - x.domain[0] || 1);
	const xa = x.range[0] - x.domain[0] * xb;
	const yb = (y.range[1] - y.range[0]) / (y.domain[1] - y.domain[0] || 1);
	const ya = y.range[0] - y.domain[0] * yb;
	const parts: string[] = [];
	let pen = false;
	for (let i = 0; i < d.t.length; i++) {
		const t = d.t[i];
		const v = d.v[i];
		if (!Number.isFinite(t) || !Number.isFinite(v)) {
			pen = false;
			continue;
		}
		const px = Math.round((xa + xb * t) * 10) / 10;
		const py = Math.round((ya + yb * v) * 10) / 10;
		parts.push(`${pen ? 'L' : 'M'}${px},${py}`);
		pen = true;
	}
	return parts.join('');
}

/** One line of a session chart as the renderer draws it. */
export interface ChartLine {
	/** Series name (FLOW_SERIES), used as data-series. */
	id: string;
	label: string;
	/** Colour / dash class: `zero`, `one` or `spot`. */
	cls: string;
	drawn: DrawnLine;
}

/** One chart of the session timeline: which series it draws and how its values read. */
export interface TimelineChart {
	id: string;
	title: string;
	/** Unit note after the title, e.g. "$ per 1% move". */
	unit: string;
	format: (v: number) => string;
	/** Signed values: include and draw zero, colour the readout by sign. */
	zero: boolean;
	/** `series` is the index in FLOW_SERIES. */
	lines: { id: string; series: number; label: string; cls: string }[];
}
