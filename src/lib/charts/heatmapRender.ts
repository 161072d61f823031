/**
 * Draws a HeatmapGrid on a 2D canvas: cells decimated to one sample per device pixel column
 * (the last calculation at or before that pixel's time, i.e. the state at that moment), coloured
 * on a diverging scale centred at 0 through a 256-entry lookup table, written as one ImageData
 * of (plot width x visible rows) and scaled up; then the spot path, zero gamma and the majors as
 * lines, and the axes. Cost is O(plot width x visible rows) whatever the day's length, so a full
 * day and a live column per second draw alike.
 */
import type { HeatmapGrid } from './heatmapGrid';

/** What is visible: a time range and a range of rows (fractional, row 0 = highest strike). */
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

function rgb(colour: string): [number, number, number] {
	const m = /^#([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})$/i.exec(colour.trim());
	if (!m) return [128, 128, 128];
	return [parseInt(m[1], 16), parseInt(m[2], 16), parseInt(m[3], 16)];
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

/** For each of `width` pixel columns, the grid column shown there (-1 = none). */
export function decimateColumns(
	grid: HeatmapGrid,
	t0: number,
	t1: number,
	width: number,
	maxGapSeconds = 300
): Int32Array {
	const out = new Int32Array(width);
	const span = t1 - t0;
	for (let x = 0; x < width; x++) {
		const t = t0 + ((x + 0.5) / width) * span;
		const col = grid.columnAt(t);
		out[x] = col >= 0 && t - grid.times[col] <= maxGapSeconds ? col : -1;
	}
	return out;
}

/** Fractional row position of a price (rows are descending strikes). */
export function rowOfPrice(grid: HeatmapGrid, price: number): number {
	const s = grid.strikes;
	const n = s.length;
	if (n === 0 || !Number.isFinite(price)) return Number.NaN;
	if (n === 1) return 0;
	if (price >= s[0]) return (price - s[0]) / (s[1] - s[0]);
	if (price <= s[n - 1]) return n - 1 + (price - s[n - 1]) / (s[n - 1] - s[n - 2]);
	let lo = 0;
	let hi = n - 1;
	while (hi - lo > 1) {
		const mid = (lo + hi) >>> 1;
		if (s[mid] >= price) lo = mid;
		else hi = mid;
	}
	return lo + (s[lo] - price) / (s[lo] - s[hi]);
}

export interface DrawStats {
	columns: number;
	rows: number;
	ms: number;
}

let scratch: HTMLCanvasElement | OffscreenCanvas | undefined;
let pixels: ImageData | undefined;

/** One reused pixel buffer: a live view redraws every second, allocating nothing. */
function imageData(w: number, h: number): ImageData {
	if (!pixels || pixels.width !== w || pixels.height !== h) pixels = new ImageData(w, h);
	return pixels;
}

function scratchCanvas(w: number, h: number): HTMLCanvasElement | OffscreenCanvas {
	if (!scratch) {
		scratch =
			typeof OffscreenCanvas !== 'undefined'
				? new OffscreenCanvas(w, h)
				: Object.assign(document.createElement('canvas'), { width: w, height: h });
	}
	if (scratch.width !== w) scratch.width = w;
	if (scratch.height !== h) scratch.height = h;
	return scratch;
}

export function drawHeatmap(
	ctx: CanvasRenderingContext2D,
	grid: HeatmapGrid,
	vp: HeatViewport,
	layout: HeatLayout,
	style: HeatStyle,
	lut: Uint32Array,
	scaleMax: number,
	formatTime: (t: number) => string,
	formatStrike: (s: number) => string,
	/** A replayed moment (unix s) drawn as a vertical line; null for none. */
	playhead: number | null = null
): DrawStats {
	const started = performance.now();
	const { dpr } = layout;
	const W = Math.max(1, Math.round((layout.width - layout.left - layout.right) * dpr));
	const H = Math.max(1, Math.round((layout.height - layout.top - layout.bottom) * dpr));
	const px0 = Math.round(layout.left * dpr);
	const py0 = Math.round(layout.top * dpr);
	ctx.setTransform(1, 0, 0, 1, 0, 0);
	ctx.fillStyle = style.background;
	ctx.fillRect(0, 0, ctx.canvas.width, ctx.canvas.height);

	const rows = grid.rows;
	const r0 = Math.max(0, Math.floor(vp.rowTop));
	const r1 = Math.min(rows, Math.ceil(vp.rowTop + vp.rowCount));
	const visibleRows = Math.max(0, r1 - r0);
	const cols = decimateColumns(grid, vp.t0, vp.t1, W);
	const rowPx = H / vp.rowCount;
	const yOfRow = (r: number) => py0 + (r - vp.rowTop) * rowPx;

	if (visibleRows > 0 && grid.length > 0) {
		const img = imageData(W, visibleRows);
		const px = new Uint32Array(img.data.buffer);
		px.fill(0);
		const values = grid.values;
		const inv = scaleMax > 0 ? 127.5 / scaleMax : 0;
		for (let x = 0; x < W; x++) {
			const col = cols[x];
			if (col < 0) continue;
			const base = col * rows + r0;
			for (let r = 0; r < visibleRows; r++) {
				const v = values[base + r];
				if (v !== v) continue; // NaN: no value, leave transparent
				let i = Math.round(v * inv + 127.5);
				if (i < 0) i = 0;
				else if (i > 255) i = 255;
				px[r * W + x] = lut[i];
			}
		}
		const sc = scratchCanvas(W, visibleRows);
		const sctx = sc.getContext('2d') as
			CanvasRenderingContext2D | OffscreenCanvasRenderingContext2D;
		sctx.putImageData(img, 0, 0);
		ctx.save();
		ctx.beginPath();
		ctx.rect(px0, py0, W, H);
		ctx.clip();
		ctx.imageSmoothingEnabled = false;
		ctx.drawImage(
			sc as CanvasImageSource,
			0,
			0,
			W,
			visibleRows,
			px0,
			yOfRow(r0),
			W,
			visibleRows * rowPx
		);

		// Lines over the cells: one vertex per pixel column.
		const line = (series: Float64Array, colour: string, width: number, dash: number[]) => {
			ctx.beginPath();
			ctx.strokeStyle = colour;
			ctx.lineWidth = width * dpr;
			ctx.setLineDash(dash.map((d) => d * dpr));
			let pen = false;
			// A vertex every other device pixel: the same line to the eye, half the path.
			for (let x = 0; x < W; x += x + 2 < W ? 2 : 1) {
				const col = cols[x];
				const y = col < 0 ? Number.NaN : yOfRow(rowOfPrice(grid, series[col]) + 0.5);
				if (!Number.isFinite(y)) {
					pen = false;
					continue;
				}
				if (pen) ctx.lineTo(px0 + x, y);
				else ctx.moveTo(px0 + x, y);
				pen = true;
			}
			ctx.stroke();
		};
		line(grid.majorPos, style.pos, 1.5, [2, 3]);
		line(grid.majorNeg, style.neg, 1.5, [2, 3]);
		line(grid.zeroGamma, style.zeroGamma, 1.5, [6, 4]);
		line(grid.spot, style.spot, 2, []);
		ctx.setLineDash([]);
		ctx.restore();
	}

	// Axes: strikes on the left (every few rows), ET times at the bottom.
	ctx.fillStyle = style.text;
	ctx.font = `${11 * dpr}px system-ui, sans-serif`;
	ctx.textAlign = 'right';
	ctx.textBaseline = 'middle';
	// A label every ~24 px: readable, and text is the costliest thing drawn per frame.
	const rowStep = Math.max(1, Math.ceil((24 * dpr) / rowPx));
	for (let r = Math.ceil(vp.rowTop / rowStep) * rowStep; r < r1; r += rowStep) {
		if (r < 0) continue;
		const y = yOfRow(r + 0.5);
		if (y < py0 || y > py0 + H) continue;
		ctx.fillText(formatStrike(grid.strikes[r]), px0 - 4 * dpr, y);
	}
	ctx.textAlign = 'center';
	ctx.textBaseline = 'top';
	const span = vp.t1 - vp.t0;
	const ticks = Math.max(2, Math.floor(W / (70 * dpr)));
	const steps = [60, 300, 600, 900, 1800, 3600, 7200];
	const step = steps.find((s) => span / s <= ticks) ?? 7200;
	for (let t = Math.ceil(vp.t0 / step) * step; t <= vp.t1; t += step) {
		const x = px0 + ((t - vp.t0) / span) * W;
		// Labels at the edges stay inside the canvas.
		ctx.textAlign = x < px0 + 20 * dpr ? 'left' : x > px0 + W - 20 * dpr ? 'right' : 'center';
		ctx.fillText(formatTime(t), x, py0 + H + 4 * dpr);
	}
	ctx.strokeStyle = style.grid;
	ctx.lineWidth = 1;
	ctx.strokeRect(px0 + 0.5, py0 + 0.5, W - 1, H - 1);
	if (playhead !== null && playhead >= vp.t0 && playhead <= vp.t1) {
		const x = Math.round(px0 + ((playhead - vp.t0) / span) * W) + 0.5;
		ctx.strokeStyle = style.text;
		ctx.lineWidth = 1.5 * dpr;
		ctx.beginPath();
		ctx.moveTo(x, py0);
		ctx.lineTo(x, py0 + H);
		ctx.stroke();
	}
	return { columns: W, rows: visibleRows, ms: performance.now() - started };
}
