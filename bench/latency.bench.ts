/**
 * `npm run bench -- latency [--tabs 1,10,50] [--seconds 20] [--floor]`: tick-to-pixel, end to end
 * (issue 26).
 *
 * The embedded service runs in this process with its hubs (startHubService, 50 simulated
 * tickers, one calculation a second); Fanout.deliver is wrapped to stamp the moment each
 * calculation starts to be published (encoded and handed to every member), on the wall clock
 * (performance.timeOrigin + now, which Chromium's pages share). The built dashboard (`node
 * build`: run `npm run build` first) relays it; one WebSocket viewer here holds 150 memberships
 * (50 x classic gex_full + spot, 25 x orderflow + spot), and N Chromium tabs open Classic
 * (/SPX/classic/gex_full). Each tab sets `__gexdeckLatencyMarks` before load, so the page
 * marks every streamed update in the animation frame after it applied it
 * (src/lib/stream/transport/latencyMarks.ts), with where its time went: arrival in the tab's
 * worker, posting by the worker, arrival on the main thread, the painting frame.
 *
 * Per SPX chain painted: latency = painted - published, split into relay (service publish ->
 * worker: the service's encode and send, the dashboard's relay, the socket), worker (decode
 * and the wait for the worker's flush), hop (postMessage to the page, and the wait for the
 * page's main thread), update (the page's handler and the Svelte flush that draws it) and frame
 * (the wait for the animation frame that paints it). The relay leg is split again:
 * service (publish -> the watched chain handed to the relay's hub socket, HubConnection.deliver
 * wrapped), handed -> the tab's worker (the sockets and the dashboard's relay), and publish ->
 * this process's own Node viewer of the relay (the relay without a browser).
 *
 * `--floor` measures the same tab counts again on a bare page (bench/latency.floor-page.ts: a
 * worker with the app's decoder, one canvas of bars, the same marks) on the same relay: what
 * this machine costs between the service and a pixel with no app around it.
 *
 * What is load and what is waiting: alongside the wall-clock legs it prints the CPU each part
 * used in the measured window (this process's service per tick, the dashboard's and the
 * browser's processes per second, from /proc) and the load average, so a leg far longer than
 * its CPU is queueing for a core (or a timer), not work.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import type { Page } from 'playwright';
import WebSocket from 'ws';
import { ALL_TICKERS } from '../src/lib/contract/tickers';
import { Fanout } from '../src/service/hubs/fanout';
import { HubConnection } from '../src/service/hubs/connection';
import { ReliableConnection } from '../src/service/hubs/reliable';
import { PAINTED_MARK, type PaintedDetail } from '../src/lib/stream/transport/latencyMarks';
import { parseRelayFrame } from '../src/lib/relay/relayFrame';
import { tryDecodeFrame } from '../src/lib/wire/decode';
import { quantKey, startHubService } from '../tests/integration/service-support';
import { profilePage } from './latency.profile';
import { bundleForBrowser, launchChromium, quantile, root, spawnBuiltDashboard } from './support';

const { values: flags } = parseArgs({
	options: {
		tabs: { type: 'string', default: '1,10,50' },
		seconds: { type: 'string', default: '20' },
		// The first tab's renderer profiled over the measured window (bench/latency.profile.ts).
		profile: { type: 'boolean', default: false },
		// Another checkout's build measured in the same run (before figures), in the order given.
		checkout: { type: 'string', multiple: true },
		// Also the floor: bare tabs on the same relay and decoder (bench/latency.floor-page.ts).
		floor: { type: 'boolean', default: false }
	},
	strict: true
});
const TAB_COUNTS = flags.tabs.split(',').map(Number);
const SECONDS = Number(flags.seconds);
// SPX (the watched chain, 400 strikes) and 49 others.
const TICKERS = ['SPX', ...ALL_TICKERS.filter((t) => t !== 'SPX').slice(0, 49)];
const GROUPS = [
	...TICKERS.map((t) => `${t}_classic_gex_full`),
	...TICKERS.slice(0, 25).map((t) => `${t}_orderflow_orderflow`)
];
const WATCHED = 'SPX_classic_gex_full';
/** Tabs loaded at once (see measureTabs). */
const OPEN_BATCH = 5;
const PASSWORD = 'latency-bench';
const wall = () => performance.timeOrigin + performance.now();

const CHECKOUTS = flags.checkout?.length ? flags.checkout.map((c) => resolve(c)) : [root];
for (const checkout of CHECKOUTS) {
	if (!existsSync(join(checkout, 'build', 'index.js'))) {
		console.error(`latency bench: no build/ in ${checkout} (run \`npm run build\` there first)`);
		process.exit(2);
	}
}

// Data time of each calculation -> wall clock its publishing started (Fanout.deliver: encode
// every member group, send each frame), and the moment the watched chain's frame was handed
// to the relay's hub socket.
const publishedAt = new Map<number, number>();
const handedAt = new Map<number, number>();
let publishing: number | undefined;
/** Frames handed to hub sockets in this publish before the watched one (its queue). */
let handedBefore = 0;
const framesBeforeWatched: number[] = [];
// The service's CPU per tick (Fanout's own measure: encode every group, hand every frame).
const tickCpu: number[] = [];
const deliver = Fanout.prototype.deliver;
Fanout.prototype.deliver = function (this: Fanout, ...args: Parameters<typeof deliver>) {
	publishing = args[0].timestamp;
	handedBefore = 0;
	if (!publishedAt.has(publishing)) publishedAt.set(publishing, wall());
	try {
		const stats = deliver.apply(this, args);
		if (stats.framesSent > 0) tickCpu.push(stats.cpuMs);
		return stats;
	} finally {
		publishing = undefined;
	}
};

/**
 * CPU ms (user + system) of the processes under `root` (and of `root` itself unless
 * `descendantsOnly`), leaving out the subtrees of `skip`, from /proc (100 ticks a second).
 */
function treeCpuMs(root: number, skip: number[] = [], descendantsOnly = false): number {
	const stats = new Map<number, { ppid: number; ms: number }>();
	for (const name of readdirSync('/proc')) {
		if (!/^\d+$/.test(name)) continue;
		try {
			const text = readFileSync(`/proc/${name}/stat`, 'utf8');
			// Fields after the command's closing parenthesis: state ppid ... utime(14) stime(15).
			const f = text.slice(text.lastIndexOf(')') + 2).split(' ');
			stats.set(Number(name), { ppid: Number(f[1]), ms: ((+f[11] + +f[12]) * 1000) / 100 });
		} catch {
			// gone meanwhile
		}
	}
	let total = 0;
	for (const [pid, s] of stats) {
		if (skip.includes(pid) || (descendantsOnly && pid === root)) continue;
		for (let p = pid; p > 1; p = stats.get(p)?.ppid ?? 0) {
			if (skip.includes(p)) break;
			if (p === root) {
				total += s.ms;
				break;
			}
		}
	}
	return total;
}
const WATCHED_HEAD = `"group":"${WATCHED}"`;
// The relay speaks the reliable subprotocol (ReliableConnection overrides deliver): wrap both.
for (const proto of [HubConnection.prototype, ReliableConnection.prototype]) {
	const send = Object.getOwnPropertyDescriptor(proto, 'deliver')!.value as (e: string) => boolean;
	proto.deliver = function (this: HubConnection, envelope: string) {
		const sent = send.call(this, envelope);
		if (publishing !== undefined && !handedAt.has(publishing)) {
			if (envelope.slice(0, 80).includes(WATCHED_HEAD)) {
				handedAt.set(publishing, wall());
				framesBeforeWatched.push(handedBefore);
			} else handedBefore++;
		}
		return sent;
	};
}

const svc = await startHubService({
	tickers: [...TICKERS],
	start: '2026-11-18T15:00:00Z',
	seed: 5
});
/** What the tabs open: the app's Classic, or the floor page. */
type View = 'Classic' | 'floor';
const FLOOR_PATH = '/__latency-floor';

/** The floor page and its worker, bundled once (served to the tabs by route, below). */
async function floorAssets(): Promise<{ page: string; worker: string }> {
	const dir = mkdtempSync(join(tmpdir(), 'gexdeck-latency-floor-'));
	await bundleForBrowser('bench/latency.floor-page.ts', join(dir, 'page.js'));
	await bundleForBrowser('bench/latency.floor-worker.ts', join(dir, 'worker.js'));
	return {
		page: readFileSync(join(dir, 'page.js'), 'utf8'),
		worker: readFileSync(join(dir, 'worker.js'), 'utf8')
	};
}
const floor = flags.floor ? await floorAssets() : undefined;
// The worker from a blob of its fetched text: a page's fetch goes through the context's route.
const FLOOR_HTML = `<!doctype html><meta charset="utf-8"><title>latency floor</title><script type="module">
import { startFloor } from '${FLOOR_PATH}/page.js';
const code = await (await fetch('${FLOOR_PATH}/worker.js')).text();
const url = URL.createObjectURL(new Blob([code], { type: 'text/javascript' }));
startFloor(url, \`ws://\${location.host}/stream\`, '${WATCHED}');
</script>`;

interface Row {
	view: View;
	checkout: string;
	tabs: number;
	samples: number;
	total: number[];
	relay: number[];
	service: number[];
	toWorker: number[];
	toNode: number[];
	/** The watched chain handed to the relay's hub socket -> painted: the part after the service. */
	afterService: number[];
	worker: number[];
	hop: number[];
	update: number[];
	frame: number[];
	unmatched: number;
	/** Watched chains painted by each tab in the window (a tab that misses frames shows here). */
	perTab: number[];
	/** CPU in the measured window: ms per tick (service), % of one core (dashboard, browser). */
	serviceTickCpu: number[];
	dashboardCpuPct: number;
	browserCpuPct: number;
	load: string;
}

const browser = await launchChromium();
// The floor's tabs in a browser of their own: a page Playwright fulfilled has no address, so
// Chromium's local network access checks block its socket to 127.0.0.1 (the app's browser keeps
// the tests' flags).
const floorBrowser = floor
	? await launchChromium(['--disable-features=LocalNetworkAccessChecks'])
	: undefined;
const rows: Row[] = [];
const profiles: string[] = [];
let viewerFrames = 0;

/** Signs `page`'s context in to the dashboard at `base` (a session of its own). */
async function signIn(page: Page, base: string): Promise<void> {
	await page.goto(`${base}/login`, { timeout: 300_000 });
	await page.locator('#password').fill(PASSWORD);
	await Promise.all([
		page.waitForURL((url) => !url.pathname.startsWith('/login'), { timeout: 300_000 }),
		page.getByRole('button', { name: 'Log in' }).click()
	]);
}

/** One checkout's built dashboard relaying the service, measured at every tab count. */
async function measure(checkout: string): Promise<void> {
	const dash = await spawnBuiltDashboard(checkout, {
		GEXDECK_UPSTREAM: svc.service.url,
		GEXDECK_API_KEY: quantKey(),
		GEXDECK_DATA_DIR: mkdtempSync(join(tmpdir(), 'gexdeck-latency-')),
		// Each tab signs in (its own session, so its own client of the relay: see measureTabs),
		// from its own address (X-Forwarded-For: the login's rate limit is per address).
		GEXDECK_PASSWORD: PASSWORD,
		ADDRESS_HEADER: 'x-forwarded-for'
	});
	// The 150 memberships: one viewer of every group. Its frames are counted, and the watched
	// chain's arrival here (a Node client of the relay, in this process) is stamped: the relay's
	// own part of the way, without the browser.
	dash.proc.once('exit', (code, signal) =>
		console.error(`latency: the dashboard exited (${code ?? signal})`)
	);
	dash.proc.stderr?.on('data', (d: Buffer) => process.stderr.write(`dashboard: ${d}`));
	const login = await browser.newContext();
	await signIn(await login.newPage(), dash.base);
	const cookie = (await login.cookies()).map((c) => `${c.name}=${c.value}`).join('; ');
	await login.close();
	const viewer = new WebSocket(`ws://127.0.0.1:${dash.port}/stream`, {
		headers: { cookie, origin: dash.base }
	});
	const viewerAt = new Map<number, number>();
	function onViewerFrame(data: Buffer): void {
		viewerFrames++;
		const arrived = wall();
		const parsed = parseRelayFrame(new Uint8Array(data.buffer, data.byteOffset, data.byteLength));
		if (!parsed.ok || parsed.frame.group !== WATCHED) return;
		const decoded = tryDecodeFrame(parsed.frame.any);
		if (decoded.ok && decoded.frame.kind === 'gex')
			viewerAt.set(decoded.frame.value.timestamp, arrived);
	}
	await new Promise<void>((resolve, reject) => {
		viewer.on('message', (data, isBinary) => {
			if (isBinary) return void onViewerFrame(data as Buffer);
			const m = JSON.parse(String(data)) as { type: string };
			if (m.type === 'subscribed') resolve();
		});
		viewer.once('open', () =>
			viewer.send(JSON.stringify({ type: 'subscribe', id: 1, groups: GROUPS }))
		);
		viewer.once('error', reject);
	});
	try {
		await measureTabs('Classic', checkout, dash, viewerAt);
		if (floor && checkout === CHECKOUTS[CHECKOUTS.length - 1])
			await measureTabs('floor', checkout, dash, viewerAt);
	} finally {
		viewer.close();
		await new Promise((r) => {
			dash.proc.once('exit', r);
			dash.proc.kill('SIGTERM');
		});
	}
}

async function measureTabs(
	view: View,
	checkout: string,
	dash: { proc: { pid?: number }; base: string },
	viewerAt: Map<number, number>
): Promise<void> {
	for (const tabs of TAB_COUNTS) {
		// A context per tab: every tab holds an EventSource (/alerts/events), and one profile's six
		// HTTP/1.1 connections to a host stall the seventh tab's page load behind them.
		// Each tab its own session and client address: the relay takes at most
		// MAX_VIEWERS_PER_CLIENT (32) viewers from one client (session, else address), and 50
		// tabs of one address left 19 of them without a stream.
		const contexts = await Promise.all(
			Array.from({ length: tabs }, (_, i) =>
				(view === 'floor' ? floorBrowser! : browser).newContext({
					extraHTTPHeaders: { 'x-forwarded-for': `127.0.${1 + (i >> 8)}.${1 + (i & 255)}` }
				})
			)
		);
		for (const context of contexts) {
			await context.addInitScript('globalThis.__gexdeckLatencyMarks = true');
			if (floor) {
				const bodies: Record<string, [string, string]> = {
					[FLOOR_PATH]: ['text/html', FLOOR_HTML],
					[`${FLOOR_PATH}/page.js`]: ['text/javascript', floor.page],
					[`${FLOOR_PATH}/worker.js`]: ['text/javascript', floor.worker]
				};
				await context.route(`${dash.base}${FLOOR_PATH}**`, (route) => {
					const [contentType, body] = bodies[new URL(route.request().url()).pathname] ?? [];
					return body === undefined
						? route.fulfill({ status: 404 })
						: route.fulfill({ status: 200, contentType, body });
				});
			}
		}
		const pages = await Promise.all(contexts.map((context) => context.newPage()));
		console.error(`latency: opening ${tabs} tab(s) of ${view}`);
		// Opened in batches, each batch painting streamed chains before the next loads: 50 page
		// loads at once starve the running tabs of both cores for minutes. A tab that paints no
		// chain within the wait is counted (tabs painting), not fatal.
		const painting = (page: (typeof pages)[number]) =>
			page
				.waitForFunction((name) => performance.getEntriesByName(name).length > 0, PAINTED_MARK, {
					timeout: 120_000
				})
				.then(
					() => true,
					() => false
				);
		for (let i = 0; i < pages.length; i += OPEN_BATCH) {
			const batch = pages.slice(i, i + OPEN_BATCH);
			await Promise.all(
				batch.map(async (page) => {
					await signIn(page, dash.base);
					await page.goto(
						`${dash.base}${view === 'floor' ? FLOOR_PATH : '/SPX/classic/gex_full'}`,
						{
							timeout: 300_000,
							waitUntil: 'domcontentloaded'
						}
					);
				})
			);
			const painted = await Promise.all(batch.map(painting));
			console.error(
				`latency: tabs ${i + 1}-${i + batch.length} open, ${painted.filter(Boolean).length} painting`
			);
		}
		// A settle before measuring, longer with more tabs (their first loads' work to drain).
		await new Promise((r) => setTimeout(r, 3000 + 100 * tabs));
		await Promise.all(pages.map((p) => p.evaluate(() => performance.clearMarks())));
		const dashPid = dash.proc.pid!;
		const cpuAt = () => ({
			t: performance.now(),
			dash: treeCpuMs(dashPid),
			browser: treeCpuMs(process.pid, [dashPid], true)
		});
		const ticksBefore = tickCpu.length;
		const stopProfile = flags.profile ? await profilePage(pages[0]) : undefined;
		const cpu0 = cpuAt();
		const loadBefore = loadavg()[0];
		await new Promise((r) => setTimeout(r, SECONDS * 1000));
		const cpu1 = cpuAt();
		if (stopProfile) {
			const { totalMs, rows } = await stopProfile();
			const perTick = (ms: number) => ((ms * 1000) / (cpu1.t - cpu0.t)).toFixed(2);
			profiles.push(
				`${checkout === root ? 'this' : checkout}, ${view}, ${tabs} tab(s): the first tab's renderer main thread, ${perTick(totalMs)} ms per second (one tick a second)\n\n| function | self ms per tick |\n|---|---|\n` +
					rows.map((r) => `| ${r.name} | ${perTick(r.selfMs)} |`).join('\n')
			);
		}
		const pct = (ms: number) => (100 * ms) / (cpu1.t - cpu0.t);
		const row: Row = {
			view,
			checkout,
			tabs,
			samples: 0,
			total: [],
			relay: [],
			service: [],
			toWorker: [],
			toNode: [],
			afterService: [],
			worker: [],
			hop: [],
			update: [],
			frame: [],
			unmatched: 0,
			perTab: [],
			serviceTickCpu: tickCpu.slice(ticksBefore),
			dashboardCpuPct: pct(cpu1.dash - cpu0.dash),
			// This process's children less the dashboard: Chromium's processes.
			browserCpuPct: pct(cpu1.browser - cpu0.browser),
			load: `${loadBefore.toFixed(1)} -> ${loadavg()[0].toFixed(1)}`
		};
		for (const page of pages) {
			const details = await page.evaluate(
				(name) => performance.getEntriesByName(name).map((e) => (e as PerformanceMark).detail),
				PAINTED_MARK
			);
			let painted = 0;
			for (const d of details as PaintedDetail[]) {
				if (d.group !== WATCHED) continue;
				painted++;
				const published = publishedAt.get(d.timestamp);
				if (published === undefined || d.receivedAt === undefined || d.postedAt === undefined) {
					row.unmatched++;
					continue;
				}
				row.samples++;
				row.total.push(d.paintedAt - published);
				row.relay.push(d.receivedAt - published);
				const handed = handedAt.get(d.timestamp);
				if (handed !== undefined) {
					row.service.push(handed - published);
					row.toWorker.push(d.receivedAt - handed);
					row.afterService.push(d.paintedAt - handed);
				}
				const node = viewerAt.get(d.timestamp);
				if (node !== undefined) row.toNode.push(node - published);
				row.worker.push(d.postedAt - d.receivedAt);
				row.hop.push(d.arrivedAt - d.postedAt);
				// A build before the applied stamp marked arrival after the handler: n/a there.
				if (d.appliedAt === undefined) continue;
				row.update.push(d.appliedAt - d.arrivedAt);
				row.frame.push(d.paintedAt - d.appliedAt);
			}
			row.perTab.push(painted);
		}
		rows.push(row);
		for (const context of contexts) await context.close();
	}
}

try {
	for (const checkout of CHECKOUTS) await measure(checkout);
} finally {
	await browser.close();
	await floorBrowser?.close();
	await svc.close();
}

const f = (x: number) => x.toFixed(1);
const name = (r: Row) =>
	`${r.checkout === root ? 'this' : r.checkout}${r.view === 'floor' ? ' (floor page)' : ''}`;
const ppp = (xs: number[]) => {
	const s = [...xs].sort((a, b) => a - b);
	return s.length === 0
		? 'n/a'
		: `${f(quantile(s, 0.5))} / ${f(quantile(s, 0.95))} / ${f(quantile(s, 0.99))}`;
};
const perTab = (r: Row) => {
	const s = [...r.perTab].sort((a, b) => a - b);
	return `${s[0] ?? 0} / ${s.length ? quantile(s, 0.5) : 0}; ${s.filter((n) => n > 0).length} of ${r.tabs}`;
};
console.log('Tick-to-pixel, ms (p50 / p95 / p99), SPX classic gex_full (400 strikes) on Classic');
console.log('');
console.log(
	'| checkout | tabs | chains painted | per tab (min / median; tabs painting) | total | relay (service -> worker) | worker (decode + flush wait) | hop to page (+ main thread queue) | page update (handler + Svelte flush) | frame wait (to the painting frame) | target |'
);
console.log('|---|---|---|---|---|---|---|---|---|---|---|');
for (const r of rows) {
	console.log(
		`| ${name(r)} | ${r.tabs} | ${r.samples}${r.unmatched ? ` (+${r.unmatched} unmatched)` : ''} | ${perTab(r)} | ${ppp(r.total)} | ${ppp(r.relay)} | ${ppp(r.worker)} | ${ppp(r.hop)} | ${ppp(r.update)} | ${ppp(r.frame)} | ${r.tabs === 10 ? 'p99 < 20' : '-'} |`
	);
}
console.log('');
console.log('The relay leg split, ms (p50 / p95 / p99):');
console.log('');
console.log(
	'| checkout | tabs | service (publish -> the chain handed to its hub socket) | handed -> tab worker (sockets, dashboard relay) | handed -> painted (all but the service) | publish -> a Node viewer of the relay (this process) |'
);
console.log('|---|---|---|---|---|---|');
for (const r of rows) {
	console.log(
		`| ${name(r)} | ${r.tabs} | ${ppp(r.service)} | ${ppp(r.toWorker)} | ${ppp(r.afterService)} | ${ppp(r.toNode)} |`
	);
}
console.log('');
console.log(
	'CPU in the measured window (a leg far longer than its CPU waited for a core; 2 cores = 200%):'
);
console.log('');
console.log(
	"| checkout | tabs | service CPU per tick, ms (p50 / p95 / p99) | dashboard CPU, % of a core | browser CPU, % of a core | browser CPU per tab per tick, ms | one tick's CPU (service + dashboard + browser) / 2 cores, ms | load average (1 min) |"
);
console.log('|---|---|---|---|---|---|---|---|');
for (const r of rows) {
	// One tick a second: % of a core x 10 = ms per tick. For every tab to paint within T ms
	// the part of this on the tick's path must fit in 2 x T ms (not all of it is: the browser's
	// GPU process and compositor, the ring's writes, timers).
	const service = r.serviceTickCpu.length
		? quantile(
				[...r.serviceTickCpu].sort((a, b) => a - b),
				0.5
			)
		: 0;
	const perTick = (service + 10 * r.dashboardCpuPct + 10 * r.browserCpuPct) / 2;
	console.log(
		`| ${name(r)} | ${r.tabs} | ${ppp(r.serviceTickCpu)} | ${r.dashboardCpuPct.toFixed(0)} | ${r.browserCpuPct.toFixed(0)} | ${((10 * r.browserCpuPct) / r.tabs).toFixed(1)} | ${perTick.toFixed(0)} | ${r.load} |`
	);
}
for (const p of profiles) console.log(`\n${p}`);
console.log(
	`\n(${SECONDS} s measured per tab count after a settle of 3 s + 0.1 s per tab; 150 relay memberships held by one viewer, which received ${viewerFrames} frames; the service handed ${ppp(framesBeforeWatched)} frames (p50 / p95 / p99) to hub sockets before the watched chain's in a publish; Node ${process.version})`
);
process.exit(0);
