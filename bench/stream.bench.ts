/**
 * Stream relay and decode costs.
 *
 * Server: the embedded service runs in its own process with its real simulated market (50
 * tickers, RTH, one tick per second); this process runs only the StreamRelay and its /stream
 * endpoint; 10 viewers run in a third process. The relay holds 150 memberships (50 tickers x
 * classic gex_full + spot on v2_classic = 100, 25 x orderflow + spot on v2_orderflow = 50) and
 * every viewer wants all of them, so each upstream frame fans out 10 times. Measured: this
 * process's CPU time per wall second (process.cpuUsage), frames in and out.
 *
 * Node decode: time per 400-strike Gex relay frame through the worker's decode path
 * (relay frame -> Any -> fzstd -> static protobuf -> columnar typed arrays).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { ALL_TICKERS } from '../src/lib/contract/tickers';
import { attachStreamEndpoint, StreamRelay } from '../src/lib/server/stream';
import { decodeRelayMessage } from '../src/lib/stream/decode';
import { encodeRelayFrame } from '../src/lib/stream/relayFrame';
import { spxChain } from '../src/lib/wire/arbitraries.test-support';
import { encodeFrame, initWireEncoder } from '../src/lib/wire/encode';
import { demoAccounts } from '../src/service/accounts/demo';

const VIEWERS = 10;
const SECONDS = Number(process.env.STREAM_BENCH_SECONDS ?? 20);
const TICKERS = ALL_TICKERS.slice(0, 50);
const root = fileURLToPath(new URL('..', import.meta.url));
const quantile = (s: number[], q: number) => s[Math.min(s.length - 1, Math.floor(q * s.length))];

function lines(child: ChildProcess): AsyncIterator<string> {
	return createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
}

async function nextJson(
	it: AsyncIterator<string>,
	event: string
): Promise<Record<string, unknown>> {
	for (;;) {
		const { value, done } = await it.next();
		if (done) throw new Error(`child ended before ${event}`);
		try {
			const j = JSON.parse(value) as Record<string, unknown>;
			if (j.event === event) return j;
		} catch {
			/* banner lines */
		}
	}
}

// ---- decode in Node ---------------------------------------------------------------------
await initWireEncoder();
const frame400 = encodeRelayFrame('SPX_classic_gex_full', encodeFrame('gex', spxChain(400)));
for (let i = 0; i < 300; i++) decodeRelayMessage(frame400);
const decodeTimes: number[] = [];
for (let i = 0; i < 2000; i++) {
	const t = performance.now();
	const out = decodeRelayMessage(frame400);
	decodeTimes.push(performance.now() - t);
	if (!out.ok) throw new Error(out.error);
}
decodeTimes.sort((a, b) => a - b);

// ---- relay CPU --------------------------------------------------------------------------
const dataDir = mkdtempSync(join(tmpdir(), 'gexdeck-bench-stream-'));
const service = spawn(
	process.execPath,
	[
		'--import',
		'tsx',
		join(root, 'src/service/main.ts'),
		'--port',
		'0',
		'--ready-json',
		'--data-dir',
		dataDir,
		'--start',
		'2026-11-18T16:00:00Z',
		'--speed',
		'1',
		'--seed',
		'5',
		'--tickers',
		TICKERS.join(',')
	],
	{ stdio: ['ignore', 'pipe', 'inherit'] }
);
const ready = await nextJson(lines(service), 'ready');
const key = demoAccounts().accounts.find((a) => a._id === 'demo-quant')!.keys[0].key;
const relay = new StreamRelay({
	baseUrl: String(ready.base_url),
	key,
	userAgent: 'gexdeck-bench/1.0'
});
const http = createServer((_q, s) => s.writeHead(404).end());
const endpoint = attachStreamEndpoint(http, relay, () => true);
await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
const groups = [
	...TICKERS.map((t) => `${t}_classic_gex_full`),
	...TICKERS.slice(0, 25).map((t) => `${t}_orderflow_orderflow`)
];
const viewers = spawn(
	process.execPath,
	[
		'--import',
		'tsx',
		join(root, 'bench/stream.viewers.ts'),
		`ws://127.0.0.1:${(http.address() as AddressInfo).port}/stream`,
		String(VIEWERS),
		JSON.stringify(groups)
	],
	{ stdio: ['pipe', 'pipe', 'inherit'] }
);
const viewerLines = lines(viewers);
await nextJson(viewerLines, 'subscribed');
await relay.settled();
const usage = relay.status().usage;
// Let the first full ticks pass (connection warm-up, JIT).
await new Promise((r) => setTimeout(r, 3000));

const c0 = { ...relay.counters };
const cpu0 = process.cpuUsage();
const t0 = performance.now();
const perSecond: number[] = [];
let last = process.cpuUsage();
for (let s = 0; s < SECONDS; s++) {
	await new Promise((r) => setTimeout(r, 1000));
	const now = process.cpuUsage();
	perSecond.push((now.user - last.user + now.system - last.system) / 1000);
	last = now;
}
const wall = (performance.now() - t0) / 1000;
const cpu = process.cpuUsage(cpu0);
const framesIn = (relay.counters.framesIn - c0.framesIn) / wall;
const framesOut = (relay.counters.framesOut - c0.framesOut) / wall;
const bytesIn = (relay.counters.bytesIn - c0.bytesIn) / wall;
viewers.stdin!.write('report\n');
const report = await nextJson(viewerLines, 'report');
perSecond.sort((a, b) => a - b);
const cpuMsPerSecond = (cpu.user + cpu.system) / 1000 / wall;

const f = (x: number, d = 2) => x.toFixed(d);
console.log(`| measure | value | target |`);
console.log(`|---|---|---|`);
console.log(
	`| decode 400-strike Gex frame, Node (median / p95 / p99) | ${f(quantile(decodeTimes, 0.5), 3)} / ${f(quantile(decodeTimes, 0.95), 3)} / ${f(quantile(decodeTimes, 0.99), 3)} ms | < 0.5 ms median (Chromium worker target) |`
);
console.log(`| relay frame bytes (400-strike Gex) | ${frame400.length} | - |`);
console.log(
	`| relay CPU, ${usage.used} memberships, ${VIEWERS} viewers (mean) | ${f(cpuMsPerSecond, 1)} ms per s (${f(cpuMsPerSecond / 10, 2)} % of a core) | small next to the hubs; < 100 ms/s |`
);
console.log(
	`| relay CPU per second (median / p95 / max) | ${f(quantile(perSecond, 0.5), 1)} / ${f(quantile(perSecond, 0.95), 1)} / ${f(perSecond.at(-1)!, 1)} ms | - |`
);
console.log(
	`| upstream frames in per s / KiB in per s | ${f(framesIn, 0)} / ${f(bytesIn / 1024, 0)} | - |`
);
console.log(
	`| frames out per s (to ${VIEWERS} viewers) | ${f(framesOut, 0)} | = in x viewers (less spot duplicates) |`
);
console.log(
	`| viewer frames received (all ${VIEWERS}) / bytes | ${String(report.frames)} / ${String(report.bytes)} | - |`
);
console.log(
	`| negotiations: POST / PATCH | ${relay.counters.posts} / ${relay.counters.patches} | 1 / 0 (viewers share one slot) |`
);
console.log(`\n(${SECONDS} s measured after 3 s warm-up; Node ${process.version})`);

viewers.stdin!.write('exit\n');
endpoint.close();
await relay.close();
http.close();
service.kill('SIGTERM');
await new Promise((r) => service.once('exit', r));
rmSync(dataDir, { recursive: true, force: true });
