/**
 * Hub loop cost: 20 connected clients (20 accounts, one custom slot each, two hubs per client),
 * each holding 150 memberships across 50 tickers, on the embedded service with its real
 * simulated market ticking once per simulated second in RTH.
 *
 * Memberships per client: `{T}_classic_<gex_full|gex_zero|gex_one>` (the category rotates with
 * the client, so clients overlap only partly) + `{T}_spot` for 50 tickers on v2_classic (100),
 * and `{T}_orderflow_orderflow` + `{T}_spot` for 25 of them on v2_orderflow (50).
 *
 * Measured per simulated second: wall time of the hubs' delivery (encode each group once, hand
 * the same envelope to every member socket), as a share of one core; frames and bytes.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import WebSocket from 'ws';
import { generateKey } from '../src/lib/contract/keys';
import { ALL_TICKERS } from '../src/lib/contract/tickers';
import type { AccountsFile } from '../src/service/accounts/file';
import { demoAccounts } from '../src/service/accounts/demo';
import { attachHubs } from '../src/service/hubs/index';
import type { FanoutStats } from '../src/service/hubs/fanout';
import { startService } from '../src/service/server';

const CLIENTS = 20;
const TICKERS = ALL_TICKERS.slice(0, 50);
const SECONDS = Number(process.env.HUBS_BENCH_SECONDS ?? 30);
/** Full-universe ticks skipped before measuring. */
const WARMUP = 3;
const UA = 'gexdeck-bench/1.0';

function accountsFile(): AccountsFile {
	const template = demoAccounts().accounts.find((a) => a._id === 'demo-quant')!;
	const accounts = Array.from({ length: CLIENTS }, (_, i) => ({
		...structuredClone(template),
		_id: `bench-${i}`,
		keys: [{ ...structuredClone(template.keys[0]), key: generateKey('custom') }]
	}));
	return { accounts };
}

function groupsOf(client: number): string[] {
	const category = ['gex_full', 'gex_zero', 'gex_one'][client % 3];
	return [
		...TICKERS.map((t) => `${t}_classic_${category}`),
		...TICKERS.slice(0, 25).map((t) => `${t}_orderflow_orderflow`),
		...TICKERS.map((t) => `${t}_spot`)
	];
}

function quantile(sorted: number[], q: number): number {
	if (sorted.length === 0) return NaN;
	return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
}

const dataDir = mkdtempSync(join(tmpdir(), 'gexdeck-bench-hubs-'));
const accounts = accountsFile();
const service = await startService({
	accounts,
	dataDir,
	seed: 5,
	clock: 'session',
	// A Wednesday 11:00 ET: regular trading hours, one tick per simulated second.
	start: '2026-11-18T16:00:00Z',
	speed: 1,
	tickers: TICKERS,
	quotaFlushMs: 1000
});
const hubs = await attachHubs(service);

// Frame sizes by kind, from what the clients receive (each distinct message once per tick).
const bytesByKind = new Map<string, number[]>();
let receivedBytes = 0;
const sockets: WebSocket[] = [];
for (let i = 0; i < CLIENTS; i++) {
	const res = await fetch(`${service.url}/negotiate`, {
		method: 'POST',
		headers: {
			'User-Agent': UA,
			'Content-Type': 'application/json',
			Authorization: `Bearer ${accounts.accounts[i].keys[0].key}`
		},
		body: JSON.stringify({ groups: groupsOf(i) })
	});
	if (res.status !== 200) throw new Error(`negotiate ${res.status}: ${await res.text()}`);
	const { websocket_urls } = (await res.json()) as { websocket_urls: Record<string, string> };
	for (const hub of ['v2_classic', 'v2_orderflow']) {
		const ws = new WebSocket(websocket_urls[hub], 'json.webpubsub.azure.v1');
		const sample =
			i === 0 || (i === 1 && hub === 'v2_classic') || (i === 2 && hub === 'v2_classic');
		ws.on('message', (data: Buffer) => {
			receivedBytes += data.length;
			if (!sample) return;
			const text = data.toString();
			const kind = text.includes('_spot"')
				? 'spot'
				: text.includes('_orderflow_')
					? 'orderflow'
					: text.includes('_classic_')
						? 'gex (classic)'
						: 'system';
			if (kind === 'system') return;
			const list = bytesByKind.get(kind) ?? [];
			list.push(data.length);
			bytesByKind.set(kind, list);
		});
		await new Promise((resolve, reject) => {
			ws.once('message', resolve);
			ws.once('error', reject);
		});
		sockets.push(ws);
	}
}

// The market brings tickers online progressively after a start; measure once every ticker
// ticks (plus a few seconds), so each simulated second carries the full 150-membership load.
let warm = 0;
await new Promise<void>((resolve) => {
	const off = service.market.onTick((tick) => {
		if (tick.tickers.size >= TICKERS.length && ++warm >= WARMUP) {
			off();
			resolve();
		}
	});
});
bytesByKind.clear();
receivedBytes = 0;
const samples: FanoutStats[] = [];
const cpuStart = process.cpuUsage();
const wallStart = performance.now();
await new Promise<void>((resolve) => {
	const off = service.market.onTick(() => {
		// Listeners run in registration order: the hubs' listener (registered earlier) has
		// delivered this tick already.
		const stats = hubs.lastStats();
		if (stats) samples.push(stats);
		if (samples.length >= SECONDS) {
			off();
			resolve();
		}
	});
});
const wallMs = performance.now() - wallStart;
const cpu = process.cpuUsage(cpuStart);

for (const ws of sockets) ws.close();
await service.close();
rmSync(dataDir, { recursive: true, force: true });

const sorted = (f: (s: FanoutStats) => number) => samples.map(f).sort((x, y) => x - y);
const cpuMs = sorted((s) => s.cpuMs);
const wall = sorted((s) => s.elapsedMs);
const share = (ms: number) => `${((ms / 1000) * 100).toFixed(2)} %`;
const framesPerTick = quantile(
	samples.map((s) => s.framesSent).sort((a, b) => a - b),
	0.5
);
const groupsPerTick = quantile(
	samples.map((s) => s.groupsEncoded).sort((a, b) => a - b),
	0.5
);

console.log(
	`${CLIENTS} clients x 150 memberships over ${TICKERS.length} tickers, ${samples.length} simulated seconds once all tickers tick, node ${process.version}\n`
);
console.log('| measure | value | target |');
console.log('|---|---|---|');
for (const [label, q] of [
	['median', 0.5],
	['p95', 0.95],
	['max', 1]
] as const) {
	const c = quantile(cpuMs, q);
	console.log(
		`| hub loop CPU per simulated second, ${label} | ${c.toFixed(1)} ms = ${share(c)} of one core | < 20 % |`
	);
}
console.log(
	`| hub loop wall time per simulated second, median / p95 (inflated when the machine is loaded) | ${quantile(wall, 0.5).toFixed(1)} / ${quantile(wall, 0.95).toFixed(1)} ms | |`
);
console.log(`| distinct groups encoded per tick (median) | ${groupsPerTick} | encoded once each |`);
console.log(`| frames sent per tick (median) | ${framesPerTick} | ${CLIENTS * 150} memberships |`);
for (const [kind, list] of [...bytesByKind].sort()) {
	list.sort((a, b) => a - b);
	console.log(
		`| bytes per frame on the wire (JSON envelope with base64 Any), ${kind} (median / p95) | ${quantile(list, 0.5)} / ${quantile(list, 0.95)} | |`
	);
}
console.log(
	`| bytes to clients per simulated second | ${Math.round(receivedBytes / (wallMs / 1000)).toLocaleString('en-US')} | |`
);
console.log(
	`| whole process CPU (market engine + REST + hubs + 40 client sockets) | ${(((cpu.user + cpu.system) / 1000 / wallMs) * 100).toFixed(1)} % of one core | (context) |`
);
