/**
 * Bundled by bench/render.bench.ts and run in Chromium: mounts the Classic view's
 * Histogram.svg.svelte on a 1280 px wide page and times histogram updates, each a new
 * 400-strike chain's model assigned to the component's props, from the assignment through
 * Svelte's DOM update (flushSync), then through style and layout (a forced reflow). One update
 * per animation frame, as the stream delivers them, each inside its own frame callback.
 */
import { flushSync, mount, unmount } from 'svelte';
import Histogram from '../src/lib/charts/histogram/Histogram.svg.svelte';
import { histogramModel, type HistogramModel } from '../src/lib/charts/histogram/classicChain';
import { spxChain } from '../src/lib/wire/arbitraries.test-support';
import { columnarGex } from '../src/lib/wire/columnar';
import type { StrikeWindow } from '../src/lib/state/viewState';

export interface RenderRun {
	/** Script + DOM mutation, ms per update. */
	update: number[];
	/** The same plus style recalculation and layout. */
	withLayout: number[];
	/** histogramModel(chain) alone (the page derives it before the chart renders). */
	model: number[];
	bars: number;
	/** 'rects' (one element per bar) or 'paths' (a wide window's bars as three paths). */
	drawnAs: string;
	priorMarks: number;
}

const nextFrame = () => new Promise<void>((r) => requestAnimationFrame(() => r()));

async function run(o: {
	updates: number;
	window: 'full' | 'auto';
	priors: boolean;
}): Promise<RenderRun> {
	// Distinct chains (a seed each, spot drifting) so every update changes every bar.
	const chains = Array.from({ length: 50 }, (_, i) => {
		const c = spxChain(400, i + 1);
		return columnarGex({ ...c, spot: c.spot + (i % 10) - 5, timestamp: c.timestamp + i });
	});
	const models: HistogramModel[] = chains.map((c) => histogramModel(c, 'vol'));
	const strikes = models[0].strikes;
	const window: StrikeWindow =
		o.window === 'full'
			? { lo: strikes[0], hi: strikes[strikes.length - 1] }
			: { lo: 7040, hi: 7235 }; // 40 strikes around spot, the page's automatic window
	const target = document.createElement('div');
	target.style.width = '1280px';
	document.body.append(target);
	// Raw state, as on the page (the model is a $derived there): never a deep proxy.
	let model = $state.raw(models[0]);
	const props = {
		get model() {
			return model;
		},
		window,
		showLevels: true,
		showPriors: o.priors,
		showMaxChange: true,
		metricLabel: 'by volume',
		onzoom: () => {}
	};
	const app = mount(Histogram, { target, props });
	flushSync();
	await nextFrame();
	const update: number[] = [];
	const withLayout: number[] = [];
	const modelTimes: number[] = [];
	// Each update runs inside its own animation frame callback (the bench's trace reads their
	// thread CPU time); the first 20 are warm-up (JIT, first layout).
	await new Promise<void>((done) => {
		let i = 1;
		const step = () => {
			const t0 = performance.now();
			model = models[i % models.length];
			flushSync();
			const t1 = performance.now();
			void target.getBoundingClientRect().height;
			void document.body.offsetHeight;
			const t2 = performance.now();
			histogramModel(chains[i % chains.length], 'vol');
			const t3 = performance.now();
			if (i > 20) {
				update.push(t1 - t0);
				withLayout.push(t2 - t0);
				modelTimes.push(t3 - t2);
			}
			if (i++ < o.updates + 20) requestAnimationFrame(step);
			else done();
		};
		requestAnimationFrame(step);
	});
	const result: RenderRun = {
		update,
		withLayout,
		model: modelTimes,
		// Bars drawn, as rects or (wide windows) as paths: the chart says how many and which.
		bars: Number(target.querySelector('g.bars')?.getAttribute('data-bars') ?? 0),
		drawnAs: target.querySelector('g.bars')?.getAttribute('data-dense') ?? '',
		priorMarks: target.querySelectorAll('.prior').length
	};
	void unmount(app);
	target.remove();
	return result;
}

(globalThis as unknown as { histogramBench: typeof run }).histogramBench = run;
