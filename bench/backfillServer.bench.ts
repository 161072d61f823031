/**
 * `npm run bench -- backfillServer`: what whole-day backfills cost the dashboard server's event
 * loop (its first rule: nothing may stall it, since the same process relays live frames to the
 * open tabs, answers /api and records). A recorded SPX day (23,400 one-second 400-strike
 * classic gex_full frames and 23,400 spot frames) is served by the /history route code
 * (backfillResponse) in a process of its own (bench/backfill.server-child.ts); N=4 requests for
 * the whole day with spot merged run at once over loopback HTTP, 3 rounds after a warm-up.
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

// ---- the server process ---------------------------------------------------------------------
const child = fork(fileURLToPath(new URL('./backfill.server-child.ts', import.meta.url)), [dir], {
	execArgv: ['--import', 'tsx'],
	stdio: ['ignore', 'inherit', 'inherit', 'ipc']
});
const ask = <T>(msg?: string) =>
	new Promise<T>((resolve, reject) => {
		child.once('message', (m) => resolve(m as T));
		child.once('exit', (code) => reject(new Error(`server process exited with ${code}`)));
		if (msg) child.send(msg);
	});
const { port } = await ask<{ port: number }>();
const path = `/history/SPX/classic_gex_full?day=2026-11-23&with=spot`;

interface Answer {
	ttfbMs: number;
	totalMs: number;
	bytes: number;
	records: string;
	sha: string;
}
function backfill(): Promise<Answer> {
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
	await backfill(); // warm-up: page cache, JIT
	const delays: Delay[] = [];
	const answers: Answer[] = [];
	for (let r = 0; r < ROUNDS; r++) {
		await ask('start');
		answers.push(...(await Promise.all(Array.from({ length: CONCURRENT }, backfill))));
		delays.push(await ask<Delay>('stop'));
	}
	const shas = new Set(answers.map((a) => a.sha));
	if (shas.size !== 1) throw new Error(`answers differ: ${[...shas].join(', ')}`);
	const med = (xs: number[]) => f(median(xs));
	console.log(
		`### Whole-day backfills against the server's event loop (${SECONDS} s of classic_gex_full + spot)\n`
	);
	console.log(
		`Shared machine (2 cores, other sessions running). ${CONCURRENT} concurrent GET ${path} over loopback, ${ROUNDS} rounds after a warm-up; medians over rounds (delay) and over the ${answers.length} answers (times).\n`
	);
	console.log('| measure | value |\n| --- | --- |');
	console.log(`| server event-loop delay p50 | ${med(delays.map((d) => d.p50))} ms |`);
	console.log(`| server event-loop delay p99 | ${med(delays.map((d) => d.p99))} ms |`);
	console.log(`| server event-loop delay max | ${med(delays.map((d) => d.max))} ms |`);
	console.log(`| worst max over the rounds | ${f(Math.max(...delays.map((d) => d.max)))} ms |`);
	console.log(`| time to first byte | ${med(answers.map((a) => a.ttfbMs))} ms |`);
	console.log(`| total time of an answer | ${med(answers.map((a) => a.totalMs))} ms |`);
	console.log(
		`| body | ${f(answers[0].bytes / 1024 ** 2)} MB, ${answers[0].records} records, sha256 ${answers[0].sha}… |`
	);
	console.log('');
} finally {
	child.disconnect();
	rmSync(dir, { recursive: true, force: true });
}
