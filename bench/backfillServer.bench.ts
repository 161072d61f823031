/**
 * `npm run bench -- backfillServer`: what whole-day backfills cost the dashboard server's event
 * loop (its first rule: nothing may stall it, since the same process relays live frames to the
 * open tabs, answers /api and records). A recorded SPX day (23,400 one-second 400-strike
 * classic gex_full frames and 23,400 spot frames) is served by the /history route code
 * (backfillResponse) in a process of its own (bench/backfill.server-child.ts); N=4 requests for
 * the whole day with spot merged run at once over loopback HTTP, 3 rounds after a warm-up.
 * Before: a second server process builds each answer the synchronous way it was built before
 * it streamed (synchronousBackfill); the two sides take turns, round by round.
 * Measured: the server's event-loop delay during each round (perf_hooks.monitorEventLoopDelay,
 * p50/p99/max), each answer's time to first byte and total time, and a sha256 of the body (the
 * same on every answer, and across versions of the code: the wire bytes must not change).
 */
import { fork } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { get } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SessionRecorder } from '../src/lib/server/recorder/sessionRecorder';
import { UpdateTap } from '../src/lib/server/updates/tap';
import { spxChain } from '../src/lib/wire/arbitraries.test-support';
import { encodeFrame, initWireEncoder } from '../src/lib/wire/encode';
import { median } from './support';

await initWireEncoder();
const f = (x: number, d = 1) => x.toFixed(d);
const OPEN = 1795446000; // 2026-11-23 09:30 ET
const SECONDS = Number(process.env.BACKFILL_BENCH_SECONDS ?? 23_400);
const CONCURRENT = 4;
const ROUNDS = 3;

// ---- the recorded day (written here, served by the child from the same files) ---------------
const dir = mkdtempSync(join(tmpdir(), 'gexdeck-bench-backfillserver-'));
{
	const recorder = new SessionRecorder({ root: dir });
	const tap = new UpdateTap();
	recorder.attach(tap);
	const variants = Array.from({ length: 30 }, (_, v) => spxChain(400, v + 3));
	const t = performance.now();
	for (let s = 0; s < SECONDS; s++) {
		const ts = OPEN + s;
		const spot = 7138.55 + Math.round(Math.sin(s / 900) * 2000) / 100;
		const receivedAt = (ts + 0.5) * 1000;
		tap.publish({
			source: 'stream',
			group: 'SPX_classic_gex_full',
			receivedAt,
			any: encodeFrame('gex', { ...variants[s % 30], timestamp: ts, spot })
		});
		tap.publish({
			source: 'stream',
			group: 'SPX_spot',
			receivedAt: receivedAt + 100,
			any: encodeFrame('spot', { ticker: 'SPX', timestamp: ts, spot })
		});
	}
	recorder.close();
	console.error(`recorded ${SECONDS} s in ${f((performance.now() - t) / 1000)} s`);
}

// ---- the server processes: the streamed answer (after) and the synchronous one (before) ------
const SIDES = ['before', 'after'] as const;
type Side = (typeof SIDES)[number];
async function serve(mode: 'sync' | 'stream') {
	const child = fork(
		fileURLToPath(new URL('./backfill.server-child.ts', import.meta.url)),
		[dir, mode],
		{
			execArgv: ['--import', 'tsx'],
			stdio: ['ignore', 'inherit', 'inherit', 'ipc']
		}
	);
	const ask = <T>(msg?: string) =>
		new Promise<T>((resolve, reject) => {
			const exited = (code: number | null) =>
				reject(new Error(`server process exited with ${code}`));
			child.once('exit', exited);
			child.once('message', (m) => {
				child.off('exit', exited);
				resolve(m as T);
			});
			if (msg) child.send(msg);
		});
	const { port } = await ask<{ port: number }>();
	return { child, ask, port };
}
const servers = { before: await serve('sync'), after: await serve('stream') };
const path = `/history/SPX/classic_gex_full?day=2026-11-23&with=spot`;

interface Answer {
	ttfbMs: number;
	totalMs: number;
	bytes: number;
	records: string;
	sha: string;
}
function backfill(port: number): Promise<Answer> {
	return new Promise((resolve, reject) => {
		const t = performance.now();
		let ttfb = 0;
		let bytes = 0;
		const hash = createHash('sha256');
		get({ host: '127.0.0.1', port, path }, (res) => {
			if (res.statusCode !== 200) reject(new Error(`status ${res.statusCode}`));
			res.on('data', (piece: Buffer) => {
				if (bytes === 0) ttfb = performance.now() - t;
				bytes += piece.length;
				hash.update(piece);
			});
			res.on('end', () =>
				resolve({
					ttfbMs: ttfb,
					totalMs: performance.now() - t,
					bytes,
					records: String(res.headers['x-gexdeck-records']),
					sha: hash.digest('hex').slice(0, 16)
				})
			);
			res.on('error', reject);
		}).on('error', reject);
	});
}

interface Delay {
	p50: number;
	p99: number;
	max: number;
}
try {
	const delays: Record<Side, Delay[]> = { before: [], after: [] };
	const answers: Record<Side, Answer[]> = { before: [], after: [] };
	for (const side of SIDES) await backfill(servers[side].port); // warm-up: page cache, JIT
	for (let r = 0; r < ROUNDS; r++) {
		for (const side of SIDES) {
			const { ask, port } = servers[side];
			await ask('start');
			answers[side].push(
				...(await Promise.all(Array.from({ length: CONCURRENT }, () => backfill(port))))
			);
			delays[side].push(await ask<Delay>('stop'));
		}
	}
	const all = [...answers.before, ...answers.after];
	const shas = new Set(all.map((a) => a.sha));
	if (shas.size !== 1) throw new Error(`answers differ: ${[...shas].join(', ')}`);
	console.log(
		`### Whole-day backfills against the server's event loop (${SECONDS} s of classic_gex_full + spot)\n`
	);
	console.log(
		`Shared machine (2 cores, other sessions running). ${CONCURRENT} concurrent GET ${path} over loopback, ${ROUNDS} rounds per side after a warm-up, before (the synchronous answer) and after (streamed) taking turns; medians over rounds (delay) and over the ${answers.after.length} answers of a side (times).\n`
	);
	console.log('| measure | before | after | after / before |\n| --- | --- | --- | --- |');
	const row = (label: string, of: (side: Side) => number) => {
		const [b, a] = SIDES.map(of);
		console.log(`| ${label} | ${f(b)} ms | ${f(a)} ms | ${f(a / b, 3)} |`);
	};
	const delay = (k: keyof Delay) => (side: Side) => median(delays[side].map((d) => d[k]));
	row('server event-loop delay p50', delay('p50'));
	row('server event-loop delay p99', delay('p99'));
	row('server event-loop delay max', delay('max'));
	row('worst max over the rounds', (side) => Math.max(...delays[side].map((d) => d.max)));
	row('time to first byte', (side) => median(answers[side].map((a) => a.ttfbMs)));
	row('total time of an answer', (side) => median(answers[side].map((a) => a.totalMs)));
	console.log(
		`| body (the same bytes on both sides) | ${f(all[0].bytes / 1024 ** 2)} MB, ${all[0].records} records, sha256 ${all[0].sha}… | | |`
	);
	console.log('');
} finally {
	for (const side of SIDES) servers[side].child.disconnect();
	rmSync(dir, { recursive: true, force: true });
}
