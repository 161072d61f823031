/**
 * The cluster benchmark's relay failover (cluster.bench.ts): three processes each run a
 * StreamRelay on the slot lease (src/lib/server/stream/relayCluster.ts, default lease TTL) with
 * one in-process viewer of SPX_classic_gex_full, against the embedded service's hubs (its own
 * process, simulated market at `SPEED` seconds per wall second). The holder is SIGKILLed; the
 * time from the kill to the first frame a surviving viewer gets from the new holder (lease
 * hand-over, negotiation, hub connect, next tick, Redis Stream hop) is measured, then a fresh
 * process replaces the dead one, ten times over.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { connectRedis } from '../src/lib/server/cluster/redis';
import { setLogSink } from '../src/lib/server/log';
import { StreamRelay } from '../src/lib/server/stream';
import { RelayCluster } from '../src/lib/server/stream/relayCluster';
import { parseRelayFrame } from '../src/lib/relay/relayFrame';
import { demoAccountsFor } from '../src/service/accounts/demo';
import { spawnService } from './support';

const GROUP = 'SPX_classic_gex_full';
const SPEED = 10;

type Report = { kind: 'held' | 'frame'; pid: number; at: number };

/** Child: a replica's relay with one viewer; says when it holds the slot and when a frame lands. */
function replica(redisUrl: string, baseUrl: string, key: string): void {
	setLogSink({ out: () => undefined, err: () => undefined });
	const send = (kind: Report['kind']) =>
		process.send?.({ kind, pid: process.pid, at: Date.now() } satisfies Report);
	const cluster = new RelayCluster(
		connectRedis(redisUrl),
		connectRedis(redisUrl),
		`p${process.pid}`
	);
	const relay = new StreamRelay({ baseUrl, key, userAgent: 'gexdeck/bench', cluster });
	const viewer = relay.connect({
		readyState: 1,
		bufferedAmount: 0,
		send: (data, cb) => {
			if (typeof data !== 'string') {
				const p = parseRelayFrame(data);
				if (p.ok && p.frame.group === GROUP) send('frame');
			}
			cb?.();
		},
		close: () => undefined
	});
	relay.subscribe(viewer, [GROUP]);
	let held = false;
	setInterval(() => {
		if (cluster.holding && !held) send('held');
		held = cluster.holding;
	}, 10);
}

export async function relayFailover(redisUrl: string, kills = 10) {
	const dataDir = mkdtempSync(join(tmpdir(), 'gexdeck-bench-relay-'));
	const service = await spawnService({
		dataDir,
		tickers: ['SPX'],
		speed: SPEED,
		start: '2026-11-18T14:31:00Z'
	});
	const key = demoAccountsFor(dataDir).accounts.find((a) => a._id === 'demo-quant')!.keys[0].key;
	const children = new Map<number, ChildProcess>();
	const reports: Report[] = [];
	const spawnOne = () => {
		const child = fork(fileURLToPath(import.meta.url), ['relay', redisUrl, service.url, key], {
			execArgv: ['--import', 'tsx'],
			stdio: ['ignore', 'inherit', 'inherit', 'ipc']
		});
		child.on('message', (m) => reports.push(m as Report));
		child.once('exit', () => children.delete(child.pid!));
		children.set(child.pid!, child);
	};
	const waitFor = async (pred: (r: Report) => boolean, ms = 20_000): Promise<Report> => {
		const end = Date.now() + ms;
		for (;;) {
			const found = reports.find(pred);
			if (found) return found;
			if (Date.now() > end) throw new Error('relay failover bench: timed out');
			await new Promise((r) => setTimeout(r, 5));
		}
	};
	try {
		for (let i = 0; i < 3; i++) spawnOne();
		// Three tsx processes starting on a loaded machine can take longer than a failover.
		let holder = (await waitFor((r) => r.kind === 'held', 90_000)).pid;
		const times: number[] = [];
		for (let k = 0; k < kills; k++) {
			// Frames flowing to every viewer first, as in service.
			await new Promise((r) => setTimeout(r, 2_000));
			const killedAt = Date.now();
			children.get(holder)!.kill('SIGKILL');
			const dead = holder;
			const held = await waitFor((r) => r.kind === 'held' && r.at > killedAt && r.pid !== dead);
			const frame = await waitFor(
				(r) => r.kind === 'frame' && r.at > held.at && r.pid !== dead && children.has(r.pid)
			);
			times.push(frame.at - killedAt);
			holder = held.pid;
			// The replacement starts after the measure: a tsx process compiling during the
			// failover is not part of it (a cluster that lost a machine starts nothing new).
			spawnOne();
		}
		times.sort((a, b) => a - b);
		return { median: times[Math.floor(times.length / 2)], max: times[times.length - 1], times };
	} finally {
		for (const c of children.values()) c.kill('SIGKILL');
		await service.stop();
		rmSync(dataDir, { recursive: true, force: true });
	}
}

if (process.argv[2] === 'relay') replica(process.argv[3], process.argv[4], process.argv[5]);
