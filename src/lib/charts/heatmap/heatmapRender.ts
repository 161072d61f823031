/**
 * Draws a HeatmapGrid on a 2D canvas: cells decimated to one sample per device pixel column
 * (the last calculation at or before that pixel's time, i.e. the state at that moment), coloured
 * on a diverging scale centred at 0 through a 256-entry lookup table, written as one ImageData
 * of (plot width x visible rows) and scaled up; then the spot path, zero gamma and the majors as
 * lines, and the axes. Cost is O(plot width x visible rows) whatever the day's length; a live
 * append repaints only the pixel columns it changed (HeatmapPainter), so it costs O(rows).
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

/**
 * For each of `width` pixel columns, the grid column shown there (-1 = none): the state at the
 * pixel's time, held across gaps of up to `maxGapSeconds` between columns. After the last column
 * (the live edge) it is held only for one column interval, or to the end of its own pixel: the
 * future, and the time after a recording stopped, stay blank.
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
	for (let x = 0; x < width; x++) {
		const t = t0 + ((x + 0.5) / width) * span;
		const col = grid.columnAt(t);
		const hold = col === n - 1 ? tailHold : maxGapSeconds;
		out[x] = col >= 0 && t - grid.times[col] <= hold ? col : -1;
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

interface Geometry {
	W: number;
	H: number;
	px0: number;
	py0: number;
	r0: number;
	r1: number;
	visibleRows: number;
	rowPx: number;
}

function geometryOf(scene: HeatScene): Geometry {
	const { layout, vp, grid } = scene;
	const { dpr } = layout;
	const W = Math.max(1, Math.round((layout.width - layout.left - layout.right) * dpr));
	const H = Math.max(1, Math.round((layout.height - layout.top - layout.bottom) * dpr));
	const r0 = Math.max(0, Math.floor(vp.rowTop));
	const r1 = Math.min(grid.rows, Math.ceil(vp.rowTop + vp.rowCount));
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

const sameFields = <T extends object>(a: T, b: T) =>
	(Object.keys(a) as (keyof T)[]).every((k) => a[k] === b[k]);

interface Painted {
	scene: HeatScene;
	vp: HeatViewport;
	layout: HeatLayout;
	strikes: Float64Array;
	/** Grid columns when drawn: a live append changes only columns from length - 1 on. */
	length: number;
	canvasWidth: number;
	canvasHeight: number;
}

/**
 * Paints scenes on one canvas and remembers the last: when only columns were appended to the
 * same grid (the live view, once a second), it recomputes the pixel columns whose decimated
 * column changed and repaints a strip around them (cells, the lines through them, the frame),
 * so an append costs O(changed pixel columns x rows) instead of a full repaint. Anything else
 * (viewport, size, colours, scale, playhead, a new strike, a new grid) repaints everything.
 * One painter per canvas: it owns its pixel buffer and scratch canvas.
 */
export class HeatmapPainter {
	private scratch: HTMLCanvasElement | OffscreenCanvas | undefined;
	private pixels: ImageData | undefined;
	private cols: Int32Array = new Int32Array(0);
	private spare: Int32Array = new Int32Array(0);
	private painted: Painted | null = null;

	/** The next draw repaints everything (e.g. after something else drew on the canvas). */
	invalidate(): void {
		this.painted = null;
	}

	draw(ctx: CanvasRenderingContext2D, scene: HeatScene): DrawStats {
		const started = performance.now();
		const geo = geometryOf(scene);
		let mode: DrawStats['mode'] = 'full';
		let dirty = 0;
		if (this.onlyAppended(ctx, scene)) {
			const range = this.redecimate(scene, geo, this.painted!.length - 1);
			if (range) {
				dirty = range[1] - range[0] + 1;
				this.paintStrip(ctx, scene, geo, range);
				mode = 'columns';
			} else {
				mode = 'none';
			}
		} else {
			dirty = this.paintFull(ctx, scene, geo);
		}
		this.painted = {
			scene,
			vp: { ...scene.vp },
			layout: { ...scene.layout },
			strikes: scene.grid.strikes,
			length: geo.visibleRows > 0 ? scene.grid.length : 0,
			canvasWidth: ctx.canvas.width,
			canvasHeight: ctx.canvas.height
		};
		return {
			columns: geo.W,
			rows: geo.visibleRows,
			ms: performance.now() - started,
			mode,
			dirty
		};
	}

	private onlyAppended(ctx: CanvasRenderingContext2D, scene: HeatScene): boolean {
		const p = this.painted;
		if (!p || p.length === 0) return false;
		const last = p.scene;
		return (
			scene.grid === last.grid &&
			scene.grid.strikes === p.strikes &&
			scene.grid.length >= p.length &&
			scene.scaleMax === last.scaleMax &&
			scene.lut === last.lut &&
			scene.style === last.style &&
			scene.playhead === last.playhead &&
			scene.formatTime === last.formatTime &&
			scene.formatStrike === last.formatStrike &&
			sameFields(scene.vp, p.vp) &&
			sameFields(scene.layout, p.layout) &&
			ctx.canvas.width === p.canvasWidth &&
			ctx.canvas.height === p.canvasHeight
		);
	}

	/** Decimates again into the spare buffer and swaps; the changed pixel range, if any. */
	private redecimate(scene: HeatScene, geo: Geometry, from: number): [number, number] | null {
		if (this.spare.length !== geo.W) this.spare = new Int32Array(geo.W);
		const next = decimateColumns(
			scene.grid,
			scene.vp.t0,
			scene.vp.t1,
			geo.W,
			undefined,
			this.spare
		);
		const range = dirtyPixels(this.cols, next, from);
		this.spare = this.cols;
		this.cols = next;
		return range;
	}

	/** Cell colours of pixel columns [x0, x1] into the pixel buffer. */
	private fillCells(scene: HeatScene, geo: Geometry, x0: number, x1: number): void {
		const { grid, lut, scaleMax } = scene;
		const { W, r0, visibleRows } = geo;
		const px = new Uint32Array(this.pixels!.data.buffer);
		const rows = grid.rows;
		const values = grid.values;
		const inv = scaleMax > 0 ? 127.5 / scaleMax : 0;
		const cols = this.cols;
		for (let x = x0; x <= x1; x++) {
			const col = cols[x];
			if (col < 0) {
				for (let r = 0; r < visibleRows; r++) px[r * W + x] = 0;
				continue;
			}
			const base = col * rows + r0;
			for (let r = 0; r < visibleRows; r++) {
				const v = values[base + r];
				if (v !== v) {
					px[r * W + x] = 0; // NaN: no value, transparent
					continue;
				}
				let i = Math.round(v * inv + 127.5);
				if (i < 0) i = 0;
				else if (i > 255) i = 255;
				px[r * W + x] = lut[i];
			}
		}
	}

	private scratchContext(
		w: number,
		h: number
	): CanvasRenderingContext2D | OffscreenCanvasRenderingContext2D {
		if (!this.scratch) {
			this.scratch =
				typeof OffscreenCanvas !== 'undefined'
					? new OffscreenCanvas(w, h)
					: Object.assign(document.createElement('canvas'), { width: w, height: h });
		}
		if (this.scratch.width !== w) this.scratch.width = w;
		if (this.scratch.height !== h) this.scratch.height = h;
		return this.scratch.getContext('2d') as
			CanvasRenderingContext2D | OffscreenCanvasRenderingContext2D;
	}

	/** Cells of pixel columns [x0, x1) from the scratch canvas, scaled to their rows. */
	private blitCells(
		ctx: CanvasRenderingContext2D,
		scene: HeatScene,
		geo: Geometry,
		x0: number,
		x1: number
	) {
		const y = geo.py0 + (geo.r0 - scene.vp.rowTop) * geo.rowPx;
		ctx.imageSmoothingEnabled = false;
		ctx.drawImage(
			this.scratch as CanvasImageSource,
			x0,
			0,
			x1 - x0,
			geo.visibleRows,
			geo.px0 + x0,
			y,
			x1 - x0,
			geo.visibleRows * geo.rowPx
		);
	}

	/**
	 * The spot path, zero gamma and the majors, with vertices from pixel column `from` to `to`
	 * (the whole width for a full draw). A dashed line drawn from mid-way starts its dash pattern
	 * where the full line had it there (the dash restarts at each break of a line, as a
	 * canvas subpath does), so a repainted strip joins its neighbours seamlessly.
	 */
	private drawLines(
		ctx: CanvasRenderingContext2D,
		scene: HeatScene,
		geo: Geometry,
		from: number,
		to: number
	) {
		const { grid, style, vp } = scene;
		const { dpr } = scene.layout;
		const { W, px0, py0, rowPx } = geo;
		const cols = this.cols;
		const yAt = (series: Float64Array, x: number) => {
			const col = cols[x];
			return col < 0 ? Number.NaN : py0 + (rowOfPrice(grid, series[col]) + 0.5 - vp.rowTop) * rowPx;
		};
		const line = (series: Float64Array, colour: string, width: number, dash: number[]) => {
			ctx.strokeStyle = colour;
			ctx.lineWidth = width * dpr;
			ctx.lineJoin = 'round';
			const pattern = dash.map((d) => d * dpr);
			ctx.setLineDash(pattern);
			// The dash phase at `from`: the length drawn since the line's last break.
			let phase = 0;
			let px = Number.NaN;
			let py = Number.NaN;
			let x = 0;
			if (pattern.length > 0) {
				for (; x < from; x = nextVertex(x, W)) {
					const y = yAt(series, x);
					if (!Number.isFinite(y)) phase = 0;
					else if (Number.isFinite(py)) phase += Math.hypot(x - px, y - py);
					px = x;
					py = y;
				}
				const y = x < W ? yAt(series, x) : Number.NaN;
				if (Number.isFinite(y) && Number.isFinite(py)) phase += Math.hypot(x - px, y - py);
			} else {
				while (x < from) x = nextVertex(x, W);
			}
			ctx.lineDashOffset = phase;
			ctx.beginPath();
			let pen = false;
			for (; x < W && x <= to; x = nextVertex(x, W)) {
				const y = yAt(series, x);
				if (!Number.isFinite(y)) {
					// The offset applies when stroking: stroke what is drawn, and the pieces after a
					// break start their pattern afresh.
					if (pen) {
						ctx.stroke();
						ctx.beginPath();
					}
					ctx.lineDashOffset = 0;
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
		ctx.lineDashOffset = 0;
	}

	private drawFrame(ctx: CanvasRenderingContext2D, scene: HeatScene, geo: Geometry) {
		const { vp, style, playhead } = scene;
		const { px0, py0, W, H } = geo;
		ctx.strokeStyle = style.grid;
		ctx.lineWidth = 1;
		ctx.lineJoin = 'miter';
		ctx.strokeRect(px0 + 0.5, py0 + 0.5, W - 1, H - 1);
		if (playhead !== null && playhead >= vp.t0 && playhead <= vp.t1) {
			const x = Math.round(px0 + ((playhead - vp.t0) / (vp.t1 - vp.t0)) * W) + 0.5;
			ctx.strokeStyle = style.text;
			ctx.lineWidth = 1.5 * scene.layout.dpr;
			ctx.beginPath();
			ctx.moveTo(x, py0);
			ctx.lineTo(x, py0 + H);
			ctx.stroke();
		}
	}

	/** Everything; returns the pixel columns of cells computed. */
	private paintFull(ctx: CanvasRenderingContext2D, scene: HeatScene, geo: Geometry): number {
		const { grid, vp, style, layout } = scene;
		const { dpr } = layout;
		const { W, H, px0, py0, r0, r1, visibleRows, rowPx } = geo;
		ctx.setTransform(1, 0, 0, 1, 0, 0);
		ctx.fillStyle = style.background;
		ctx.fillRect(0, 0, ctx.canvas.width, ctx.canvas.height);
		if (this.cols.length !== W) this.cols = new Int32Array(W);
		decimateColumns(grid, vp.t0, vp.t1, W, undefined, this.cols);

		if (visibleRows > 0 && grid.length > 0) {
			if (!this.pixels || this.pixels.width !== W || this.pixels.height !== visibleRows) {
				this.pixels = new ImageData(W, visibleRows);
			}
			this.fillCells(scene, geo, 0, W - 1);
			this.scratchContext(W, visibleRows).putImageData(this.pixels, 0, 0);
			ctx.save();
			ctx.beginPath();
			ctx.rect(px0, py0, W, H);
			ctx.clip();
			this.blitCells(ctx, scene, geo, 0, W);
			this.drawLines(ctx, scene, geo, 0, W);
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
			if (r < r0) continue;
			const y = py0 + (r + 0.5 - vp.rowTop) * rowPx;
			if (y < py0 || y > py0 + H) continue;
			ctx.fillText(scene.formatStrike(grid.strikes[r]), px0 - 4 * dpr, y);
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
			ctx.fillText(scene.formatTime(t), x, py0 + H + 4 * dpr);
		}
		this.drawFrame(ctx, scene, geo);
		return visibleRows > 0 && grid.length > 0 ? W : 0;
	}

	/**
	 * After an append: the cells of pixel columns [a, b] again, then a strip wide enough for
	 * the line segments through them (a vertex every 2 px, half a line width of ink, round
	 * joins) repainted from the pixel buffer, clipped so nothing outside it changes.
	 */
	private paintStrip(
		ctx: CanvasRenderingContext2D,
		scene: HeatScene,
		geo: Geometry,
		[a, b]: [number, number]
	): void {
		const { W, H, px0, py0, visibleRows } = geo;
		this.fillCells(scene, geo, a, b);
		this.scratchContext(W, visibleRows).putImageData(
			this.pixels!,
			0,
			0,
			a,
			0,
			b - a + 1,
			visibleRows
		);
		const reach = 3 + Math.ceil(2 * scene.layout.dpr);
		const x0 = Math.max(0, a - reach);
		const x1 = Math.min(W, b + 1 + reach);
		ctx.setTransform(1, 0, 0, 1, 0, 0);
		ctx.save();
		ctx.beginPath();
		ctx.rect(px0 + x0, py0, x1 - x0, H);
		ctx.clip();
		ctx.fillStyle = scene.style.background;
		ctx.fillRect(px0 + x0, py0, x1 - x0, H);
		this.blitCells(ctx, scene, geo, x0, x1);
		// Segments whose ink reaches into the strip: start a vertex (and a line width) before it.
		let from = 0;
		for (let x = 0; x < x0 - reach; x = nextVertex(x, W)) from = x;
		this.drawLines(ctx, scene, geo, from, x1 + reach);
		this.drawFrame(ctx, scene, geo);
		ctx.restore();
	}
}

let shared: HeatmapPainter | undefined;

/** A one-off full draw (tests, benchmarks): everything painted, nothing remembered. */
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
	playhead: number | null = null
): DrawStats {
	shared ??= new HeatmapPainter();
	shared.invalidate();
	return shared.draw(ctx, {
		grid,
		vp,
		layout,
		style,
		lut,
		scaleMax,
		formatTime,
		formatStrike,
		playhead
	});
}
