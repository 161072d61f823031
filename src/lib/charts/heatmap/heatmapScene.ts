/**
 * What one heatmap draw depends on and the pixel arithmetic of it, apart from the painting
 * (heatmapRender.ts): the viewport, style and layout, the colour lookup table, the decimation of
 * grid columns to device pixel columns, the rows of a price, and which pixel columns an append
 * dirtied. Pure functions of their inputs (tests, benchmarks and the painter share them).
 */
import type { HeatmapGrid } from './heatmapGrid';

/** What is visible: a time range and a range of price ladder rows (fractional, 0 = top). */
export interface HeatViewport {
	t0: number;
	t1: number;
	rowTop: number;
	rowCount: number;
}

export interface HeatStyle {
	neg: string;
	mid: string;
	pos: string;
	spot: string;
	zeroGamma: string;
	text: string;
	grid: string;
	background: string;
}

export interface HeatLayout {
	/** CSS pixels of the canvas. */
	width: number;
	height: number;
	dpr: number;
	/** Plot margins in CSS pixels (axes live there). */
	left: number;
	bottom: number;
	top: number;
	right: number;
}

export const HEAT_MARGINS = { left: 56, bottom: 22, top: 6, right: 8 };

/** `#rrggbb`, or `rgb(r, g, b)` as the browser computes a theme colour (themeColor.ts). */
function rgb(colour: string): [number, number, number] {
	const hex = /^#([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})$/i.exec(colour.trim());
	if (hex) return [parseInt(hex[1], 16), parseInt(hex[2], 16), parseInt(hex[3], 16)];
	const css = /^rgba?\((\d+),\s*(\d+),\s*(\d+)/.exec(colour.trim());
	if (css) return [Number(css[1]), Number(css[2]), Number(css[3])];
	return [128, 128, 128];
}

/** 256 RGBA pixels (as little-endian Uint32) from `neg` through `mid` at 127.5 to `pos`. */
export function divergingLut(neg: string, mid: string, pos: string): Uint32Array {
	const a = rgb(neg);
	const m = rgb(mid);
	const b = rgb(pos);
	const lut = new Uint32Array(256);
	for (let i = 0; i < 256; i++) {
		const t = i / 255;
		const [from, to, f] = t < 0.5 ? [a, m, t * 2] : [m, b, (t - 0.5) * 2];
		// sqrt: small values stay visible against the mid colour.
		const k = t < 0.5 ? 1 - Math.sqrt(1 - f) : Math.sqrt(f);
		const c = from.map((v, j) => Math.round(v + (to[j] - v) * k));
		lut[i] = (255 << 24) | (c[2] << 16) | (c[1] << 8) | c[0];
	}
	return lut;
}

/** The lookup index of a value on a scale of ±scaleMax. */
export function lutIndex(value: number, scaleMax: number): number {
	const t = scaleMax > 0 ? value / scaleMax : 0;
	const i = Math.round((Math.max(-1, Math.min(1, t)) * 0.5 + 0.5) * 255);
	return i;
}

/** A column is held over this many of its recent intervals: a missed step or two. */
const HOLD_INTERVALS = 3;
/** ...and at least this long (s), so a live feed a second apart is not broken by a slow tick. */
const MIN_HOLD_S = 30;
/** Intervals the cadence near a column is the median of (columns up to it only). */
const CADENCE_WINDOW = 8;
const cadenceScratch = new Float64Array(CADENCE_WINDOW);

/**
 * The usual interval between columns near `col` (s): the median of up to CADENCE_WINDOW
 * intervals ending at it. The gaps of an outage are few among them, so they do not count; only
 * columns up to `col` do, so a later append never changes it (but for the first column, which
 * reads the one after it).
 */
export function cadenceAt(grid: HeatmapGrid, col: number): number {
	const t = grid.times;
	if (col === 0) return grid.length > 1 ? t[1] - t[0] : Number.NaN;
	const from = Math.max(1, col - CADENCE_WINDOW + 1);
	// An insertion sort into a reused buffer: a live view asks this for every column in view
	// every second (an array and a sort per column made a decimation 20 times slower).
	let n = 0;
	for (let i = from; i <= col; i++) {
		const gap = t[i] - t[i - 1];
		let j = n++;
		for (; j > 0 && cadenceScratch[j - 1] > gap; j--) cadenceScratch[j] = cadenceScratch[j - 1];
		cadenceScratch[j] = gap;
	}
	return cadenceScratch[(n - 1) >> 1];
}

/**
 * For each of `width` pixel columns, the grid column shown there (-1 = none): the state at the
 * pixel's time, held until the next column, across a missed step or two (HOLD_INTERVALS of the
 * cadence near it, at least MIN_HOLD_S) but never across an outage of the recording: a
 * three-minute gap in a day recorded every 10 s stays blank instead of showing the column before
 * it for three minutes. `maxGapSeconds` caps the hold. After the last column (the live edge) it is
 * held only for one column interval, or to the end of its own pixel: the future, and the time
 * after a recording stopped, stay blank.
 */
export function decimateColumns(
	grid: HeatmapGrid,
	t0: number,
	t1: number,
	width: number,
	maxGapSeconds = 300,
	/** A buffer of `width` to reuse (a live view decimates every second). */
	out: Int32Array = new Int32Array(width)
): Int32Array {
	const span = t1 - t0;
	const n = grid.length;
	const lastT = n > 0 ? grid.times[n - 1] : Number.NaN;
	const step = n > 1 ? (lastT - grid.times[0]) / (n - 1) : 1;
	const tailHold = Math.min(maxGapSeconds, Math.max(step, span / width / 2));
	// Pixels run left to right, so a column's hold is worked out once.
	let heldCol = -2;
	let held = 0;
	for (let x = 0; x < width; x++) {
		const t = t0 + ((x + 0.5) / width) * span;
		const col = grid.columnAt(t);
		if (col !== heldCol) {
			heldCol = col;
			const cadence = col >= 0 ? cadenceAt(grid, col) : Number.NaN;
			held =
				col === n - 1
					? tailHold
					: Number.isFinite(cadence)
						? Math.min(maxGapSeconds, Math.max(MIN_HOLD_S, HOLD_INTERVALS * cadence))
						: maxGapSeconds;
		}
		out[x] = col >= 0 && t - grid.times[col] <= held ? col : -1;
	}
	return out;
}

/** Fractional row of a price on the price ladder (to scale: linear in price). */
export function rowOfPrice(grid: HeatmapGrid, price: number): number {
	if (grid.priceRows === 0 || !Number.isFinite(price)) return Number.NaN;
	return grid.ladderRowOf(price);
}

/** A round price step (1, 2, 2.5 or 5 times a power of ten) of at least `min`. */
export function niceStep(min: number): number {
	if (!(min > 0) || !Number.isFinite(min)) return 1;
	const p = 10 ** Math.floor(Math.log10(min));
	return ([1, 2, 2.5, 5, 10].find((m) => m * p >= min - 1e-12) ?? 10) * p;
}

/** Everything one draw depends on: the painter repaints only what differs from the last one. */
export interface HeatScene {
	grid: HeatmapGrid;
	vp: HeatViewport;
	layout: HeatLayout;
	style: HeatStyle;
	lut: Uint32Array;
	/** Half-range of the colour scale (the day's max |value|). */
	scaleMax: number;
	formatTime: (t: number) => string;
	formatStrike: (s: number) => string;
	/** A replayed moment (unix s) drawn as a vertical line; null for none. */
	playhead: number | null;
	/** The session's close (unix s), marked when in view; null for none. */
	sessionEnd?: number | null;
}

export interface DrawStats {
	columns: number;
	rows: number;
	ms: number;
	/**
	 * 'full': the whole canvas was painted; 'columns': only the pixel columns a live append
	 * changed (plus the lines through them); 'none': the append fell outside the view.
	 */
	mode: 'full' | 'columns' | 'none';
	/** Pixel columns whose cells were recomputed. */
	dirty: number;
}

/**
 * The pixel columns [first, last] whose shown grid column changed between two decimations,
 * or shows a grid column at or after `from` (whose cells or lines may have changed); null when
 * none did.
 */
export function dirtyPixels(
	before: Int32Array,
	after: Int32Array,
	from: number
): [number, number] | null {
	let first = -1;
	let last = -1;
	for (let x = 0; x < after.length; x++) {
		if (after[x] !== before[x] || (after[x] >= from && after[x] >= 0)) {
			if (first < 0) first = x;
			last = x;
		}
	}
	return first < 0 ? null : [first, last];
}

/** Lines get a vertex every other device pixel, and one on the last pixel. */
export function nextVertex(x: number, width: number): number {
	return x + 2 < width ? x + 2 : x + 1;
}

export interface Geometry {
	W: number;
	H: number;
	px0: number;
	py0: number;
	r0: number;
	r1: number;
	visibleRows: number;
	rowPx: number;
}

export function geometryOf(scene: HeatScene): Geometry {
	const { layout, vp, grid } = scene;
	const { dpr } = layout;
	const W = Math.max(1, Math.round((layout.width - layout.left - layout.right) * dpr));
	const H = Math.max(1, Math.round((layout.height - layout.top - layout.bottom) * dpr));
	const r0 = Math.max(0, Math.floor(vp.rowTop));
	const r1 = Math.min(grid.priceRows, Math.ceil(vp.rowTop + vp.rowCount));
	return {
		W,
		H,
		px0: Math.round(layout.left * dpr),
		py0: Math.round(layout.top * dpr),
		r0,
		r1,
		visibleRows: Math.max(0, r1 - r0),
		rowPx: H / vp.rowCount
	};
}

export const sameFields = <T extends object>(a: T, b: T) =>
	(Object.keys(a) as (keyof T)[]).every((k) => a[k] === b[k]);
