/**
 * Bundled by bench/render.bench.ts and run in Chromium: the Classic view's main-thread work per
 * streamed update, from the decoded frame the worker posts (a ColumnarGex with its typed arrays)
 * to the histogram painted: the view's value from the update, the histogram model, the
 * automatic strike window, and Histogram.svg.svelte's DOM update (flushSync), then style and
 * layout. Two sides in one page, taking turns block by block so both see the same machine:
 * `before` is the path as it was before issue 23 item 3 (bench/render.before/: the columns
 * turned back into REST rows, a model of row objects), `after` is the app's own code (the
 * columns as they arrived, a columnar model, the chart reading the window it draws).
 */
import { flushSync, mount, unmount, type Component } from 'svelte';
import Histogram from '../src/lib/charts/histogram/Histogram.svg.svelte';
import { defaultWindow, histogramModel, keyLevels } from '../src/lib/charts/histogram/classicChain';
import { gexColumns } from '../src/lib/live/streamFeed.svelte';
import type { StreamUpdate } from '../src/lib/stream';
import type { StrikeWindow } from '../src/lib/state/viewState';
import { spxChain } from '../src/lib/wire/arbitraries.test-support';
import { columnarGex, type ColumnarGex } from '../src/lib/wire/columnar';
import HistogramBefore from './render.before/Histogram.before.svelte';
import * as before from './render.before/model.before';

export interface PathRun {
	/** Update in hand -> model and window -> Svelte's DOM update, ms per update. */
	update: number[];
	/** The same plus style recalculation and layout. */
	withLayout: number[];
	/** Of `update`, the part before the chart: the view's value, model and window. */
	model: number[];
	bars: number;
}

type Side = 'before' | 'after';

interface Mounted {
	step: (u: StreamUpdate) => { t1: number };
	target: HTMLElement;
	app: Record<string, unknown>;
}

const nextFrame = () => new Promise<void>((r) => requestAnimationFrame(() => r()));

function mountSide(side: Side, full: boolean, first: StreamUpdate): Mounted {
	const target = document.createElement('div');
	target.style.width = '1280px';
	document.body.append(target);
	// Raw state, as on the page (the model is a $derived there): never a deep proxy.
	let model = $state.raw<unknown>(undefined);
	let window = $state.raw<StrikeWindow | null>(null);
	const fullWindow = (strikes: ArrayLike<number>): StrikeWindow => ({
		lo: strikes[0],
		hi: strikes[strikes.length - 1]
	});
	// What the page does per update (routes/[ticker]/classic/[category]/+page.svelte): the
	// stream feed's value, then `model` and `autoWindow` (40 strikes on a desktop).
	const derive =
		side === 'before'
			? (u: StreamUpdate) => {
					const chain = before.chainFromColumnar((u as { value: ColumnarGex }).value);
					const m = before.histogramModel(chain, 'vol');
					model = m;
					window = full
						? fullWindow(m.rows.map((r) => r.strike))
						: before.defaultWindow(m.rows, m.spot, 40, before.keyLevels(m));
				}
			: (u: StreamUpdate) => {
					const chain = gexColumns(u)!;
					const m = histogramModel(chain, 'vol');
					model = m;
					window = full
						? fullWindow(m.strikes)
						: defaultWindow(m.strikes, m.spot, 40, keyLevels(m));
				};
	derive(first);
	const props = {
		get model() {
			return model;
		},
		get window() {
			return window;
		},
		showLevels: true,
		showPriors: true,
		showMaxChange: true,
		metricLabel: 'by volume',
		onzoom: () => {}
	};
	const component = (side === 'before' ? HistogramBefore : Histogram) as unknown as Component<
		typeof props
	>;
	const app = mount(component, { target, props });
	flushSync();
	return {
		target,
		app,
		step: (u) => {
			derive(u);
			return { t1: performance.now() };
		}
	};
}

async function run(o: { updates: number; block: number; full: boolean }) {
	// Distinct 400-strike chains (a seed each, spot drifting) as the worker posts them: columns.
	const updates: StreamUpdate[] = Array.from({ length: 50 }, (_, i) => {
		const c = spxChain(400, i + 1);
		return {
			kind: 'gex',
			group: 'SPX_classic_gex_full',
			typeUrl: 'gex',
			value: columnarGex({ ...c, spot: c.spot + (i % 10) - 5, timestamp: c.timestamp + i })
		} as unknown as StreamUpdate;
	});
	const sides: Side[] = ['before', 'after'];
	const mounted = Object.fromEntries(
		sides.map((s) => [s, mountSide(s, o.full, updates[0])])
	) as Record<Side, Mounted>;
	await nextFrame();
	const out = Object.fromEntries(
		sides.map((s) => [s, { update: [], withLayout: [], model: [], bars: 0 } as PathRun])
	) as Record<Side, PathRun>;
	// Blocks of `block` updates per side, alternating, one update per animation frame; the
	// first block of each side is warm-up (JIT, first layout).
	const rounds = Math.ceil(o.updates / o.block) + 1;
	let n = 0;
	for (let round = 0; round < rounds; round++) {
		for (const side of round % 2 === 0 ? sides : [...sides].reverse()) {
			const m = mounted[side];
			for (let k = 0; k < o.block; k++) {
				const u = updates[n++ % updates.length];
				await new Promise<void>((done) =>
					requestAnimationFrame(() => {
						const t0 = performance.now();
						const { t1 } = m.step(u);
						flushSync();
						const t2 = performance.now();
						void m.target.getBoundingClientRect().height;
						void document.body.offsetHeight;
						const t3 = performance.now();
						if (round > 0) {
							out[side].model.push(t1 - t0);
							out[side].update.push(t2 - t0);
							out[side].withLayout.push(t3 - t0);
						}
						done();
					})
				);
			}
		}
	}
	for (const side of sides) {
		out[side].bars = Number(
			mounted[side].target.querySelector('g.bars')?.getAttribute('data-bars') ?? 0
		);
		void unmount(mounted[side].app);
		mounted[side].target.remove();
	}
	return out;
}

(globalThis as unknown as { renderPathBench: typeof run }).renderPathBench = run;
