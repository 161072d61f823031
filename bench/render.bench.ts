/**
 * Browser rendering costs, in Chromium launched as the e2e tests launch it (bench/support.ts).
 *
 * 0. Classic update path, before and after issue 23 item 3, in one run: the main-thread work per
 *    streamed update from the decoded frame the worker posts (columns) to the histogram painted
 *    (bench/renderPath.harness.svelte.ts; the pre-change path is kept in bench/render.before/).
 *    The two sides take turns in blocks of RENDER_PATH_BLOCK updates in the same page.
 * 1. Classic histogram update: Histogram.svg.svelte mounted on a harness page
 *    (bench/histogram.harness.svelte.ts), a new 400-strike chain's model assigned per animation
 *    frame; time from the assignment to after Svelte's DOM update (flushSync), and to after
 *    style and layout. Target: median under 4 ms for a 400-strike update.
 * 2. Long tasks with 150 memberships live: the built dashboard (`node scripts/start.js`) on the
 *    embedded service in its own process (25 tickers, an RTH session at speed 1, the Quant demo
 *    key), one tab on the streaming Classic view of SPX that also subscribes, through the
 *    page's stream (the relay and the decode worker, which records everything into the
 *    IndexedDB ring), classic gex_full, state gex_full and orderflow of all 25 tickers: 75
 *    groups, 150 hub-and-group memberships with spot. PerformanceObserver('longtask') collects
 *    for 60 s. Target: none over 50 ms.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { ALL_TICKERS } from '../src/lib/contract/tickers';
import { demoAccountsFor } from '../src/service/accounts/demo';
import type { RenderRun } from './histogram.harness.svelte';
import type { PathRun } from './renderPath.harness.svelte';
import {
	bundleForBrowser,
	launchChromium,
	quantile,
	root,
	serveFiles,
	spawnService,
	startDashboard,
	upstreamEnv
} from './support';

const UPDATES = Number(process.env.RENDER_BENCH_UPDATES ?? 300);
const PATH_BLOCK = Number(process.env.RENDER_PATH_BLOCK ?? 25);
const LONGTASK_SECONDS = Number(process.env.LONGTASK_BENCH_SECONDS ?? 60);
const { values: flags } = parseArgs({
	options: { before: { type: 'string' } },
	strict: false,
	allowPositionals: true
});
const BEFORE = typeof flags.before === 'string' ? flags.before : undefined;
const TICKERS = ['SPX', ...ALL_TICKERS.filter((t) => t !== 'SPX').slice(0, 24)];

const f = (x: number, d = 2) => x.toFixed(d);
const stats = (xs: number[]) => {
	const s = [...xs].sort((a, b) => a - b);
	return `${f(quantile(s, 0.5))} / ${f(quantile(s, 0.95))}`;
};

/** One tree of sources the histogram cases run from: this checkout, or a past commit's. */
interface Tree {
	side: string;
	from: string;
}

/** The sources (src/, bench/) of commit `rev` in a temporary folder, for --before. */
function treeAt(rev: string): Tree {
	const dir = mkdtempSync(join(tmpdir(), 'gexdeck-bench-before-'));
	const tar = execFileSync('git', ['archive', '--format=tar', rev, 'src', 'bench'], {
		cwd: root,
		maxBuffer: 512 * 1024 * 1024
	});
	execFileSync('tar', ['-x', '-C', dir], { input: tar });
	// The generated wire code is a build output (npm run proto), not in git: this checkout's,
	// when proto/ is the same at `rev` (else the comparison would mix two wire formats).
	const protoDiff = execFileSync('git', ['diff', '--stat', rev, '--', 'proto/'], { cwd: root });
	if (protoDiff.length > 0) throw new Error(`proto/ changed since ${rev}: run the bench there`);
	cpSync(join(root, 'src/lib/proto/generated'), join(dir, 'src/lib/proto/generated'), {
		recursive: true
	});
	return { side: `before (${rev})`, from: dir };
}

async function histogramUpdates(trees: Tree[]) {
	const dir = mkdtempSync(join(tmpdir(), 'gexdeck-bench-render-'));
	const files: Record<string, string> = {};
	for (const [i, t] of trees.entries()) {
		await bundleForBrowser('bench/histogram.harness.svelte.ts', join(dir, `${i}.js`), t.from);
		files[`/${i}`] =
			`<!doctype html><meta charset="utf-8"><title>histogram bench</title><body style="margin:0"><script type="module" src="/${i}.js"></script>`;
		files[`/${i}.js`] = readFileSync(join(dir, `${i}.js`), 'utf8');
	}
	const site = await serveFiles(files);
	const browser = await launchChromium();
	try {
		// One page per tree in the same browser; the trees take turns case by case (two rounds
		// each when compared), so a change in the machine's load falls on both.
		const pages = [];
		for (const i of trees.keys()) {
			const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
			await page.goto(`${site.origin}/${i}`);
			await page.waitForFunction(() => 'histogramBench' in globalThis);
			pages.push(page);
		}
		const cases = [
			{ name: '400 strikes in the window, priors on', window: 'full', priors: true },
			{ name: '400 strikes in the window, priors off', window: 'full', priors: false },
			{
				name: 'automatic 40-strike window of a 400-strike chain, priors on',
				window: 'auto',
				priors: true
			}
		] as const;
		const rounds = trees.length > 1 ? 2 : 1;
		const out: { name: string; side: string; run: RenderRun; cpu: number[] }[] = [];
		for (const c of cases) {
			for (let round = 0; round < rounds; round++) {
				for (const [i, page] of pages.entries()) {
					await page.bringToFront();
					// The trace gives each frame callback's thread CPU time (tdur): the update's own
					// cost, whatever else the shared machine runs meanwhile (wall times include
					// preemption).
					await browser.startTracing(page, { categories: ['devtools.timeline'] });
					const run = await page.evaluate(
						(o) =>
							(
								globalThis as unknown as {
									histogramBench: (o: unknown) => Promise<RenderRun>;
								}
							).histogramBench(o),
						{ updates: UPDATES, window: c.window, priors: c.priors }
					);
					const trace = JSON.parse((await browser.stopTracing()).toString('utf8')) as {
						traceEvents: { name: string; ph: string; ts: number; tdur?: number }[];
					};
					const cpu = trace.traceEvents
						.filter((e) => e.name === 'FireAnimationFrame' && e.ph === 'X' && e.tdur !== undefined)
						.sort((a, b) => a.ts - b.ts)
						.slice(-UPDATES)
						.map((e) => e.tdur! / 1000);
					const seen = out.find((o) => o.name === c.name && o.side === trees[i].side);
					if (!seen) out.push({ name: c.name, side: trees[i].side, run, cpu });
					else {
						seen.run.update.push(...run.update);
						seen.run.withLayout.push(...run.withLayout);
						seen.run.model.push(...run.model);
						seen.cpu.push(...cpu);
					}
				}
			}
		}
		return out;
	} finally {
		await browser.close();
		site.close();
		rmSync(dir, { recursive: true, force: true });
	}
}

async function updatePath() {
	const dir = mkdtempSync(join(tmpdir(), 'gexdeck-bench-render-path-'));
	await bundleForBrowser('bench/renderPath.harness.svelte.ts', join(dir, 'harness.js'));
	const site = await serveFiles({
		'/': '<!doctype html><meta charset="utf-8"><title>update path bench</title><body style="margin:0"><script type="module" src="/harness.js"></script>',
		'/harness.js': readFileSync(join(dir, 'harness.js'), 'utf8')
	});
	const browser = await launchChromium();
	try {
		const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
		await page.goto(site.origin + '/');
		await page.waitForFunction(() => 'renderPathBench' in globalThis);
		const out: { name: string; sides: Record<'before' | 'after', PathRun> }[] = [];
		for (const c of [
			{ name: 'automatic 40-strike window (the page default)', full: false },
			{ name: 'all 400 strikes in the window', full: true }
		]) {
			const sides = await page.evaluate(
				(o) =>
					(
						globalThis as unknown as {
							renderPathBench: (o: unknown) => Promise<Record<'before' | 'after', PathRun>>;
						}
					).renderPathBench(o),
				{ updates: UPDATES, block: PATH_BLOCK, full: c.full }
			);
			out.push({ name: c.name, sides });
		}
		return out;
	} finally {
		await browser.close();
		site.close();
		rmSync(dir, { recursive: true, force: true });
	}
}

const median = (xs: number[]) =>
	quantile(
		[...xs].sort((a, b) => a - b),
		0.5
	);
const path = await updatePath();
console.log(
	`Classic view, main-thread work per streamed update of a 400-strike chain, from the decoded frame (columns, as the worker posts them) to the histogram painted; Chromium, ${UPDATES} updates per side, sides alternating in blocks of ${PATH_BLOCK}\n`
);
console.log(
	'| window | side | value + model + window ms (median / p95) | + DOM update ms (median / p95) | + style & layout ms (median / p95) | bars |'
);
console.log('|---|---|---|---|---|---|');
for (const { name, sides } of path) {
	for (const side of ['before', 'after'] as const) {
		const r = sides[side];
		console.log(
			`| ${name} | ${side} | ${stats(r.model)} | ${stats(r.update)} | ${stats(r.withLayout)} | ${r.bars} |`
		);
	}
	const ratio = median(sides.after.update) / median(sides.before.update);
	console.log(`| ${name} | after / before (DOM update median) | | ${f(ratio, 2)} | | |`);
}
console.log('');

// RENDER_PATH_ONLY=1: the update path alone (before/after of the payload shape).
if (process.env.RENDER_PATH_ONLY) process.exit(0);

// --before <commit>: the histogram cases also run from that commit's sources, in the same browser
// and run (issue 25's before: ce896f9, the commit before its first change).
const trees: Tree[] = [{ side: 'now', from: root }];
if (BEFORE) trees.unshift(treeAt(BEFORE));
const histogram = await histogramUpdates(trees);
for (const t of trees) if (t.from !== root) rmSync(t.from, { recursive: true, force: true });
console.log(`Classic histogram update (Histogram.svg.svelte), Chromium, ${UPDATES} updates each\n`);
console.log(
	'| case | sources | bars (drawn as) / prior marks | DOM update ms, wall (median / p95) | + style & layout ms, wall (median / p95) | update frame CPU ms, thread time (median / p95, n) | histogramModel ms (median) | target |'
);
console.log('|---|---|---|---|---|---|---|---|');
for (const { name, side, run, cpu } of histogram) {
	const m = [...run.model].sort((a, b) => a - b);
	console.log(
		`| ${name} | ${side} | ${run.bars} (${run.drawnAs}) / ${run.priorMarks} | ${stats(run.update)} | ${stats(run.withLayout)} | ${stats(cpu)}, ${cpu.length} | ${f(quantile(m, 0.5), 3)} | < 4 ms median |`
	);
}
console.log(
	`\nWall times include any preemption on the shared machine (load average ${loadavg()
		.map((x) => x.toFixed(1))
		.join(
			' / '
		)} on ${cpus().length} cores when this ran); the frame CPU column is the renderer main thread's own time for the frame callback that assigns the model, flushes and forces style and layout.`
);

// ---- 2. long tasks with 150 memberships live ------------------------------------------------

/** The parts of a PerformanceLongAnimationFrameTiming the bench reads (no DOM lib type yet). */
interface LoafEntry {
	startTime: number;
	duration: number;
	renderStart: number;
	styleAndLayoutStart: number;
	scripts: {
		invoker: string;
		sourceURL: string;
		sourceFunctionName: string;
		duration: number;
	}[];
}

interface LongFrame {
	start: number;
	duration: number;
	styleAndLayout: number;
	script: string;
}

interface PageStream {
	subscribe(groups: string[]): Promise<{ type: string; refused?: { group: string }[] }>;
	status?: { usage: { used: number; limit: number; perHub: Record<string, number> } };
	batches: number;
	refused: { group: string; reason: string }[];
}

async function longTasks() {
	const serviceDir = mkdtempSync(join(tmpdir(), 'gexdeck-bench-lt-service-'));
	const dashDir = mkdtempSync(join(tmpdir(), 'gexdeck-bench-lt-dash-'));
	const service = await spawnService({ dataDir: serviceDir, tickers: TICKERS, seed: 5 });
	const key = demoAccountsFor(serviceDir).accounts.find((a) => a._id === 'demo-quant')!.keys[0].key;
	// The tab alone holds the account's 150 memberships: nothing recorded without a tab (the
	// default always-record list would hold memberships of its own on the same slot).
	writeFileSync(
		join(dashDir, 'recording.json'),
		JSON.stringify({ version: 1, alwaysRecord: [], retentionDays: 20, maxBytes: 5 * 1024 ** 3 })
	);
	const dashboard = await startDashboard(upstreamEnv({ baseUrl: service.url, key }, dashDir));
	const browser = await launchChromium();
	try {
		const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
		await page.addInitScript(() => {
			const g = globalThis as unknown as {
				longTasks: { start: number; duration: number }[];
				longFrames: LongFrame[];
			};
			g.longTasks = [];
			g.longFrames = [];
			new PerformanceObserver((list) => {
				for (const e of list.getEntries())
					g.longTasks.push({ start: e.startTime, duration: e.duration });
			}).observe({ type: 'longtask', buffered: true });
			// Long animation frames say what ran in a long task (script, style and layout).
			new PerformanceObserver((list) => {
				for (const e of list.getEntries() as unknown as LoafEntry[]) {
					if (e.duration <= 50) continue;
					const top = [...e.scripts].sort((a, b) => b.duration - a.duration)[0];
					g.longFrames.push({
						start: e.startTime,
						duration: e.duration,
						styleAndLayout:
							e.renderStart && e.styleAndLayoutStart
								? e.startTime + e.duration - e.styleAndLayoutStart
								: 0,
						script: top
							? `${top.invoker} ${top.sourceFunctionName || ''} (${top.sourceURL.split('/').pop()}) ${Math.round(top.duration)} ms`
							: 'no script'
					});
				}
			}).observe({ type: 'long-animation-frame', buffered: true });
		});
		await page.goto(`${dashboard.base}/SPX/classic/gex_full`);
		await page.waitForSelector('[data-testid="feed-mode"][data-mode="stream"]', {
			timeout: 60_000
		});
		const groups = TICKERS.flatMap((t) => [
			`${t}_classic_gex_full`,
			`${t}_state_gex_full`,
			`${t}_orderflow_orderflow`
		]).filter((g) => g !== 'SPX_classic_gex_full');
		const reply = await page.evaluate(
			(groups) =>
				(globalThis as unknown as { gexdeckStream: PageStream }).gexdeckStream.subscribe(groups),
			groups
		);
		if (reply.type !== 'subscribed' || (reply.refused?.length ?? 0) > 0) {
			throw new Error(`subscription refused: ${JSON.stringify(reply)}`);
		}
		// Every hub connected and delivering, then a few seconds of warm-up.
		await page.waitForFunction(
			() =>
				(globalThis as unknown as { gexdeckStream: PageStream }).gexdeckStream.status?.usage
					.used === 150,
			null,
			{ timeout: 60_000 }
		);
		await page.waitForTimeout(5_000);
		const before = await page.evaluate(() => {
			const g = globalThis as unknown as {
				gexdeckStream: PageStream;
				longTasks: unknown[];
			};
			return { at: performance.now(), batches: g.gexdeckStream.batches };
		});
		await page.waitForTimeout(LONGTASK_SECONDS * 1000);
		const after = await page.evaluate((from) => {
			const g = globalThis as unknown as {
				gexdeckStream: PageStream;
				longTasks: { start: number; duration: number }[];
				longFrames: LongFrame[];
			};
			return {
				frames: g.longFrames.filter((t) => t.start >= from),
				at: performance.now(),
				batches: g.gexdeckStream.batches,
				tasks: g.longTasks.filter((t) => t.start >= from).map((t) => t.duration),
				usage: g.gexdeckStream.status!.usage,
				refused: g.gexdeckStream.refused.length,
				timestamp: document.querySelector('[data-testid="timestamp"]')?.textContent ?? '',
				mode: document.querySelector('[data-testid="feed-mode"]')?.getAttribute('data-mode')
			};
		}, before.at);
		await page.screenshot({ path: join(tmpdir(), 'gexdeck-bench-longtasks.png') });
		// Control: the observer does report a long task (an 80 ms busy loop in a page task; code
		// that page.evaluate runs directly is not a scheduled task and is never reported).
		const observed = await page.evaluate(async () => {
			const g = globalThis as unknown as { longTasks: { duration: number }[] };
			const n = g.longTasks.length;
			setTimeout(() => {
				const end = performance.now() + 80;
				while (performance.now() < end);
			}, 0);
			await new Promise((r) => setTimeout(r, 1000));
			return g.longTasks.slice(n).some((t) => t.duration >= 80);
		});
		return {
			seconds: (after.at - before.at) / 1000,
			batchesPerSecond: ((after.batches - before.batches) * 1000) / (after.at - before.at),
			observed,
			from: before.at,
			...after
		};
	} finally {
		await browser.close();
		await dashboard.stop();
		await service.stop();
		rmSync(serviceDir, { recursive: true, force: true });
		rmSync(dashDir, { recursive: true, force: true });
	}
}

// LONGTASK_BENCH_SECONDS=0 measures the histogram only (e.g. a before/after of a chart change).
if (LONGTASK_SECONDS > 0) {
	const lt = await longTasks();
	const tasks = [...lt.tasks].sort((a, b) => a - b);
	const over50 = tasks.filter((d) => d > 50).length;
	console.log(
		`\nLong tasks on the streaming Classic view with ${lt.usage.used} memberships live (${Object.entries(
			lt.usage.perHub
		)
			.map(([h, n]) => `${h} ${n}`)
			.join(', ')}), ${f(lt.seconds, 1)} s\n`
	);
	console.log('| measure | value | target |');
	console.log('|---|---|---|');
	console.log(
		`| long tasks (> 50 ms by definition): count / max / total | ${tasks.length} / ${f(tasks.at(-1) ?? 0, 0)} ms / ${f(
			tasks.reduce((a, b) => a + b, 0),
			0
		)} ms | none over 50 ms |`
	);
	console.log(`| long tasks over 50 ms | ${over50} | 0 |`);
	console.log(
		`| control: an 80 ms busy loop is reported by the observer | ${lt.observed ? 'yes' : 'NO (numbers above are void)'} | yes |`
	);
	for (const fr of [...lt.frames].sort((a, b) => b.duration - a.duration).slice(0, 3)) {
		console.log(
			`| long animation frame at ${f(fr.start / 1000 - lt.from / 1000, 1)} s: ${f(fr.duration, 0)} ms | longest script: ${fr.script}; style & layout ${f(fr.styleAndLayout, 0)} ms | - |`
		);
	}
	console.log(
		`| update batches reaching the page per s | ${f(lt.batchesPerSecond, 1)} | <= 1 per animation frame |`
	);
	console.log(
		`| feed mode at the end / refused groups / data time shown | ${lt.mode} / ${lt.refused} / ${lt.timestamp} | stream / 0 / advancing |`
	);
}
