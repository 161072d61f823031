/**
 * `npm run bench -- overview [--seconds 23400] [--strikes 400]`: the day overview (issue 26) on a
 * full recorded SPX day, before and after in one run.
 *
 * A full session (23,400 calculations x 400 strikes, one a second) is streamed through the real
 * SessionRecorder on an update tap, as the relay delivers frames: the recorder writes the raw
 * file and, as it goes, the overview. The chains are spxChain's (random per strike and second:
 * noise compresses worst, so the overview's bytes here are an upper bound of a real day's).
 *
 * Before: what the heatmap downloaded for a whole day, the raw backfill thinned to one frame per
 * 5 s (`/history/...?step=5`), and the levels path one per minute (`?step=60`). After: the
 * overview answer (`/history/.../overview`, gzip; the levels path its lines, `cells=none`). Also
 * the recorder's cost per frame, the overview's bytes on disk, its rebuild from the raw file,
 * the server's answer time and the page's decode (Node here; Chromium's is in the e2e numbers).
 * Classic's timeline on the day: its transfer, navigation to the histogram drawn at the day's
 * last moment, and the histogram drawn after a scrub. Every whole-day view is loaded `--repeat`
 * times on loopback (5: first, median, max), as returning visits (one browser context, its
 * caches warm) and also opened in-app (its day picked in its live
 * page); with `--before <checkout>` (a built checkout of an earlier commit) every view the same
 * way on that build, in the same run.
 *
 * Orderflow: the day's orderflow (one payload a second, spxOrderflow) is recorded beside it.
 * Before: the raw day the view read whole (`/history/SPX/orderflow_orderflow?day=`); in Chromium
 * the same page with its overview answered 404, so it reads the day the raw way, as it did.
 * After: its flow overview (10 s steps) and the live-edge/zoom reads only where needed.
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { gunzipSync } from 'node:zlib';
import { HeatmapGrid } from '../src/lib/charts/heatmap/heatmapGrid';
import { splitBackfill } from '../src/lib/relay/backfillBody';
import { decodeOverviewBody } from '../src/lib/relay/overviewBody';
import { overviewResponse } from '../src/lib/server/overview/overviewResponse';
import { answerBytes, backfillResponse } from '../src/lib/server/recorder/backfillResponse';
import { SessionRecorder } from '../src/lib/server/recorder/sessionRecorder';
import { UpdateTap } from '../src/lib/server/updates/tap';
import { spxChain, spxOrderflow } from '../src/lib/wire/arbitraries.test-support';
import { encodeFrame, initWireEncoder } from '../src/lib/wire/encode';
import { quantKey } from '../tests/integration/service-support';
import { drawnIn, pickDayDrawn, settledLongTasks, type InAppRun } from './overview.inapp';
import { classicScrubs } from './overview.scrub';
import type { Page } from '@playwright/test';
import { launchChromium, median, root as checkout, spawnBuiltDashboard } from './support';

const { values: flags } = parseArgs({
	options: {
		seconds: { type: 'string', default: '23400' },
		strikes: { type: 'string', default: '400' },
		// The page's CPU profile on loopback, navigation to drawn: the functions by self time.
		profile: { type: 'boolean', default: false },
		// Loopback navigations per view (each in a new browser context): the median is reported,
		// the first (a freshly started dashboard for the first view) beside it.
		repeat: { type: 'string', default: '5' },
		// Another checkout's build (an earlier commit): its whole-day views are measured on the
		// same day in the same run, the "before" rows.
		before: { type: 'string' }
	},
	strict: true
});
const SECONDS = Number(flags.seconds);
const REPEAT = Math.max(1, Number(flags.repeat));
const STRIKES = Number(flags.strikes);
const OPEN = 1795444200; // 2026-11-23 09:30 ET (14:30 UTC)
const DAY = '2026-11-23';
const STREAM = 'classic_gex_full';

await initWireEncoder();
const dataDir = mkdtempSync(join(tmpdir(), 'gexdeck-bench-overview-'));
// The dashboard's recordings folder, so the built dashboard serves this day below.
const root = join(dataDir, 'recordings');
const tap = new UpdateTap();
let recorder = new SessionRecorder({ root });
recorder.attach(tap);

// ---- record a full day -----------------------------------------------------------------------
// A chain of its own every second (repeated chains would flatter the overview's compression);
// the chain's making and encoding are not measured.
const recordMs: number[] = [];
for (let s = 0; s < SECONDS; s++) {
	const any = encodeFrame('gex', { ...spxChain(STRIKES, s + 1), timestamp: OPEN + s });
	const t = performance.now();
	tap.publish({ source: 'stream', group: `SPX_${STREAM}`, receivedAt: Date.now(), any });
	recordMs.push(performance.now() - t);
	const flow = encodeFrame('orderflow', spxOrderflow(OPEN, s));
	tap.publish({
		source: 'stream',
		group: 'SPX_orderflow_orderflow',
		receivedAt: Date.now(),
		any: flow
	});
}
const rawBytes = statSync(join(root, DAY, 'SPX', `${STREAM}.rec`)).size;
const overviewPath = recorder.overviews.pathOf(DAY, 'SPX', STREAM);
const overviewDisk = statSync(overviewPath).size + statSync(`${overviewPath}.idx`).size;
const opensStep = recordMs.filter((_, s) => (OPEN + s) % 10 === 0).sort((a, b) => a - b);
const inStep = recordMs.filter((_, s) => (OPEN + s) % 10 !== 0).sort((a, b) => a - b);

// ---- before: the raw day thinned to 5 s ------------------------------------------------------
let t = performance.now();
const before = await answerBytes(
	await backfillResponse(recorder, 'SPX', STREAM, new URLSearchParams(`day=${DAY}&step=5`))
);
const beforeMs = performance.now() - t;

t = performance.now();
const levelsBefore = await answerBytes(
	await backfillResponse(recorder, 'SPX', STREAM, new URLSearchParams(`day=${DAY}&step=60`))
);
const levelsBeforeMs = performance.now() - t;

const flowQuery = new URLSearchParams(`day=${DAY}`);
const flowBefore = await answerBytes(
	await backfillResponse(recorder, 'SPX', 'orderflow_orderflow', flowQuery)
);

// ---- after: the overview ---------------------------------------------------------------------
// Cold: the first answer of a recorder just opened (the overview file read and decoded whole).
recorder.close();
recorder = new SessionRecorder({ root });
t = performance.now();
const cpu0 = process.cpuUsage();
overviewResponse(recorder, 'SPX', STREAM, new URLSearchParams(`day=${DAY}`));
const coldMs = performance.now() - t;
// CPU time too: on a shared machine the wall time is mostly the wait for a core.
const coldCpu = process.cpuUsage(cpu0);
const coldCpuMs = (coldCpu.user + coldCpu.system) / 1000;
// The lines alone, cold (the levels path's and Classic's first answer): no cell is decoded.
recorder.close();
recorder = new SessionRecorder({ root });
const linesCpu0 = process.cpuUsage();
overviewResponse(recorder, 'SPX', STREAM, new URLSearchParams(`day=${DAY}&cells=none`));
const linesCpu = process.cpuUsage(linesCpu0);
const coldLinesCpuMs = (linesCpu.user + linesCpu.system) / 1000;
const levelsAfter = overviewResponse(
	recorder,
	'SPX',
	STREAM,
	new URLSearchParams(`day=${DAY}&cells=none`)
).body as Uint8Array;
const flowAfter = overviewResponse(recorder, 'SPX', 'orderflow_orderflow', flowQuery)
	.body as Uint8Array;
const rowsMs: number[] = [];
for (let i = 0; i < 3; i++) {
	t = performance.now();
	recorder.overviews.rows(DAY, 'SPX', STREAM);
	rowsMs.push(performance.now() - t);
}
const answerMs: number[] = [];
let body: Uint8Array = new Uint8Array();
for (let i = 0; i < 5; i++) {
	t = performance.now();
	const answer = overviewResponse(recorder, 'SPX', STREAM, new URLSearchParams(`day=${DAY}`));
	answerMs.push(performance.now() - t);
	body = answer.body as Uint8Array;
}
const inflated = gunzipSync(body);
const decodeMs: number[] = [];
const gridMs: number[] = [];
let columns = 0;
for (let i = 0; i < 5; i++) {
	t = performance.now();
	const o = decodeOverviewBody(inflated);
	decodeMs.push(performance.now() - t);
	t = performance.now();
	const grid = HeatmapGrid.fromBlock({ ...o, strikes: o.header.strikes });
	gridMs.push(performance.now() - t);
	columns = grid.length;
}

// ---- scrub: one record at a moment, read by the index -----------------------------------------
// Before, Classic showed a past day's moment only after reading the whole day (step=5, above);
// after, a scrubbed moment is one record (`from=to=<t>`), found by the recording's index.
const scrubAt = Array.from({ length: 20 }, (_, i) => OPEN + Math.floor(((i + 0.5) * SECONDS) / 20));
const scrubMs: number[] = [];
let scrubBytes = 0;
for (const at of scrubAt) {
	t = performance.now();
	const one = await answerBytes(
		await backfillResponse(
			recorder,
			'SPX',
			STREAM,
			new URLSearchParams(`day=${DAY}&from=${at}&to=${at}`)
		)
	);
	const entries = splitBackfill(one);
	scrubMs.push(performance.now() - t);
	if (entries.length !== 1) throw new Error(`scrub at ${at} read ${entries.length} records`);
	scrubBytes = one.length;
}

// ---- rebuild from the raw file ---------------------------------------------------------------
recorder.close();
rmSync(overviewPath);
rmSync(`${overviewPath}.idx`);
recorder = new SessionRecorder({ root });
t = performance.now();
const rebuilt = recorder.overviews.rows(DAY, 'SPX', STREAM)?.length ?? 0;
const rebuildMs = performance.now() - t;
recorder.close();

// ---- the page: a whole-day heatmap in Chromium, on loopback and on a 20 Mbit/s, 50 ms link ----
/** Builds whose pages do not say when the app started (one before it did): not waited for again. */
const unmarked = new Set<string>();

/**
 * When the app started on the page (the root layout's `data-started`, page clock from the
 * navigation), waited for up to 10 s; undefined for a build before it said so. A page the
 * server drew is on screen before it answers input: the scrub below waits for this.
 */
async function startedAt(page: Page, build: string): Promise<number | undefined> {
	if (unmarked.has(build)) return undefined;
	const said = await page
		.waitForFunction(() => document.documentElement.dataset.started ?? false, null, {
			timeout: 10_000
		})
		.then((h) => h.jsonValue() as Promise<string>)
		.catch(() => undefined);
	if (said === undefined) unmarked.add(build);
	return said === undefined ? undefined : Number(said);
}

interface PageRun {
	view: string;
	/** The view read its day the raw way (its overview answered 404), as before the overview. */
	before?: boolean;
	link: string;
	drawnMs: number;
	historyBytes: number;
	/** Overview answers loaded (1: the page's preload was the session's fetch). */
	overviewAsks: number;
	longTasks: number[];
	/** Page times (ms after navigation start): the app's document, the overview's request. */
	phases: { dcl: number; askedAt: number; firstByte: number; received: number; drawn: number };
	/** In the page: a scrubbed moment's one record fetched (ms, each of 10). */
	scrubMs: number[];
	/** Classic: the slider moved to a moment to its histogram drawn (ms, each of 10). */
	scrubDrawnMs: number[];
	/** Loopback: every navigation's drawn time and long tasks (the first is drawnMs's). */
	/**
	 * Every navigation's drawn time, its long tasks, and when the app started on the page (page
	 * clock; a page drawn by the server is on screen before it answers input; n/a before).
	 */
	repeats: { drawnMs: number; longTasks: number[]; startedMs?: number }[];
	/** Loopback: the day picked in the view's live page (a client-side navigation). */
	inApp: InAppRun[];
	/**
	 * Loopback: a returning visit, the same browser context loading the page again after a first
	 * visit (its HTTP cache and V8's code cache warm, as a trader's browser on the second day).
	 */
	returning: { drawnMs: number; longTasks: number[] }[];
}
let selfTimes: string[] = [];
/** The profile's functions by self time (ms), the 15 largest. */
function topSelfTimes(profile: {
	nodes: { id: number; callFrame: { functionName: string; url: string; lineNumber: number } }[];
	samples?: number[];
	timeDeltas?: number[];
}): string[] {
	const byNode = new Map(profile.nodes.map((n) => [n.id, n.callFrame]));
	const ms = new Map<string, number>();
	(profile.samples ?? []).forEach((id, i) => {
		const f = byNode.get(id)!;
		const key = `${f.functionName || '(anonymous)'} ${f.url.split('/').pop()}:${f.lineNumber + 1}`;
		ms.set(key, (ms.get(key) ?? 0) + (profile.timeDeltas?.[i] ?? 0) / 1000);
	});
	return [...ms]
		.sort((a, b) => b[1] - a[1])
		.slice(0, 15)
		.map(([k, v]) => `${v.toFixed(1)} ms ${k}`);
}
interface ViewRun {
	view: string;
	path: string;
	/** Drawn when every element's attribute is at least its minimum and `present` is there. */
	ready: { checks: { selector: string; attr: string; min: number }[]; present?: string };
	classic?: boolean;
	/** The page with its overview answered 404: it reads the raw day, as before the overview. */
	before?: boolean;
	/** The view's live page (no day), where the in-app navigation picks the day. */
	live?: string;
}
const steps = Math.floor(SECONDS / 10);
const lastAt = OPEN + SECONDS - 10;
const VIEWS: ViewRun[] = [
	{
		view: 'heatmap',
		path: `/SPX/heatmap/gex_full?day=${DAY}`,
		live: '/SPX/heatmap/gex_full',
		ready: { checks: [{ selector: '[data-testid=heatmap]', attr: 'data-columns', min: steps }] }
	},
	{
		view: 'levels path',
		path: `/levels/SPX?day=${DAY}`,
		live: '/levels/SPX',
		ready: { checks: [{ selector: '[data-testid=levels-path]', attr: 'data-points', min: steps }] }
	},
	{
		// Every step on the slider (before: one snapshot per 5 s, more) and the histogram drawn
		// at the day's last moment (before: its last 5 s snapshot).
		view: 'Classic',
		path: `/SPX/classic/gex_full?day=${DAY}`,
		live: '/SPX/classic/gex_full',
		ready: {
			checks: [
				{ selector: '[data-testid=replay-slider]', attr: 'max', min: steps - 1 },
				{ selector: '[data-testid=timestamp]', attr: 'data-unix', min: lastAt }
			],
			present: '[data-testid=histogram] .bar, [data-testid=histogram] path'
		},
		classic: true
	},
	...[true, false].map((before) => ({
		view: 'Orderflow series',
		before,
		path: `/SPX/orderflow?day=${DAY}`,
		live: before ? undefined : '/SPX/orderflow',
		// The raw day draws every second; its overview every 10 s step.
		ready: {
			checks: [
				{ selector: '[data-testid=timeline]', attr: 'data-points', min: before ? SECONDS : steps }
			]
		}
	}))
];

/** Init script: every long task's start and duration, kept in the page from its first task. */
function watchLongTasks(): void {
	const w = window as unknown as { __longTasks: { start: number; duration: number }[] };
	w.__longTasks = [];
	new PerformanceObserver((list) => {
		for (const e of list.getEntries())
			w.__longTasks.push({ start: e.startTime, duration: e.duration });
	}).observe({ type: 'longtask', buffered: true });
}

async function pageRuns(app: string, views: ViewRun[], label = ''): Promise<PageRun[]> {
	// A past day needs no upstream: an address where nothing answers keeps the service out.
	const dash = await spawnBuiltDashboard(app, {
		GEXDECK_DATA_DIR: dataDir,
		GEXDECK_UPSTREAM: 'http://127.0.0.1:9/v2',
		GEXDECK_API_KEY: quantKey()
	});
	const browser = await launchChromium();
	const runs: PageRun[] = [];
	try {
		for (const { view, path, ready, classic, before, live } of views)
			for (const link of ['loopback', '20 Mbit/s + 50 ms']) {
				const context = await browser.newContext();
				if (before) await context.route('**/overview?*', (r) => r.fulfill({ status: 404 }));
				await context.addInitScript(watchLongTasks);
				const page = await context.newPage();
				const cdp = await context.newCDPSession(page);
				await cdp.send('Network.enable');
				if (link !== 'loopback') {
					await cdp.send('Network.emulateNetworkConditions', {
						offline: false,
						latency: 50,
						downloadThroughput: 20e6 / 8,
						uploadThroughput: 20e6 / 8
					});
				}
				// Playwright's events, not the page's CDP session: they include the backfill worker's
				// fetches (a raw day, a scrubbed moment), which the page's CDP target does not see.
				let historyBytes = 0;
				let overviewAsks = 0;
				const sized: Promise<void>[] = [];
				page.on('requestfinished', (r) => {
					if (!r.url().includes('/history/')) return;
					if (r.url().includes('/overview')) overviewAsks++;
					sized.push(
						r.sizes().then((z) => void (historyBytes += z.responseBodySize + z.responseHeadersSize))
					);
				});
				if (flags.profile && link === 'loopback' && view === 'heatmap') {
					await cdp.send('Profiler.enable');
					await cdp.send('Profiler.setSamplingInterval', { interval: 200 });
					await cdp.send('Profiler.start');
				}
				const t0 = performance.now();
				// From the response on (not the load event): a page the server drew is drawn before
				// its scripts have loaded, and the check below then sees it.
				await page.goto(`${dash.base}${path}`, { timeout: 120_000, waitUntil: 'commit' });
				// The page's own clock at the first animation frame with every step drawn.
				const drawn = await drawnIn(page, ready);
				const drawnMs = performance.now() - t0;
				if (flags.profile && link === 'loopback' && view === 'heatmap') {
					const { profile } = await cdp.send('Profiler.stop');
					selfTimes = topSelfTimes(profile);
				}
				await page.waitForLoadState('load');
				const phases = await page.evaluate((end) => {
					const nav = performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming;
					const ask = performance
						.getEntriesByType('resource')
						.find((e) => e.name.includes('/overview')) as PerformanceResourceTiming | undefined;
					return {
						dcl: nav.domContentLoadedEventEnd,
						askedAt: ask?.startTime ?? Number.NaN,
						firstByte: ask?.responseStart ?? Number.NaN,
						received: ask?.responseEnd ?? Number.NaN,
						drawn: end
					};
				}, drawn);
				// What the view loaded to draw (read after a round trip to the page, so the overview's
				// requestfinished has arrived; the scrub's fetches below are not part of it).
				await Promise.all(sized);
				const drawnBytes = historyBytes;
				const startedMs = await startedAt(page, app);
				const scrubDrawnMs = classic ? await classicScrubs(page, OPEN, lastAt) : [];
				const scrubMs = await page.evaluate(
					async ({ day, moments }) => {
						const out: number[] = [];
						for (const at of moments) {
							const t = performance.now();
							const res = await fetch(
								`/history/SPX/classic_gex_full?day=${day}&from=${at}&to=${at}`
							);
							await res.arrayBuffer();
							out.push(performance.now() - t);
						}
						return out;
					},
					{ day: DAY, moments: scrubAt.slice(0, 10) }
				);
				const longTasks = await settledLongTasks(page, 0);
				runs.push({
					view: `${view}${label}`,
					before,
					link,
					drawnMs,
					historyBytes: drawnBytes,
					overviewAsks,
					longTasks,
					phases,
					scrubMs,
					scrubDrawnMs,
					repeats: [{ drawnMs, longTasks, startedMs }],
					inApp: [],
					returning: []
				});
				await context.close();
				if (link !== 'loopback') continue;
				const run = runs.at(-1)!;
				// A new context for the view (its overview answered 404 on a before run), and one full
				// load of it timed: navigation to drawn, with the long tasks of that document.
				const viewContext = async () => {
					const c = await browser.newContext();
					if (before) await c.route('**/overview?*', (r) => r.fulfill({ status: 404 }));
					await c.addInitScript(watchLongTasks);
					return c;
				};
				const timedLoad = async (p: Page) => {
					const t = performance.now();
					await p.goto(`${dash.base}${path}`, { timeout: 120_000, waitUntil: 'commit' });
					await drawnIn(p, ready);
					const drawnMs = performance.now() - t;
					const startedMs = await startedAt(p, app);
					return {
						drawnMs,
						longTasks: await settledLongTasks(p, 0),
						startedMs
					};
				};
				for (let i = 1; i < REPEAT; i++) {
					const again = await viewContext();
					run.repeats.push(await timedLoad(await again.newPage()));
					await again.close();
				}
				// Returning visits: one context, the page loaded once, then again REPEAT times (from
				// about:blank: a full load each time, with the caches a browser keeps between visits;
				// V8 caches a script's compiled code from its second load on).
				const home = await viewContext();
				const hp = await home.newPage();
				await timedLoad(hp);
				for (let i = 0; i < REPEAT; i++) {
					await hp.goto('about:blank');
					run.returning.push(await timedLoad(hp));
				}
				await home.close();
				for (let i = 0; live && i < REPEAT; i++) {
					const inApp = await browser.newContext();
					await inApp.addInitScript(watchLongTasks);
					run.inApp.push(await pickDayDrawn(await inApp.newPage(), dash.base, live, DAY, ready));
					await inApp.close();
				}
			}
	} finally {
		await browser.close();
		dash.proc.kill('SIGTERM');
	}
	return runs;
}
const runs = [
	...(flags.before
		? await pageRuns(
				flags.before,
				// Every view that reads an overview (not the raw-day row, the same on any build).
				VIEWS.filter((v) => !v.before),
				` (before: ${flags.before})`
			)
		: []),
	...(await pageRuns(checkout, VIEWS))
];
rmSync(dataDir, { recursive: true, force: true });

const mb = (n: number) => `${(n / 1024 ** 2).toFixed(2)} MB`;
const f = (x: number, d = 1) => x.toFixed(d);
const q = (xs: number[], p: number) => xs[Math.min(xs.length - 1, Math.floor(p * xs.length))];
console.log(
	`Full day: ${SECONDS} calculations x ${STRIKES} strikes, recorded through SessionRecorder`
);
console.log('');
console.log('| measure | before (raw, step 5) | after (overview, 10 s) | target |');
console.log('|---|---|---|---|');
console.log(
	`| whole-day heatmap transfer | ${mb(before.length)} (${Math.round(SECONDS / 5)} frames) | ${mb(body.length)} gzip (${mb(inflated.length)} inflated, ${columns} columns) | < 1 MB |`
);
console.log(
	`| server: answer asked again | ${f(beforeMs)} ms (read, body) | ${f(median(answerMs))} ms median of 5 (its body kept until the day grows; reading the rows again ${f(median(rowsMs))} ms) | - |`
);
console.log(
	`| page: decode + grid (Node) | (worker decode of every frame) | ${f(median(decodeMs))} + ${f(median(gridMs))} ms | draw < 300 ms after navigation |`
);
console.log(
	`| recorder per frame (median / p99), frame opening a step (with its overview row) | - | ${f(q(opensStep, 0.5), 3)} / ${f(q(opensStep, 0.99), 3)} ms | - |`
);
console.log(
	`| recorder per frame (median / p99), other frames | - | ${f(q(inStep, 0.5), 3)} / ${f(q(inStep, 0.99), 3)} ms | - |`
);
console.log(
	`| whole-day levels path transfer | ${mb(levelsBefore.length)} (${Math.round(SECONDS / 60)} frames, ${f(levelsBeforeMs)} ms) | ${(levelsAfter.length / 1024).toFixed(1)} KB gzip (the overview's lines, cells=none) | < 1 MB |`
);
console.log(`| on disk: raw day / overview | ${mb(rawBytes)} | ${mb(overviewDisk)} | - |`);
console.log(
	`| whole-day Orderflow series transfer | ${mb(flowBefore.length)} (the raw day, ${SECONDS} payloads) | ${(flowAfter.length / 1024).toFixed(1)} KB gzip (flow overview, ${Math.floor(SECONDS / 10)} steps) | < 1 MB |`
);
console.log(
	`| server: cold first overview answer (recorder just opened) | - | ${f(coldMs)} ms (CPU ${f(coldCpuMs)} ms; the lines alone, cells=none: CPU ${f(coldLinesCpuMs)} ms) | - |`
);
console.log(
	`| scrubbed moment: its chain read (answer + split, Node) | whole day first: ${f(beforeMs)} ms, ${mb(before.length)} | one record by the index: median ${f(median(scrubMs), 2)} ms, max ${f(Math.max(...scrubMs), 2)} ms, ${(scrubBytes / 1024).toFixed(1)} KB (20 moments) | histogram < 100 ms after the scrub |`
);
console.log(
	`| overview rebuilt from the raw file (missing or damaged) | - | ${f(rebuildMs, 0)} ms, ${rebuilt} rows | - |`
);
console.log('');
console.log(
	'| whole-day view in Chromium (navigation to every step drawn) | drawn | /history bytes (overview answers) | long tasks (> 50 ms) | target |'
);
console.log('|---|---|---|---|---|');
for (const r of runs) {
	console.log(
		`| ${r.view}${r.before ? ' (before: raw day)' : ''}, ${r.link} | ${f(r.drawnMs, 0)} ms | ${r.before ? `${mb(flowBefore.length)} (the raw day, read by the decode worker: its answer, as the Node row)` : `${mb(r.historyBytes)} (${r.overviewAsks})`} | ${r.longTasks.length ? r.longTasks.map((d) => f(d, 0)).join(', ') + ' ms' : 'none'} | ${r.link === 'loopback' ? '< 300 ms, no task > 50 ms' : r.view === 'heatmap' ? '< 1.5 s' : '-'} |`
	);
}
console.log('');
console.log(
	`| whole-day view, loopback, ${REPEAT} navigations each | full page load (new browser context): first / median / max | the app started (answers input), median | long tasks over 50 ms (all loads) | returning visit (same context, caches warm): median / max | its long tasks | day picked in the view's live page (client-side): median / max | its long tasks | target |`
);
console.log('|---|---|---|---|---|---|---|---|---|');
for (const r of runs.filter((r) => r.link === 'loopback')) {
	const loads = r.repeats.map((x) => x.drawnMs);
	const started = r.repeats.flatMap((x) => (x.startedMs === undefined ? [] : [x.startedMs]));
	const tasks = (xs: number[][]) => {
		const all = xs.flat();
		return all.length ? `${all.length}: ${all.map((d) => f(d, 0)).join(', ')} ms` : 'none';
	};
	const picks = r.inApp.map((x) => x.drawnMs);
	const back = r.returning.map((x) => x.drawnMs);
	console.log(
		`| ${r.view}${r.before ? ' (before: raw day)' : ''} | ${f(loads[0], 0)} / ${f(median(loads), 0)} / ${f(Math.max(...loads), 0)} ms | ${started.length ? `${f(median(started), 0)} ms` : 'n/a'} | ${tasks(r.repeats.map((x) => x.longTasks))} | ${back.length ? `${f(median(back), 0)} / ${f(Math.max(...back), 0)} ms` : '-'} | ${back.length ? tasks(r.returning.map((x) => x.longTasks)) : '-'} | ${picks.length ? `${f(median(picks), 0)} / ${f(Math.max(...picks), 0)} ms` : '-'} | ${picks.length ? tasks(r.inApp.map((x) => x.longTasks)) : '-'} | < 300 ms, no task > 50 ms |`
	);
}
console.log('');
console.log(
	'| where the time goes (page clock, ms after navigation start) | document loaded (DCL) | overview asked | first byte | received | drawn | scrub: one record fetched in the page (median / max of 10) |'
);
console.log('|---|---|---|---|---|---|---|');
for (const r of runs) {
	const p = r.phases;
	console.log(
		`| ${r.view}${r.before ? ' (before: raw day)' : ''}, ${r.link} | ${f(p.dcl, 0)} | ${f(p.askedAt, 0)} | ${f(p.firstByte, 0)} | ${f(p.received, 0)} | ${f(p.drawn, 0)} | ${f(median(r.scrubMs), 1)} / ${f(Math.max(...r.scrubMs), 1)} ms |`
	);
}
console.log('');
console.log(
	'| Classic: slider moved to the histogram drawn at that moment (10 moments) | median | max | target |'
);
console.log('|---|---|---|---|');
for (const r of runs.filter((r) => r.scrubDrawnMs.length > 0)) {
	console.log(
		`| ${r.view}, ${r.link} | ${f(median(r.scrubDrawnMs))} ms | ${f(Math.max(...r.scrubDrawnMs))} ms | ${r.link === 'loopback' ? '< 100 ms' : '-'} |`
	);
}
if (selfTimes.length) console.log(`\nPage CPU by self time (loopback):\n${selfTimes.join('\n')}`);
console.log(`\n(Node ${process.version}; spxChain data: random per strike and second)`);
