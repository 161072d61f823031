/**
 * `npm run bench -- workspace [--seconds 20] [--profile]`: the workspace's cost (issue 28 item 6).
 *
 * The embedded service runs in this process with its hubs (startHubService, 50 simulated
 * tickers); the built dashboard (`node build`: run `npm run build` first) relays it, with a past
 * SPX day (2,340 calculations of 400 strikes, one per 10 s) recorded into its data folder through
 * the real SessionRecorder, as tests/e2e/overviewDay.spec.ts records one, with its Orderflow.
 *
 * Streaming: one Chromium tab opens the Index trio (six panels: SPX, NDX and SPY, each one's
 * Classic over its heatmap); once they paint, a Node viewer of /stream asks for every ticker's
 * Classic and Orderflow groups, so the account's relay holds its membership limit (150, spot
 * included; the groups past it are refused). For N seconds: the main thread's long tasks
 * (PerformanceObserver 'longtask': every task of 50 ms or more; target none), the per-update
 * work (the page's existing tick-to-pixel marks, src/lib/stream/transport/latencyMarks.ts: from
 * the worker's post to the animation frame after the page applied the update, per group), and
 * the frames per second (requestAnimationFrame callbacks).
 *
 * Replay: a second tab opens six panels of one group on the recorded day (Classic twice,
 * heatmap, Orderflow, levels, price), presses the heatmap's play (60x) and samples, every
 * 200 ms, the group's moment (the heatmap's scrubber: the group's `at`, which every panel
 * follows) and each timed panel's drawn moment. Pace = the moment's advance per wall second
 * (target 60 s within 10%); lag = the group's moment minus the panel's drawn one.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import WebSocket from 'ws';
import { ORDERFLOW_FIELDS } from '../src/lib/contract/orderflowFields';
import type { OrderflowBody } from '../src/lib/contract/schemas';
import { ALL_TICKERS } from '../src/lib/contract/tickers';
import { SessionRecorder } from '../src/lib/server/recorder/sessionRecorder';
import { UpdateTap } from '../src/lib/server/updates/tap';
import { PAINTED_MARK, type PaintedDetail } from '../src/lib/stream/transport/latencyMarks';
import { spxChain } from '../src/lib/wire/arbitraries.test-support';
import { encodeFrame, initWireEncoder } from '../src/lib/wire/encode';
import { STARTER_LAYOUTS } from '../src/lib/state/workspace';
import { quantKey, startHubService } from '../tests/integration/service-support';
import { launchChromium, quantile, root, startDashboard } from './support';

const { values: flags } = parseArgs({
	options: {
		seconds: { type: 'string', default: '20' },
		// The replaying page's CPU profile while it plays: the functions by self time.
		profile: { type: 'boolean', default: false }
	},
	strict: true
});
const SECONDS = Number(flags.seconds);
// The Index trio's three and 47 others.
const TRIO = ['SPX', 'NDX', 'SPY'];
const TICKERS = [...TRIO, ...ALL_TICKERS.filter((t) => !TRIO.includes(t)).slice(0, 47)];
const OPEN = 1794839400; // 2026-11-16 09:30 ET (14:30 UTC), the recorded past day
const DAY = '2026-11-16';
const STEPS = 2340;

if (!existsSync(join(root, 'build', 'index.js'))) {
	console.error('workspace bench: no build/ (run `npm run build` first)');
	process.exit(2);
}

// ---- the recorded day ------------------------------------------------------------------------
/** An Orderflow body of SPX at `ts` (its numbers vary by the second; the levels stay put). */
function orderflow(ts: number): OrderflowBody {
	const body: Record<string, number | string> = { timestamp: ts, ticker: 'SPX', spot: 7101.25 };
	ORDERFLOW_FIELDS.forEach((f, i) => {
		body[f.rest] = f.scale.type === 'uint32' ? 7000 + i * 5 : ((ts * 37 + i * 11) % 2001) - 1000.5;
	});
	return body as OrderflowBody;
}
await initWireEncoder();
const dataDir = mkdtempSync(join(tmpdir(), 'gexdeck-bench-workspace-'));
const recorder = new SessionRecorder({ root: join(dataDir, 'recordings') });
const tap = new UpdateTap();
recorder.attach(tap);
for (let s = 0; s < STEPS; s++) {
	const any = encodeFrame('gex', { ...spxChain(400, s + 1), timestamp: OPEN + s * 10 });
	tap.publish({ source: 'stream', group: 'SPX_classic_gex_full', receivedAt: Date.now(), any });
	const flow = encodeFrame('orderflow', orderflow(OPEN + s * 10));
	tap.publish({
		source: 'stream',
		group: 'SPX_orderflow_orderflow',
		receivedAt: Date.now(),
		any: flow
	});
}
recorder.close();

const svc = await startHubService({
	tickers: [...TICKERS],
	start: '2026-11-18T15:00:00Z',
	seed: 5
});
const dash = await startDashboard(
	{ GEXDECK_UPSTREAM: svc.service.url, GEXDECK_API_KEY: quantKey(), GEXDECK_DATA_DIR: dataDir },
	'build'
);

/** Set before any page script: the tick-to-pixel marks, a long-task log and a frame counter. */
const PROBE = `
globalThis.__gexdeckLatencyMarks = true;
globalThis.__ws = { long: [], longAt: [], frames: 0, since: performance.now() };
new PerformanceObserver((l) => { for (const e of l.getEntries()) { __ws.long.push(e.duration); __ws.longAt.push(e.startTime - __ws.since); } })
	.observe({ type: 'longtask', buffered: true });
requestAnimationFrame(function tick() { __ws.frames++; requestAnimationFrame(tick); });
`;
interface Probe {
	long: number[];
	/** When each long task started, ms after the probe's reset. */
	longAt: number[];
	frames: number;
	since: number;
}
type Page = Awaited<ReturnType<Awaited<ReturnType<typeof launchChromium>>['newPage']>>;
const resetProbe = (page: Page) =>
	page.evaluate(() => {
		const w = (globalThis as unknown as { __ws: Probe }).__ws;
		Object.assign(w, { long: [], longAt: [], frames: 0, since: performance.now() });
		performance.clearMarks();
	});
const readProbe = (page: Page) =>
	page.evaluate(() => {
		const w = (globalThis as unknown as { __ws: Probe }).__ws;
		return {
			long: w.long,
			longAt: w.longAt,
			fps: (w.frames * 1000) / (performance.now() - w.since)
		};
	});

/**
 * One replay sample, as a page expression (a string: tsx's helpers are not in the page): the
 * group's moment (the heatmap panel's scrubber) and each timed panel's drawn moment.
 */
const SAMPLE = `(() => {
	const panels = [...document.querySelectorAll('[data-testid="ws-panel"]')];
	const num = (s) => (s ? Number(s) : null);
	const attr = (i, sel, a) => num(panels[i]?.querySelector(sel)?.getAttribute(a));
	return {
		wall: performance.now(),
		group: num(panels[1]?.querySelector('[data-testid="replay-scrubber"]')?.value),
		'classic 1': attr(0, '[data-testid="timestamp"]', 'data-unix'),
		orderflow: attr(2, '[data-testid="timeline"]', 'data-cursor'),
		levels: attr(3, '[data-testid="levels-path"]', 'data-at'),
		'classic 2': attr(5, '[data-testid="timestamp"]', 'data-unix')
	};
})()`;
let selfTimes: string[] = [];
/** A CPU profile's functions by self time (ms), the 15 largest. */
function topSelfTimes(profile: {
	nodes: { id: number; callFrame: { functionName: string; url: string; lineNumber: number } }[];
	samples?: number[];
	timeDeltas?: number[];
}): string[] {
	const byNode = new Map(profile.nodes.map((n) => [n.id, n.callFrame]));
	const ms = new Map<string, number>();
	(profile.samples ?? []).forEach((id, i) => {
		const c = byNode.get(id)!;
		const key = `${c.functionName || '(anonymous)'} ${c.url.split('/').pop()}:${c.lineNumber + 1}`;
		ms.set(key, (ms.get(key) ?? 0) + (profile.timeDeltas?.[i] ?? 0) / 1000);
	});
	return [...ms]
		.sort((a, b) => b[1] - a[1])
		.slice(0, 15)
		.map(([k, v]) => `${v.toFixed(1)} ms ${k}`);
}
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const browser = await launchChromium();
const browserVersion = browser.version();
let viewer: WebSocket | undefined;
const out: string[] = [];
const f = (x: number) => x.toFixed(1);
const med = (xs: number[]) =>
	quantile(
		[...xs].sort((a, b) => a - b),
		0.5
	);
const max = (xs: number[]) => Math.max(...xs);
const longRow = (long: number[]) =>
	long.length === 0 ? 'none (every task < 50 ms)' : `${long.length}, longest ${f(max(long))} ms`;

try {
	// ---- six streaming panels at 150 memberships ------------------------------------------------
	const ctx = await browser.newContext({ viewport: { width: 1600, height: 1000 } });
	await ctx.addInitScript(PROBE);
	const page = await ctx.newPage();
	await page.goto(`${dash.base}/workspace?${STARTER_LAYOUTS['Index trio']}`, {
		timeout: 300_000,
		waitUntil: 'domcontentloaded'
	});
	await page.waitForFunction(
		(name) => performance.getEntriesByName(name).length > 0,
		PAINTED_MARK,
		{
			timeout: 300_000
		}
	);
	const ws = new WebSocket(`ws://127.0.0.1:${dash.port}/stream`);
	viewer = ws;
	const reply = (type: string) =>
		new Promise<Record<string, unknown>>((resolve) => {
			const on = (data: unknown, binary: boolean) => {
				if (binary) return;
				const m = JSON.parse(String(data)) as Record<string, unknown>;
				if (m.type === type) {
					ws.off('message', on);
					resolve(m);
				}
			};
			ws.on('message', on);
		});
	await new Promise((r) => ws.once('open', r));
	const wanted = [
		...TICKERS.map((t) => `${t}_classic_gex_full`),
		...TICKERS.map((t) => `${t}_orderflow_orderflow`)
	];
	const subscribed = reply('subscribed');
	ws.send(JSON.stringify({ type: 'subscribe', id: 1, groups: wanted }));
	const sub = (await subscribed) as { accepted: string[]; refused: unknown[] };
	const status = reply('status');
	ws.send(JSON.stringify({ type: 'status', id: 2 }));
	const usage = ((await status) as { usage: { used: number; limit: number } }).usage;
	console.error(`workspace: relay at ${usage.used}/${usage.limit} memberships; measuring`);
	await sleep(3000);
	await resetProbe(page);
	await sleep(SECONDS * 1000);
	const live = await readProbe(page);
	const liveLoad = loadavg().map(f).join(' ');
	const marks = (await page.evaluate(
		(name) => performance.getEntriesByName(name).map((e) => (e as PerformanceMark).detail),
		PAINTED_MARK
	)) as PaintedDetail[];
	const work = new Map<string, number[]>();
	for (const d of marks) {
		if (d.postedAt === undefined) continue;
		work.set(d.group, [...(work.get(d.group) ?? []), d.paintedAt - d.postedAt]);
	}
	const all = [...work.values()].flat();
	// The main thread's part: the batch's arrival there to the frame that paints it.
	const onMain = marks.map((d) => d.paintedAt - d.arrivedAt);
	out.push(
		`Six streaming panels (Index trio: SPX, NDX, SPY, Classic + heatmap each), relay at ${usage.used}/${usage.limit} memberships (viewer: ${sub.accepted.length} accepted, ${sub.refused.length} refused past the limit), ${SECONDS} s, load average ${liveLoad}`,
		'',
		'| measure | median | max | target |',
		'|---|---|---|---|',
		`| long tasks (>= 50 ms) | - | ${longRow(live.long)} | none |`,
		`| per-update work, worker post -> painted frame, ms (${all.length} updates) | ${f(med(all))} | ${f(max(all))} | measured |`,
		`| ... of which main thread (arrival -> painted frame), ms | ${f(med(onMain))} | ${f(max(onMain))} | |`,
		...[...work].map(([g, xs]) => `| ... ${g} (${xs.length}) | ${f(med(xs))} | ${f(max(xs))} | |`),
		`| frames per second | ${f(live.fps)} | - | 60 |`,
		''
	);
	ws.close();
	await ctx.close();

	// ---- a six-panel group replay at 60x --------------------------------------------------------
	const rctx = await browser.newContext({ viewport: { width: 1600, height: 1000 } });
	await rctx.addInitScript(PROBE);
	const rpage = await rctx.newPage();
	const start = OPEN + 600;
	const query =
		'p=classic.gex_full.red.2x1&p=heatmap.gex_full.red.2x1&p=orderflow.-.red.2x1' +
		'&p=levels.-.red.2x1&p=price.gex_full.red.2x1&p=classic.gex_full.red.2x1' +
		`&g=red.SPX.${DAY}.${start}`;
	await rpage.goto(`${dash.base}/workspace?${query}`, { timeout: 300_000 });
	const heatmap = rpage.locator('[data-testid="ws-panel"][data-view="heatmap"]');
	await heatmap.getByTestId('replay-scrubber').waitFor({ timeout: 300_000 });
	await sleep(3000);
	const cdp = flags.profile ? await rctx.newCDPSession(rpage) : undefined;
	if (cdp) {
		await cdp.send('Profiler.enable');
		await cdp.send('Profiler.setSamplingInterval', { interval: 200 });
		await cdp.send('Profiler.start');
	}
	await resetProbe(rpage);
	await heatmap.getByTestId('replay-play').click();
	const samples: Record<string, number | null>[] = [];
	const until = Date.now() + SECONDS * 1000;
	while (Date.now() < until) {
		samples.push((await rpage.evaluate(SAMPLE)) as Record<string, number | null>);
		await sleep(200);
	}
	const replay = await readProbe(rpage);
	if (cdp) selfTimes = topSelfTimes((await cdp.send('Profiler.stop')).profile);
	const replayLoad = loadavg().map(f).join(' ');
	await rctx.close();
	const moving = samples.filter((s) => s.group !== null);
	const a = moving[0];
	const b = moving[moving.length - 1];
	const pace = a && b ? ((b.group! - a.group!) * 1000) / (b.wall! - a.wall!) : NaN;
	const within = Math.abs(pace - 60) <= 6;
	out.push(
		`Six-panel group replay of ${DAY} (2,340 recorded SPX calculations) at 60x, ${SECONDS} s, ${moving.length} samples every 200 ms, load average ${replayLoad}`,
		'',
		'| measure | median | max | target |',
		'|---|---|---|---|',
		`| pace, session s per wall s | ${f(pace)} (${within ? 'keeps pace' : 'FALLS BEHIND'}) | - | 60 +- 10% |`,
		...['classic 1', 'classic 2', 'orderflow', 'levels'].map((k) => {
			const lags = moving.filter((s) => s[k] !== null).map((s) => s.group! - s[k]!);
			return lags.length === 0
				? `| lag of ${k}'s drawn moment behind the group's, s | n/a (not drawn) | - | |`
				: `| lag of ${k}'s drawn moment behind the group's, s | ${f(med(lags))} | ${f(max(lags))} | |`;
		}),
		`| long tasks (>= 50 ms) | - | ${longRow(replay.long)} | none |`,
		`| ... of them in the first 5 s of play | - | ${replay.longAt.filter((t) => t < 5000).length} | |`,
		`| frames per second | ${f(replay.fps)} | - | 60 |`,
		''
	);
} finally {
	await browser.close();
	viewer?.close();
	await dash.stop();
	await svc.close();
	rmSync(dataDir, { recursive: true, force: true });
}
for (const line of out) console.log(line);
if (selfTimes.length) console.log(`Replaying page's CPU by self time:\n${selfTimes.join('\n')}\n`);
console.log(`(Node ${process.version}; Chromium ${browserVersion})`);
process.exit(0);
