/**
 * Draws a HeatmapGrid on a 2D canvas: cells decimated to one sample per device pixel column
 * (the last calculation at or before that pixel's time, i.e. the state at that moment), coloured
 * on a diverging scale centred at 0 through a 256-entry lookup table, written as one ImageData
 * of (plot width x visible rows) and scaled up; then the spot path, zero gamma and the majors as
 * lines, and the axes. Cost is O(plot width x visible rows) whatever the day's length; a live
 * append repaints only the pixel columns it changed (HeatmapPainter), so it costs O(rows).
 * The scene, its layout and the pixel arithmetic are in heatmapScene.ts.
 */
import type { HeatmapGrid } from './heatmapGrid';
import {
	decimateColumns,
	dirtyPixels,
	geometryOf,
	nextVertex,
	niceStep,
	rowOfPrice,
	sameFields,
	type DrawStats,
	type Geometry,
	type HeatLayout,
	type HeatScene,
	type HeatStyle,
	type HeatViewport
} from './heatmapScene';

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
			scene.sessionEnd === last.sessionEnd &&
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
		const ladder = grid.ladder;
		const inv = scaleMax > 0 ? 127.5 / scaleMax : 0;
		const cols = this.cols;
		for (let x = x0; x <= x1; x++) {
			const col = cols[x];
			if (col < 0) {
				for (let r = 0; r < visibleRows; r++) px[r * W + x] = 0;
				continue;
			}
			const base = col * rows;
			for (let r = 0; r < visibleRows; r++) {
				const v = values[base + ladder[r0 + r]];
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
		// The majors run over cells of their own colour (major − over red): each dash gets a
		// casing in the background colour so the line stays visible on any cell.
		line(grid.majorPos, style.background, 3.5, [2, 3]);
		line(grid.majorPos, style.pos, 1.5, [2, 3]);
		line(grid.majorNeg, style.background, 3.5, [2, 3]);
		line(grid.majorNeg, style.neg, 1.5, [2, 3]);
		line(grid.zeroGamma, style.zeroGamma, 1.5, [6, 4]);
		line(grid.spot, style.spot, 2, []);
		ctx.setLineDash([]);
		ctx.lineDashOffset = 0;
	}

	private drawFrame(ctx: CanvasRenderingContext2D, scene: HeatScene, geo: Geometry) {
		const { vp, style, playhead, sessionEnd } = scene;
		const { px0, py0, W, H } = geo;
		ctx.strokeStyle = style.grid;
		ctx.lineWidth = 1;
		ctx.lineJoin = 'miter';
		ctx.strokeRect(px0 + 0.5, py0 + 0.5, W - 1, H - 1);
		if (sessionEnd != null && sessionEnd >= vp.t0 && sessionEnd <= vp.t1) {
			// The session's end as a marker, not hours of empty axis.
			const x = Math.round(px0 + ((sessionEnd - vp.t0) / (vp.t1 - vp.t0)) * W) + 0.5;
			ctx.strokeStyle = style.text;
			ctx.setLineDash([3 * scene.layout.dpr, 3 * scene.layout.dpr]);
			ctx.beginPath();
			ctx.moveTo(x, py0);
			ctx.lineTo(x, py0 + H);
			ctx.stroke();
			ctx.setLineDash([]);
			ctx.fillStyle = style.text;
			ctx.textAlign = 'right';
			ctx.textBaseline = 'top';
			ctx.fillText('close', x - 3 * scene.layout.dpr, py0 + 3 * scene.layout.dpr);
		}
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
		// Round prices every ~24 px or more: readable, and text is the costliest thing drawn.
		const priceStep = niceStep((24 * dpr * grid.ladderStep) / rowPx);
		const top = grid.priceOfLadderRow(vp.rowTop);
		for (let p = Math.floor(top / priceStep) * priceStep; ; p -= priceStep) {
			const r = grid.ladderRowOf(p);
			if (r >= r1) break;
			const y = py0 + (r + 0.5 - vp.rowTop) * rowPx;
			if (r < r0 || y < py0 || y > py0 + H) continue;
			ctx.fillText(scene.formatStrike(p), px0 - 4 * dpr, y);
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
