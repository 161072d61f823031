/**
 * Bundled by bench/time.bench.ts for Chromium: (1) a backfill fetched and decoded in a worker,
 * then turned into the heatmap grid on the main thread; (2) the heatmap's first draw of that day
 * and of a synthetic 23,400 x 100 day on a 1280-pixel canvas; (3) appending one column and
 * drawing it, as the live view does every second (the component's HeatmapPainter, which repaints
 * only the changed pixel columns), against a full repaint per append, and checking that the
 * incremental canvas equals a full repaint pixel for pixel. Long tasks are observed throughout.
 */
import { HeatmapGrid, columnOfGex, type HeatColumn } from '../src/lib/charts/heatmap/heatmapGrid';
import { HeatmapPainter, drawHeatmap } from '../src/lib/charts/heatmap/heatmapRender';
import { HEAT_MARGINS, divergingLut, type HeatScene } from '../src/lib/charts/heatmap/heatmapScene';
import type { StreamUpdate } from '../src/lib/stream/transport/updates';

const longTasks: number[] = [];
new PerformanceObserver((list) => {
	for (const e of list.getEntries()) longTasks.push(e.duration);
}).observe({ type: 'longtask', buffered: true });

const style = {
	neg: '#ef5b5b',
	pos: '#2fbf71',
	mid: '#0e1116',
	spot: '#f5c542',
	zeroGamma: '#b48cff',
	text: '#8b949e',
	grid: '#30363d',
	background: '#0e1116'
};
const lut = divergingLut(style.neg, style.mid, style.pos);
const canvas = document.createElement('canvas');
const layout = { width: 1280, height: 480, dpr: 1, ...HEAT_MARGINS };
canvas.width = 1280;
canvas.height = 480;
document.body.append(canvas);
const ctx = canvas.getContext('2d')!;
const fmt = (x: number) => String(x);

function draw(grid: HeatmapGrid, t0: number, t1: number): number {
	const started = performance.now();
	drawHeatmap(
		ctx,
		grid,
		{ t0, t1, rowTop: 0, rowCount: grid.rows },
		layout,
		style,
		lut,
		grid.maxAbs,
		fmt,
		fmt
	);
	// Include the canvas work the browser defers to the next read.
	ctx.getImageData(0, 0, 1, 1);
	return performance.now() - started;
}

function syntheticDay(columns: number, strikes: number): HeatColumn[] {
	const open = 1795446000;
	const ks = Array.from({ length: strikes }, (_, i) => 7000 + i * 5);
	const out: HeatColumn[] = [];
	for (let c = 0; c < columns; c++) {
		const values = new Float64Array(strikes);
		for (let r = 0; r < strikes; r++)
			values[r] = Math.sin(c / 900 + r / 7) * 1e6 * (1 + r / strikes);
		out.push({
			timestamp: open + c,
			spot: 7200 + Math.sin(c / 2000) * 40,
			zeroGamma: 7180,
			majorPos: 7250,
			majorNeg: 7100,
			strikes: ks,
			values
		});
	}
	return out;
}

async function backfill(url: string, workerUrl: string) {
	const worker = new Worker(workerUrl, { type: 'module' });
	const started = performance.now();
	const reply = await new Promise<{
		updates: StreamUpdate[];
		fetchMs: number;
		decodeMs: number;
		corrupt: number;
	}>((resolve) => {
		worker.onmessage = (ev) => resolve(ev.data);
		worker.postMessage({ url });
	});
	const received = performance.now();
	const columns: HeatColumn[] = [];
	for (const u of reply.updates) if (u.kind === 'gex') columns.push(columnOfGex(u.value, 'vol'));
	const grid = HeatmapGrid.from(columns);
	const gridMs = performance.now() - received;
	const drawMs = draw(grid, grid.times[0], grid.times[grid.length - 1]);
	worker.terminate();
	return {
		updates: reply.updates.length,
		corrupt: reply.corrupt,
		fetchMs: reply.fetchMs,
		workerDecodeMs: reply.decodeMs,
		totalToFirstDrawMs: performance.now() - started,
		mainGridMs: gridMs,
		mainDrawMs: drawMs
	};
}

const tick = () => new Promise<void>((r) => setTimeout(r, 0));

async function heatmapDraws() {
	const cols = syntheticDay(23_400, 100);
	await tick();
	const buildStart = performance.now();
	const grid = HeatmapGrid.from(cols.slice(0, 23_000));
	const buildMs = performance.now() - buildStart;
	// Let the observer report the build's long task before the heatmap's own are counted.
	await new Promise((r) => setTimeout(r, 300));
	// Long tasks from here on are the heatmap's own (drawing and live appends).
	const seenBefore = longTasks.length;
	const t0 = grid.times[0];
	const t1 = t0 + 23_400;
	const first = draw(grid, t0, t1);
	const firsts: number[] = [first];
	for (let i = 0; i < 10; i++) {
		await tick();
		firsts.push(draw(grid, t0, t1));
	}
	// The live view: one painter per canvas, an append draws only what it changed.
	const painter = new HeatmapPainter();
	const scene = (): HeatScene => ({
		grid,
		vp: { t0, t1, rowTop: 0, rowCount: grid.rows },
		layout,
		style,
		lut,
		scaleMax: grid.maxAbs,
		formatTime: fmt,
		formatStrike: fmt,
		playhead: null
	});
	painter.draw(ctx, scene());
	const appends: number[] = [];
	const modes: Record<string, number> = {};
	for (let c = 23_000; c < 23_200; c++) {
		await tick();
		const s = performance.now();
		grid.append(cols[c]);
		const stats = painter.draw(ctx, scene());
		ctx.getImageData(0, 0, 1, 1);
		appends.push(performance.now() - s);
		modes[stats.mode] = (modes[stats.mode] ?? 0) + 1;
	}
	// The same appends with a full repaint each (the path before the painter), for the ratio.
	const fullAppends: number[] = [];
	for (let c = 23_200; c < 23_400; c++) {
		await tick();
		const s = performance.now();
		grid.append(cols[c]);
		draw(grid, t0, t1);
		fullAppends.push(performance.now() - s);
	}
	// The observer reports asynchronously; the check below is not a live path.
	await new Promise((r) => setTimeout(r, 200));
	const drawLongTasks = longTasks.slice(seenBefore);
	// Incremental paint equals a full repaint: append a last stretch incrementally, then compare
	// the canvas with a full repaint on a second canvas.
	const check = HeatmapGrid.from(cols.slice(0, 23_000));
	const other = document.createElement('canvas');
	other.width = canvas.width;
	other.height = canvas.height;
	const octx = other.getContext('2d')!;
	const checkScene = (): HeatScene => ({ ...scene(), grid: check, scaleMax: check.maxAbs });
	const checker = new HeatmapPainter();
	checker.draw(ctx, checkScene());
	for (let c = 23_000; c < 23_400; c++) {
		check.append(cols[c]);
		checker.draw(ctx, checkScene());
	}
	new HeatmapPainter().draw(octx, checkScene());
	const a = ctx.getImageData(0, 0, canvas.width, canvas.height).data;
	const b = octx.getImageData(0, 0, canvas.width, canvas.height).data;
	let differing = 0;
	let maxDiff = 0;
	for (let i = 0; i < a.length; i += 4) {
		const d = Math.max(
			Math.abs(a[i] - b[i]),
			Math.abs(a[i + 1] - b[i + 1]),
			Math.abs(a[i + 2] - b[i + 2])
		);
		if (d > 0) differing++;
		if (d > maxDiff) maxDiff = d;
	}
	return {
		buildMs,
		first,
		firsts,
		appends,
		fullAppends,
		modes,
		differing,
		maxDiff,
		drawLongTasks
	};
}

(globalThis as Record<string, unknown>).timeBench = { backfill, heatmapDraws, longTasks };
