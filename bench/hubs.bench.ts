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
 * the same envelope to every member socket), as a share of one core; frames and bytes. Then the
 * same clients again on the reliable subprotocol (sequence ids, acks once a second as the SDKs
 * do): hub loop CPU per connection against the plain protocol, and the resend buffer per client
 * (steady, and its growth per second while a client does not ack).
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
let sockets: WebSocket[] = [];
/** Reliable clients: highest sequenceId seen per socket, acked once a second like the SDKs. */
const lastSequence = new Map<WebSocket, number>();
let acking = true;
const ackTimer = setInterval(() => {
	if (!acking) return;
	for (const [ws, n] of lastSequence) {
		if (ws.readyState === WebSocket.OPEN) ws.send(`{"type":"sequenceAck","sequenceId":${n}}`);
	}
}, 1000);
ackTimer.unref();

/** Negotiates every account (a POST renews its slot) and connects its two hubs. */
async function connectClients(protocol: string): Promise<void> {
	for (const ws of sockets) ws.close();
	sockets = [];
	lastSequence.clear();
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
			const ws = new WebSocket(websocket_urls[hub], protocol);
			const sample =
				i === 0 || (i === 1 && hub === 'v2_classic') || (i === 2 && hub === 'v2_classic');
			ws.on('message', (data: Buffer) => {
				receivedBytes += data.length;
				const text = data.toString();
				const seq = /"sequenceId":(\d+)\}$/.exec(text);
				if (seq) lastSequence.set(ws, Number(seq[1]));
				if (!sample) return;
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
}

/** Fan-out stats of the next `n` ticks (the hubs' listener runs before this one). */
function nextTicks(n: number): Promise<FanoutStats[]> {
	const samples: FanoutStats[] = [];
	return new Promise((resolve) => {
		const off = service.market.onTick(() => {
			const stats = hubs.lastStats();
			if (stats) samples.push(stats);
			if (samples.length >= n) {
				off();
				resolve(samples);
			}
		});
	});
}

/** Bytes of resend buffer held per client (its two connections: 150 memberships). */
function heldPerClient(): number[] {
	const byAccount = new Map<string, number>();
	for (const c of hubs.reliable.connections()) {
		byAccount.set(c.account, (byAccount.get(c.account) ?? 0) + c.heldBytes);
	}
	return [...byAccount.values()].sort((a, b) => a - b);
}

await connectClients('json.webpubsub.azure.v1');
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
const cpuStart = process.cpuUsage();
const wallStart = performance.now();
const samples = await nextTicks(SECONDS);
const wallMs = performance.now() - wallStart;
const cpu = process.cpuUsage(cpuStart);

// The same clients again on the reliable protocol (sequence ids, acks once a second).
await connectClients('json.reliable.webpubsub.azure.v1');
await nextTicks(WARMUP);
const heldSamples: number[] = [];
const reliableSamples: FanoutStats[] = [];
for (let i = 0; i < SECONDS; i++) {
	reliableSamples.push(...(await nextTicks(1)));
	heldSamples.push(...heldPerClient());
}
heldSamples.sort((a, b) => a - b);
// A client that stops acking (or drops): what one second of its feed adds to the buffer.
acking = false;
const before = heldPerClient();
const unacked = 5;
await nextTicks(unacked);
const after = heldPerClient();
const growth = after.map((b, i) => (b - (before[i] ?? 0)) / unacked).sort((a, b) => a - b);
const connections = sockets.length;

clearInterval(ackTimer);
for (const ws of sockets) ws.close();
await service.close();
rmSync(dataDir, { recursive: true, force: true });

const sortedOf = (list: FanoutStats[], f: (s: FanoutStats) => number) =>
	list.map(f).sort((x, y) => x - y);
const cpuMs = sortedOf(samples, (s) => s.cpuMs);
const wall = sortedOf(samples, (s) => s.elapsedMs);
const reliableCpu = sortedOf(reliableSamples, (s) => s.cpuMs);
const share = (ms: number) => `${((ms / 1000) * 100).toFixed(2)} %`;
const framesPerTick = quantile(
	samples.map((s) => s.framesSent).sort((a, b) => a - b),
	0.5
);
const groupsPerTick = quantile(
	samples.map((s) => s.groupsEncoded).sort((a, b) => a - b),
	0.5
);
const kib = (b: number) => `${(b / 1024).toFixed(0)} KiB`;

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
const plainPer = quantile(cpuMs, 0.5) / connections;
const reliablePer = quantile(reliableCpu, 0.5) / connections;
console.log(
	`| reliable protocol: hub loop CPU per connection per simulated second, median (plain / reliable, ratio) | ${(plainPer * 1000).toFixed(0)} / ${(reliablePer * 1000).toFixed(0)} µs, x${(reliablePer / plainPer).toFixed(2)} | |`
);
console.log(
	`| reliable protocol: resend buffer per client (150 memberships, acks every 1 s), median / p95 / max | ${kib(quantile(heldSamples, 0.5))} / ${kib(quantile(heldSamples, 0.95))} / ${kib(quantile(heldSamples, 1))} | bound 8 MiB per connection |`
);
console.log(
	`| reliable protocol: resend buffer growth per second without acks (a dropped client), median per client | ${kib(quantile(growth, 0.5))}/s = ${kib(quantile(growth, 0.5) * 30)} over the 30 s recovery window | |`
);
console.log(
	'\nResend buffers hold references to the per-tick envelopes the fan-out shares among all members of a group; the sizes above count those envelopes per client (an upper bound of the memory it keeps alive).'
);
