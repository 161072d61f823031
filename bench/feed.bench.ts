/**
 * The levels feed under its target load, and what it costs the stream relay, in one run:
 *
 *   npm run bench -- feed [--seconds 30]
 *
 * The built dashboard (`npm start`) streams from the embedded service (hubs in this process,
 * demo Quant key, 50 tickers) and holds 150 memberships for one /stream viewer (50 tickers x
 * classic gex_full + spot, 25 x orderflow + spot, as the soak). Two phases of `--seconds` each:
 *
 * 1. viewer only;
 * 2. the same, plus 50 feed clients (one token each) polling /feed/v1/levels/<T> every second,
 *    client i on ticker i.
 *
 * Reported: feed latency p50/p99 (hrtime per request, keep-alive; target p99 < 5 ms), dashboard
 * CPU per 100 feed requests (its /proc CPU in phase 2 minus phase 1's rate), and the relay's
 * frame latency to the viewer in both phases (the service's tick delivery, hooked in this
 * process, to the viewer's receipt of each frame; target: unchanged within noise).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { Agent, get } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import WebSocket from 'ws';
import { ALL_TICKERS } from '../src/lib/contract/tickers';
import { parseRelayFrame } from '../src/lib/relay/relayFrame';
import { openRecords } from '../src/lib/server/db/legacyImport';
import { TokenStore } from '../src/lib/server/tokens/tokenStore';
import { Fanout } from '../src/service/hubs/fanout';
import { quantKey, startHubService } from '../tests/integration/service-support';
import { lines, nextJson, quantile, root, startDashboard } from './support';

const { values: flags } = parseArgs({
	options: { seconds: { type: 'string', default: '30' } },
	strict: true
});
const SECONDS = Number(flags.seconds);
const CLIENTS = 50;
const TICKERS = ALL_TICKERS.slice(0, 50);
const GROUPS = [
	...TICKERS.map((t) => `${t}_classic_gex_full`),
	...TICKERS.slice(0, 25).map((t) => `${t}_orderflow_orderflow`)
];

/** CPU time (user + system) of another process in ms, from /proc/<pid>/stat (100 Hz ticks). */
function cpuMsOf(pid: number): number {
	const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
	const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
	return (Number(fields[11]) + Number(fields[12])) * 10;
}

// When the service last handed a tick's frames to its sockets (this process's clock).
let lastTickAt = 0;
const deliver = Fanout.prototype.deliver;
Fanout.prototype.deliver = function (this: Fanout, ...args: Parameters<typeof deliver>) {
	const stats = deliver.apply(this, args);
	lastTickAt = performance.now();
	return stats;
};

const svc = await startHubService({
	tickers: [...TICKERS],
	start: '2026-11-18T15:00:00Z',
	seed: 5
});
const dataDir = mkdtempSync(join(tmpdir(), 'gexdeck-bench-feed-'));
const records = await openRecords({ dataDir });
const tokens = new TokenStore(records);
const secrets: string[] = [];
for (let i = 0; i < CLIENTS; i++) secrets.push((await tokens.create(`bench ${i}`)).token);
await records.close();
const dash = await startDashboard({
	GEXDECK_UPSTREAM: svc.service.url,
	GEXDECK_API_KEY: quantKey(),
	GEXDECK_DATA_DIR: dataDir
});
const pid = dash.proc.pid!;

// The /stream viewer: every relayed frame's delay after the service's delivery of its tick.
let relayLatencies: number[] = [];
const viewer = new WebSocket(`ws://127.0.0.1:${dash.port}/stream`);
await new Promise<void>((resolve, reject) => {
	viewer.on('message', (data, isBinary) => {
		if (isBinary) {
			const at = performance.now();
			if (parseRelayFrame(new Uint8Array(data as Buffer)).ok && lastTickAt > 0) {
				relayLatencies.push(at - lastTickAt);
			}
			return;
		}
		const m = JSON.parse(String(data)) as { type: string };
		if (m.type === 'subscribed') resolve();
	});
	viewer.once('open', () =>
		viewer.send(JSON.stringify({ type: 'subscribe', id: 1, groups: GROUPS }))
	);
	viewer.once('error', reject);
});
// Let the memberships settle and the frames flow.
await new Promise((r) => setTimeout(r, 5000));

const agent = new Agent({ keepAlive: true, maxSockets: CLIENTS });
function feedOnce(ticker: string, token: string): Promise<{ ms: number; status: number }> {
	return new Promise((resolve, reject) => {
		const t0 = process.hrtime.bigint();
		get(
			`${dash.base}/feed/v1/levels/${ticker}`,
			{ agent, headers: { authorization: `Bearer ${token}` } },
			(res) => {
				res.on('data', () => {});
				res.on('end', () =>
					resolve({ ms: Number(process.hrtime.bigint() - t0) / 1e6, status: res.statusCode ?? 0 })
				);
			}
		).on('error', reject);
	});
}
// Every ticker held by the feed (first answers may be 503 while a hold starts).
for (let i = 0; i < CLIENTS; i++) {
	for (let tries = 0; tries < 20; tries++) {
		if ((await feedOnce(TICKERS[i], secrets[i])).status === 200) break;
		await new Promise((r) => setTimeout(r, 500));
	}
}

/** The feed clients in their own process for `SECONDS` (bench/feed.clients.ts). */
async function runClients(): Promise<{ latencies: number[]; failed: number }> {
	const child = spawn(
		process.execPath,
		[
			'--import',
			'tsx',
			join(root, 'bench', 'feed.clients.ts'),
			dash.base,
			String(SECONDS),
			JSON.stringify(TICKERS.map((t, i) => [t, secrets[i]]))
		],
		{ stdio: ['ignore', 'pipe', 'inherit'] }
	);
	const done = await nextJson(lines(child), 'done');
	return { latencies: done.latencies as number[], failed: Number(done.failed) };
}

async function phase(withFeed: boolean) {
	relayLatencies = [];
	const cpu0 = cpuMsOf(pid);
	const t0 = performance.now();
	const clients = withFeed
		? await runClients()
		: await new Promise<{ latencies: number[]; failed: number }>((r) =>
				setTimeout(() => r({ latencies: [], failed: 0 }), SECONDS * 1000)
			);
	const seconds = (performance.now() - t0) / 1000;
	const lat = [...relayLatencies].sort((a, b) => a - b);
	return {
		cpuMsPerS: (cpuMsOf(pid) - cpu0) / seconds,
		seconds,
		feed: clients.latencies,
		failed: clients.failed,
		lat
	};
}

const quiet = await phase(false);
const loaded = await phase(true);
const f = (x: number, d = 2) => (Number.isFinite(x) ? x.toFixed(d) : 'n/a');
const requests = loaded.feed.length;
const cpuPer100 =
	((loaded.cpuMsPerS - quiet.cpuMsPerS) * loaded.seconds * 100) / Math.max(1, requests);
const q = (xs: number[], p: number) => (xs.length ? quantile(xs, p) : NaN);

console.log(`| measure | viewer only | viewer + ${CLIENTS} feed clients | target |`);
console.log(`|---|---|---|---|`);
console.log(
	`| run | ${f(quiet.seconds, 0)} s | ${f(loaded.seconds, 0)} s, ${requests} feed answers (${loaded.failed} not 200) | - |`
);
console.log(
	`| feed latency p50 / p99 | - | ${f(q(loaded.feed, 0.5))} / ${f(q(loaded.feed, 0.99))} ms | p99 < 5 ms |`
);
console.log(
	`| dashboard CPU | ${f(quiet.cpuMsPerS, 1)} ms per s | ${f(loaded.cpuMsPerS, 1)} ms per s (${f(cpuPer100, 1)} ms per 100 feed requests) | - |`
);
console.log(
	`| relay frame latency to the /stream viewer p50 / p99 (frames) | ${f(q(quiet.lat, 0.5))} / ${f(q(quiet.lat, 0.99))} ms (${quiet.lat.length}) | ${f(q(loaded.lat, 0.5))} / ${f(q(loaded.lat, 0.99))} ms (${loaded.lat.length}) | unchanged within noise |`
);
console.log(
	`\n150 memberships (${GROUPS.length} groups + their spot); ${CLIENTS} tokens; Node ${process.version}; shared machine.`
);

viewer.close();
agent.destroy();
await dash.stop();
await svc.close();
rmSync(dataDir, { recursive: true, force: true });
process.exit(0);
