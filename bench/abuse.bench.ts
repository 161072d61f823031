/**
 * `npm run bench -- abuse [--probe webhooks|flood|history|sse] [--root <checkout>]`: the probes of
 * issue 22 against the built dashboard (`node build`, stub upstream, fresh data folder), measured
 * from outside the process (/proc/<pid>: RSS, open descriptors). `--root` runs another
 * checkout's build (e.g. main, for the before figures); the default is this one.
 *
 * - webhooks: up to 200 webhooks at a loopback receiver (answering 500 after 200 ms, so every
 *   delivery retries), one rule on as many as accepted, three "test rule" posts; the receiver
 *   counts the most connections open at once and every request over 25 s.
 * - flood: a /stream viewer that stops reading and sends 300,000 {"type":"status"}; RSS before,
 *   at its peak, and 10 s after the socket is gone; whether the server closed it.
 * - history: a recorded hour of SPX (400-strike chain, one frame a second); 800 /history
 *   requests for it at once whose answers are not read; peak descriptors, /healthz latency
 *   (median, p99, max; asked one after another from just before the burst to 5 s after it),
 *   answers by status.
 * - sse: 3,000 /alerts/events streams at once; how many were accepted, peak descriptors.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync } from 'node:fs';
import { createServer, get, request, type ClientRequest } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import WebSocket from 'ws';
import { SessionRecorder } from '../src/lib/server/recorder/sessionRecorder';
import { UpdateTap } from '../src/lib/server/updates/tap';
import { spxChain } from '../src/lib/wire/arbitraries.test-support';
import { encodeFrame, initWireEncoder } from '../src/lib/wire/encode';
import { startStubUpstream } from '../tests/integration/dashboard-support';
import { root as here, rssBytes, spawnBuiltDashboard } from './support';

const arg = (name: string) => {
	const i = process.argv.indexOf(`--${name}`);
	return i >= 0 ? process.argv[i + 1] : undefined;
};
const root = arg('root') ?? here;
const probes = arg('probe') ? [arg('probe')!] : ['webhooks', 'flood', 'history', 'sse'];
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const mb = (bytes: number) => `${(bytes / 1024 ** 2).toFixed(0)} MB`;

const fds = (pid: number) => readdirSync(`/proc/${pid}/fd`).length;

interface Dash {
	proc: ChildProcess;
	port: number;
	base: string;
	dataDir: string;
	stop(): Promise<void>;
}

async function dashboard(env: Record<string, string>, dataDir?: string): Promise<Dash> {
	const stub = await startStubUpstream();
	const dir = dataDir ?? mkdtempSync(join(tmpdir(), 'gexdeck-abuse-'));
	const { proc, port, base } = await spawnBuiltDashboard(root, {
		...stub.env,
		GEXDECK_DATA_DIR: dir,
		...env
	});
	return {
		proc,
		port,
		base,
		dataDir: dir,
		stop: async () => {
			const exited = new Promise((r) => proc.once('exit', r));
			proc.kill('SIGTERM');
			await exited;
			await stub.close();
		}
	};
}

/** A form action post as the page's enhanced form sends it; the action's result type. */
async function action(d: Dash, path: string, fields: Record<string, string | string[]>) {
	const page = await fetch(`${d.base}/alerts`);
	const csrf = /gexdeck_csrf=([^;]+)/.exec(page.headers.get('set-cookie') ?? '')?.[1] ?? '';
	const body = new URLSearchParams();
	body.append('csrf', csrf);
	for (const [k, v] of Object.entries(fields))
		for (const x of Array.isArray(v) ? v : [v]) body.append(k, x);
	const res = await fetch(`${d.base}${path}`, {
		method: 'POST',
		headers: {
			origin: d.base,
			cookie: `gexdeck_csrf=${csrf}`,
			'content-type': 'application/x-www-form-urlencoded',
			'x-sveltekit-action': 'true',
			accept: 'application/json'
		},
		body
	});
	return ((await res.json()) as { type: string }).type;
}

async function webhooks(): Promise<string> {
	let open = 0;
	let maxOpen = 0;
	let requests = 0;
	const receiver = createServer((_req, res) => {
		requests++;
		setTimeout(() => res.writeHead(500).end(), 200);
	});
	receiver.on('connection', (s) => {
		open++;
		maxOpen = Math.max(maxOpen, open);
		s.on('close', () => open--);
	});
	await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
	const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
	const d = await dashboard({ GEXDECK_WEBHOOK_ALLOW: '127.0.0.1' });
	try {
		const ids: string[] = [];
		for (let i = 0; i < 200; i++) {
			const type = await action(d, '/alerts?/saveWebhook', { id: `w${i}`, url, format: 'json' });
			if (type === 'success') ids.push(`w${i}`);
		}
		const rule = {
			id: 'r1',
			name: 'probe',
			ticker: 'SPX',
			kind: 'gex_sign',
			package: 'classic',
			category: 'gex_full',
			basis: 'vol',
			hysteresis: '0',
			cooldownSeconds: '0'
		};
		let saved = await action(d, '/alerts?/saveRule', { ...rule, allWebhooks: 'on' });
		let onRule = ids.length;
		for (let n = ids.length; saved !== 'success' && n > 0; n--) {
			saved = await action(d, '/alerts?/saveRule', { ...rule, webhooks: ids.slice(0, n) });
			onRule = n;
		}
		for (let i = 0; i < 3; i++) await action(d, '/alerts?/testRule', { id: 'r1' });
		await sleep(25_000);
		return `webhooks accepted ${ids.length} of 200, ${onRule} on the rule; 3 test posts: max ${maxOpen} connections open at once, ${requests} requests in 25 s`;
	} finally {
		await d.stop();
		receiver.close();
	}
}

async function flood(): Promise<string> {
	const d = await dashboard({});
	try {
		await sleep(2_000);
		const before = rssBytes(d.proc.pid!);
		let peak = before;
		const sample = setInterval(() => (peak = Math.max(peak, rssBytes(d.proc.pid!))), 100);
		const ws = new WebSocket(`ws://127.0.0.1:${d.port}/stream`);
		await new Promise((r) => ws.once('open', r));
		(ws as unknown as { _socket: Socket })._socket.pause();
		let closed = false;
		ws.on('close', () => (closed = true));
		ws.on('error', () => undefined);
		const msg = JSON.stringify({ type: 'status' });
		let sent = 0;
		for (; sent < 300_000 && !closed; sent++) {
			ws.send(msg);
			if (sent % 2000 === 1999) await sleep(5);
		}
		await sleep(3_000);
		const byServer = closed;
		ws.terminate();
		await sleep(10_000);
		clearInterval(sample);
		const after = rssBytes(d.proc.pid!);
		return `flood: sent ${sent} status requests; closed by the server: ${byServer}; RSS ${mb(before)} before, peak ${mb(peak)}, ${mb(after)} 10 s after the socket closed`;
	} finally {
		await d.stop();
	}
}

async function recordHour(dataDir: string): Promise<string> {
	await initWireEncoder();
	const open = 1795446000; // 2026-11-23 09:30 ET
	const recorder = new SessionRecorder({ root: join(dataDir, 'recordings') });
	const tap = new UpdateTap();
	recorder.attach(tap);
	const variants = Array.from({ length: 30 }, (_, v) => spxChain(400, v + 3));
	for (let s = 0; s < 3600; s++) {
		const ts = open + s;
		tap.publish({
			source: 'stream',
			group: 'SPX_classic_gex_full',
			receivedAt: (ts + 0.5) * 1000,
			any: encodeFrame('gex', { ...variants[s % 30], timestamp: ts, spot: 7138 })
		});
	}
	recorder.close();
	return '2026-11-23';
}

async function healthzMs(base: string): Promise<number> {
	const t = performance.now();
	await fetch(`${base}/healthz`).then((r) => r.arrayBuffer());
	return performance.now() - t;
}

/** Median, p99 and max of latencies (ms), how many, and how many took 100 ms or more. */
function latencyText(lat: number[]): string {
	const s = [...lat].sort((a, b) => a - b);
	const at = (q: number) => s[Math.min(s.length - 1, Math.floor(s.length * q))].toFixed(0);
	const slow = s.filter((ms) => ms >= 100).length;
	return `median ${at(0.5)} ms, p99 ${at(0.99)} ms, max ${at(1)} ms (${s.length} asked, ${slow} >= 100 ms)`;
}

async function history(): Promise<string> {
	const dataDir = mkdtempSync(join(tmpdir(), 'gexdeck-abuse-'));
	const day = await recordHour(dataDir);
	const d = await dashboard({}, dataDir);
	try {
		// A fresh process loads its route modules on first use: done before measuring.
		for (const path of ['/healthz', `/history/SPX/classic_gex_full?day=${day}&to=1`]) {
			await (await fetch(d.base + path)).arrayBuffer();
		}
		const base = fds(d.proc.pid!);
		const statuses = new Map<number, number>();
		const held: ClientRequest[] = [];
		let peak = base;
		const sample = setInterval(() => (peak = Math.max(peak, fds(d.proc.pid!))), 50);
		// /healthz asked one after another from before the burst until 5 s after it.
		const lat: number[] = [];
		let probing = true;
		const probe = (async () => {
			while (probing) {
				lat.push(await healthzMs(d.base));
				await sleep(20);
			}
		})();
		await sleep(200);
		for (let i = 0; i < 800; i++) {
			const req = get(
				{
					host: '127.0.0.1',
					port: d.port,
					agent: false,
					path: `/history/SPX/classic_gex_full?day=${day}`
				},
				(res) => {
					statuses.set(res.statusCode!, (statuses.get(res.statusCode!) ?? 0) + 1);
					res.pause(); // not read: the answer waits on the socket
				}
			);
			req.on('error', () => undefined);
			held.push(req);
		}
		await sleep(5000);
		probing = false;
		await probe;
		clearInterval(sample);
		for (const r of held) r.destroy();
		const by = [...statuses].map(([s, n]) => `${n}x${s}`).join(', ');
		return `history: 800 unread requests: answers ${by}; descriptors ${base} -> peak ${peak}; /healthz ${latencyText(lat)}`;
	} finally {
		await d.stop();
	}
}

async function sse(): Promise<string> {
	const d = await dashboard({});
	try {
		const base = fds(d.proc.pid!);
		let ok = 0;
		let refused = 0;
		const held: ClientRequest[] = [];
		await Promise.all(
			Array.from(
				{ length: 3000 },
				() =>
					new Promise<void>((resolve) => {
						const req = request(
							{ host: '127.0.0.1', port: d.port, path: '/alerts/events', agent: false },
							(res) => {
								if (res.statusCode === 200) ok++;
								else refused++;
								resolve();
							}
						);
						req.on('error', () => resolve());
						req.end();
						held.push(req);
					})
			)
		);
		const peak = fds(d.proc.pid!);
		const lat = await healthzMs(d.base);
		for (const r of held) r.destroy();
		return `sse: 3,000 streams: ${ok} accepted, ${refused} refused (503); descriptors ${base} -> ${peak}; /healthz ${lat.toFixed(0)} ms while held`;
	} finally {
		await d.stop();
	}
}

const run: Record<string, () => Promise<string>> = { webhooks, flood, history, sse };
console.log(`root: ${root}`);
for (const p of probes) console.log(`- ${await run[p]()}`);
