/**
 * The cluster benchmark's stream parts (cluster.bench.ts, issue 30 item 6):
 *
 * 1. The frame's Redis hop: the embedded service's hubs in this process on a market the bench
 *    ticks itself (ManualMarket), one tick a second; the time from a tick to its frame at a viewer
 *    of a single-process relay, then (same run, same hubs) at a viewer of a standby replica
 *    (holder and standby relays on one real redis-server). p50/p99 of both; the difference is
 *    what the hop through the holder's Redis Stream adds.
 * 2. Viewers per replica at 150 memberships: the simulated market in its own process at 10 s/s,
 *    a relay process (child of this file) serving V viewers (bench/soak.viewers.ts, every viewer
 *    holding the soak's 150 memberships and checking every frame arrives once, in order), as a
 *    single process and as a standby replica of a cluster whose holder runs here. Its CPU per
 *    viewer per second, and so how many viewers one core serves.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ALL_TICKERS } from '../src/lib/contract/tickers';
import { parseRelayFrame } from '../src/lib/relay/relayFrame';
import { connectRedis } from '../src/lib/server/cluster/redis';
import { setLogSink } from '../src/lib/server/log';
import { attachStreamEndpoint, StreamRelay } from '../src/lib/server/stream';
import { RelayCluster } from '../src/lib/server/stream/relayCluster';
import { demoAccountsFor } from '../src/service/accounts/demo';
import { ManualMarket } from '../tests/integration/service-hubs.market';
import { quantKey, startHubService } from '../tests/integration/service-support';
import { lines, nextJson, quantile, spawnService } from './support';

const LATENCY_GROUPS = ['SPX', 'SPY', 'AAPL', 'XSP'].map((t) => `${t}_classic_gex_full`);
const TICKERS = ALL_TICKERS.slice(0, 50);
/** The soak's 150 memberships: 50 x classic gex_full (+ spot), 25 x orderflow (+ spot). */
const GROUPS = [
	...TICKERS.map((t) => `${t}_classic_gex_full`),
	...TICKERS.slice(0, 25).map((t) => `${t}_orderflow_orderflow`)
];

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
async function until(what: () => boolean, ms: number, label: string): Promise<void> {
	const end = Date.now() + ms;
	while (!what()) {
		if (Date.now() > end) throw new Error(`cluster viewers bench: ${label}`);
		await sleep(10);
	}
}

/** A viewer inside this process: the arrival time of each frame of its groups. */
function stampingViewer(
	relay: StreamRelay,
	groups: string[],
	arrivals: Map<string, number[]>,
	byPayload?: Map<string, number>
) {
	const viewer = relay.connect({
		readyState: 1,
		bufferedAmount: 0,
		send: (data, cb) => {
			if (typeof data !== 'string') {
				const p = parseRelayFrame(data);
				if (p.ok && groups.includes(p.frame.group)) {
					const list = arrivals.get(p.frame.group) ?? [];
					const now = performance.now();
					list.push(now);
					arrivals.set(p.frame.group, list);
					byPayload?.set(digest(p.frame.any), now);
				}
			}
			cb?.();
		},
		close: () => undefined
	});
	relay.subscribe(viewer, groups);
}

const digest = (any: Uint8Array) => createHash('md5').update(any).digest('base64');

/** Tick `n` times a second apart (after `warm` unmeasured); per tick and group, tick -> arrival. */
async function tickToViewer(
	market: ManualMarket,
	arrivals: Map<string, number[]>,
	n: number,
	warm = 15
) {
	const latencies: number[] = [];
	for (let i = -warm; i < n; i++) {
		const before = new Map(LATENCY_GROUPS.map((g) => [g, arrivals.get(g)?.length ?? 0]));
		const t0 = performance.now();
		market.tick(false);
		await until(
			() => LATENCY_GROUPS.every((g) => (arrivals.get(g)?.length ?? 0) > before.get(g)!),
			5_000,
			'a tick did not reach the viewer'
		);
		if (i >= 0) {
			for (const g of LATENCY_GROUPS) latencies.push(arrivals.get(g)![before.get(g)!] - t0);
		}
		await sleep(Math.max(0, 1_000 - (performance.now() - t0)));
	}
	latencies.sort((a, b) => a - b);
	return { p50: quantile(latencies, 0.5), p99: quantile(latencies, 0.99), n: latencies.length };
}

export async function redisHopLatency(redisUrl: string, ticks = 120) {
	const market = new ManualMarket();
	const t = await startHubService({ market, hubs: { now: () => market.timestamp * 1000 } });
	const base = { baseUrl: t.service.url, key: quantKey(), userAgent: 'gexdeck/bench' };
	try {
		const single = new StreamRelay(base);
		const one = new Map<string, number[]>();
		stampingViewer(single, LATENCY_GROUPS, one);
		await until(() => single.state === 'live', 10_000, 'the single relay is not live');
		for (let i = 0; i < 5; i++) market.tick(false);
		const alone = await tickToViewer(market, one, ticks);
		await single.close();

		const conns = [0, 1, 2, 3].map(() => connectRedis(redisUrl));
		const holding = new RelayCluster(conns[0], conns[1], 'hop-holder', { prefix: 'hop' });
		// The holder's receipt of each upstream frame, to time the hop alone (publish, the
		// stream, the standby's reader and fan-out) against the standby viewer's arrival.
		const received = new Map<string, number>();
		const publish = holding.publish.bind(holding);
		holding.publish = (group, any) => {
			if (LATENCY_GROUPS.includes(group)) received.set(digest(any), performance.now());
			publish(group, any);
		};
		const holder = new StreamRelay({ ...base, cluster: holding });
		await until(() => holding.holding, 10_000, 'no holder');
		const standby = new StreamRelay({
			...base,
			cluster: new RelayCluster(conns[2], conns[3], 'hop-standby', { prefix: 'hop' })
		});
		const two = new Map<string, number[]>();
		const arrived = new Map<string, number>();
		stampingViewer(standby, LATENCY_GROUPS, two, arrived);
		await until(() => holder.state === 'live', 10_000, 'the holder is not live');
		for (let i = 0; i < 5; i++) {
			market.tick(false);
			await sleep(200);
		}
		const replica = await tickToViewer(market, two, ticks);
		const hops = [...arrived]
			.filter(([k]) => received.has(k))
			.map(([k, at]) => at - received.get(k)!)
			.sort((a, b) => a - b);
		const hop = { p50: quantile(hops, 0.5), p99: quantile(hops, 0.99), n: hops.length };
		await standby.close();
		await holder.close();
		for (const c of conns) c.disconnect();
		return { single: alone, replica, hop };
	} finally {
		await t.close();
	}
}

/** Child: one relay (a standby replica when given a Redis URL) with its /stream endpoint. */
function relayChild(baseUrl: string, key: string, redisUrl?: string): void {
	setLogSink({ out: () => undefined, err: () => undefined });
	const cluster = redisUrl
		? new RelayCluster(connectRedis(redisUrl), connectRedis(redisUrl), `standby-${process.pid}`, {
				prefix: 'viewers',
				// A standby measured as such: it never competes for the lease after its first try.
				lease: { pollMs: 1e9 }
			})
		: undefined;
	const relay = new StreamRelay({ baseUrl, key, userAgent: 'gexdeck/bench', cluster });
	const http = createServer((_q, s) => s.writeHead(404).end());
	attachStreamEndpoint(http, relay, () => true, { maxViewers: 1_000, maxViewersPerClient: 1_000 });
	http.listen(0, '127.0.0.1', () => {
		process.send?.({ port: (http.address() as AddressInfo).port });
	});
	process.on('message', () =>
		process.send?.({ state: relay.state, framesOut: relay.counters.framesOut })
	);
}

/** CPU time (user + system) of a process in ms, from /proc/<pid>/stat (100 Hz ticks). */
function cpuMsOf(pid: number): number {
	const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
	const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
	return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** V viewers of 150 memberships on one relay process for `seconds`: its CPU per viewer-second. */
async function viewerCost(
	service: { url: string },
	key: string,
	viewers: number,
	seconds: number,
	redisUrl?: string
) {
	const args = ['relay', service.url, key, ...(redisUrl ? [redisUrl] : [])];
	const child: ChildProcess = fork(fileURLToPath(import.meta.url), args, {
		execArgv: ['--import', 'tsx'],
		stdio: ['ignore', 'inherit', 'inherit', 'ipc']
	});
	const port = await new Promise<number>((r) =>
		child.once('message', (m) => r((m as { port: number }).port))
	);
	const { spawn } = await import('node:child_process');
	const script = join(fileURLToPath(new URL('.', import.meta.url)), 'soak.viewers.ts');
	const watchers = spawn(
		process.execPath,
		[
			'--import',
			'tsx',
			script,
			`ws://127.0.0.1:${port}/stream`,
			String(viewers),
			JSON.stringify(GROUPS),
			GROUPS[0]
		],
		{ stdio: ['pipe', 'pipe', 'inherit'] }
	);
	const out = lines(watchers);
	try {
		await nextJson(out, 'subscribed');
		await sleep(10_000); // negotiation, hubs, the first frames
		const cpu0 = cpuMsOf(child.pid!);
		await sleep(seconds * 1000);
		const cpuMs = cpuMsOf(child.pid!) - cpu0;
		watchers.stdin!.write('report\n');
		const report = await nextJson(out, 'report');
		return {
			viewers,
			seconds,
			cpuMsPerViewerS: cpuMs / viewers / seconds,
			cpuShare: cpuMs / (seconds * 1000),
			// A skip: a viewer too slow for its socket gets the newest frame of a group instead
			// of a queue (viewer.ts); out of order or corrupt would be the relay's fault.
			skips: Number(report.gaps),
			wrong: Number(report.outOfOrder) + Number(report.corrupt),
			frames: Number(report.frames)
		};
	} finally {
		watchers.stdin!.write('exit\n');
		child.kill('SIGKILL');
	}
}

export async function viewersPerReplica(redisUrl: string, viewers = 50, seconds = 60) {
	const dataDir = mkdtempSync(join(tmpdir(), 'gexdeck-bench-viewers-'));
	const service = await spawnService({
		dataDir,
		tickers: TICKERS,
		start: '2026-11-18T14:31:00Z',
		speed: 10,
		seed: 5
	});
	const key = demoAccountsFor(dataDir).accounts.find((a) => a._id === 'demo-quant')!.keys[0].key;
	try {
		const single = await viewerCost(service, key, viewers, seconds);
		// The holder runs here with no viewer of its own: the standby's wants reach it via Redis.
		const conns = [connectRedis(redisUrl), connectRedis(redisUrl)];
		const holding = new RelayCluster(conns[0], conns[1], 'viewers-holder', { prefix: 'viewers' });
		const holder = new StreamRelay({
			baseUrl: service.url,
			key,
			userAgent: 'gexdeck/bench',
			cluster: holding
		});
		await until(() => holding.holding, 10_000, 'no holder');
		let leaseLosses = 0;
		holding.onHoldChange((held) => {
			if (!held) leaseLosses++;
		});
		const replica = await viewerCost(service, key, viewers, seconds, redisUrl);
		await holder.close();
		for (const c of conns) c.disconnect();
		return { viewers, seconds, single, replica, leaseLosses };
	} finally {
		await service.stop();
		rmSync(dataDir, { recursive: true, force: true });
	}
}

if (process.argv[2] === 'relay') relayChild(process.argv[3], process.argv[4], process.argv[5]);
