/**
 * `npm run bench -- backfill`: a view opened on a full recorded SPX day, before and after the
 * streamed backfill (bench/backfill.harness.ts says what each side runs), in Chromium against
 * the real server code (backfillResponse over the SessionRecorder's files, through HTTP).
 *
 * The day: 23,400 one-second frames of a 400-strike SPX classic gex_full chain (real
 * zstd-protobuf frames from the wire encoder) and 23,400 orderflow frames. Cases:
 * - Classic opened late (what its timeline asks: one frame per 5 s, 4,680 chains);
 * - Orderflow opened late (every second of the day, 23,400 payloads).
 * Each case runs before, after, and after with the view taking the updates batch by batch
 * (fetchBackfill's onBatch, what the views get once they adopt it), in turns, 3 times; medians
 * and ratios to before.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { answerBytes, backfillResponse } from '../src/lib/server/recorder/backfillResponse';
import { SessionRecorder } from '../src/lib/server/recorder/sessionRecorder';
import { UpdateTap } from '../src/lib/server/updates/tap';
import { spxChain } from '../src/lib/wire/arbitraries.test-support';
import { encodeFrame, initWireEncoder } from '../src/lib/wire/encode';
import { ORDERFLOW_FIELDS } from '../src/lib/contract/orderflowFields';
import type { OrderflowBody } from '../src/lib/contract/schemas';
import { bundleForBrowser, launchChromium, median } from './support';

await initWireEncoder();
const f = (x: number, d = 1) => x.toFixed(d);
const OPEN = 1795446000; // 2026-11-23 09:30 ET
const SECONDS = Number(process.env.BACKFILL_BENCH_SECONDS ?? 23_400);
const RUNS = 3;
const SIDES = ['before', 'after', 'batched'] as const;
type Side = (typeof SIDES)[number];

// ---- the recorded day ------------------------------------------------------------------------
const dir = mkdtempSync(join(tmpdir(), 'gexdeck-bench-backfill-'));
const recorder = new SessionRecorder({ root: dir });
const tap = new UpdateTap();
recorder.attach(tap);
const variants = Array.from({ length: 30 }, (_, v) => spxChain(400, v + 3));
const orderflow = (ts: number): OrderflowBody => {
	const body: Record<string, number | string> = { timestamp: ts, ticker: 'SPX', spot: 7100 };
	ORDERFLOW_FIELDS.forEach((fl, i) => {
		body[fl.rest] =
			fl.scale.type === 'uint32' ? 7000 + i * 5 : Math.round(Math.sin(ts / 600 + i) * 1e5) / 100;
	});
	return body as OrderflowBody;
};
const recordStart = performance.now();
for (let s = 0; s < SECONDS; s++) {
	const ts = OPEN + s;
	const chain = {
		...variants[s % 30],
		timestamp: ts,
		spot: 7138.55 + Math.round(Math.sin(s / 900) * 2000) / 100
	};
	const receivedAt = (ts + 0.5) * 1000;
	tap.publish({
		source: 'stream',
		group: 'SPX_classic_gex_full',
		receivedAt,
		any: encodeFrame('gex', chain)
	});
	tap.publish({
		source: 'stream',
		group: 'SPX_orderflow_orderflow',
		receivedAt,
		any: encodeFrame('orderflow', orderflow(ts))
	});
}
console.error(`recorded ${SECONDS} s in ${f((performance.now() - recordStart) / 1000)} s`);

// ---- the server: harness files, both workers, and /history answered by the real code ---------
const tmp = mkdtempSync(join(tmpdir(), 'gexdeck-bench-backfill-js-'));
await bundleForBrowser('bench/backfill.harness.ts', join(tmp, 'harness.js'));
await bundleForBrowser('src/lib/stream/backfill/backfillWorker.ts', join(tmp, 'worker.js'));
await bundleForBrowser('bench/backfill.before-worker.ts', join(tmp, 'before.js'));
const files: Record<string, string> = {
	'/': '<!doctype html><meta charset="utf-8"><title>backfill bench</title><script type="module" src="/harness.js"></script>',
	'/harness.js': readFileSync(join(tmp, 'harness.js'), 'utf8'),
	// Where the client's `new URL('./backfillWorker.ts', import.meta.url)` points from /harness.js.
	'/backfillWorker.ts': readFileSync(join(tmp, 'worker.js'), 'utf8'),
	'/before.js': readFileSync(join(tmp, 'before.js'), 'utf8')
};
const serverMs: Record<string, number[]> = {};
const bytes: Record<string, number> = {};
const server = createServer((req, res) => {
	const url = new URL(req.url ?? '/', 'http://x');
	const isolation = {
		'cross-origin-opener-policy': 'same-origin',
		'cross-origin-embedder-policy': 'require-corp'
	};
	const m = /^\/history\/SPX\/(\w+)$/.exec(url.pathname);
	if (m) {
		const t = performance.now();
		// The whole body first: the server's time to produce it (the route streams it instead).
		return void backfillResponse(recorder, 'SPX', m[1], url.searchParams).then(async (answer) => {
			const body = await answerBytes(answer);
			(serverMs[m[1]] ??= []).push(performance.now() - t);
			bytes[m[1]] = body.length;
			res.writeHead(answer.status, { ...answer.headers, ...isolation });
			res.end(body);
		});
	}
	const body = files[url.pathname];
	if (body === undefined) return void res.writeHead(404).end();
	const js = url.pathname !== '/';
	res.writeHead(200, { 'content-type': js ? 'text/javascript' : 'text/html', ...isolation });
	res.end(body);
});
await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

type Run = Record<
	| 'firstPaintMs'
	| 'completeMs'
	| 'workerDecodeMs'
	| 'longestTaskMs'
	| 'consumeMs'
	| 'updates'
	| 'batches'
	| 'check',
	number
>;
type Bench = {
	before: (view: string, stream: string, query: object, worker: string) => Promise<Run>;
	after: (view: string, stream: string, query: object, batched: boolean) => Promise<Run>;
};
const cases = [
	{
		name: 'Classic opened late (timeline: a frame per 5 s)',
		view: 'classic',
		stream: 'classic_gex_full',
		query: { step: 5 }
	},
	{
		name: 'Orderflow opened late (every second)',
		view: 'orderflow',
		stream: 'orderflow_orderflow',
		query: {}
	}
];

const browser = await launchChromium();
try {
	const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
	await page.goto(origin + '/');
	await page.waitForFunction(() => 'backfillBench' in globalThis);
	console.log(
		`### Backfill of a full recorded SPX day (${SECONDS} s; 400-strike gex_full frames)\n`
	);
	console.log(
		'Shared machine (2 cores, other sessions running); medians of 3 runs each, the three sides taking turns.\n'
	);
	console.log(
		'| case | measure | before | after | after / before | after, the view takes batches (onBatch) | that / before |\n| --- | --- | --- | --- | --- | --- | --- |'
	);
	for (const c of cases) {
		const runs: Record<Side, Run[]> = { before: [], after: [], batched: [] };
		const args = [c.view, c.stream, c.query, origin + '/before.js'] as const;
		for (let i = 0; i < RUNS; i++) {
			runs.before.push(
				await page.evaluate(
					([v, s, q, w]) =>
						(globalThis as unknown as { backfillBench: Bench }).backfillBench.before(v, s, q, w),
					args
				)
			);
			runs.after.push(
				await page.evaluate(
					([v, s, q]) =>
						(globalThis as unknown as { backfillBench: Bench }).backfillBench.after(v, s, q, false),
					args
				)
			);
			runs.batched.push(
				await page.evaluate(
					([v, s, q]) =>
						(globalThis as unknown as { backfillBench: Bench }).backfillBench.after(v, s, q, true),
					args
				)
			);
		}
		for (const side of ['after', 'batched'] as const) {
			const [b, a] = [runs.before[0], runs[side][0]];
			if (b.check !== a.check || b.updates !== a.updates) {
				throw new Error(`${c.name}: before and ${side} disagree: ${JSON.stringify([b, a])}`);
			}
		}
		const med = (side: Side, k: keyof Run) => median(runs[side].map((r) => r[k]));
		const row = (label: string, k: keyof Run) => {
			const [b, a, m] = SIDES.map((side) => med(side, k));
			console.log(
				`| ${c.name} | ${label} | ${f(b)} ms | ${f(a)} ms | ${f(a / b, 2)} | ${f(m)} ms | ${f(m / b, 2)} |`
			);
		};
		row('request to first paint', 'firstPaintMs');
		row('request to the whole day shown', 'completeMs');
		row('worker decode', 'workerDecodeMs');
		row('main thread: longest task', 'longestTaskMs');
		row("main thread: the view's longest processing of updates", 'consumeMs');
		console.log(
			`| ${c.name} | updates; messages to the page | ${runs.before[0].updates}; ${med('before', 'batches')} | ${med('after', 'batches')} | | ${med('batched', 'batches')} | |`
		);
		console.log(
			`| ${c.name} | body; server time to build it | ${f(bytes[c.stream] / 1024 ** 2)} MB; ${f(median(serverMs[c.stream]))} ms | | | | |`
		);
	}
	// The server's read of Classic's overview: picked by the index (now) against reading the
	// whole day and filtering it (before), on the same recording.
	const day = recorder.days()[0];
	const serverRead = { index: [] as number[], all: [] as number[] };
	for (let i = 0; i < RUNS; i++) {
		let t = performance.now();
		recorder.read(day, 'SPX', 'classic_gex_full', undefined, undefined, 5);
		serverRead.index.push(performance.now() - t);
		t = performance.now();
		let bucket = Number.NaN;
		recorder.read(day, 'SPX', 'classic_gex_full').filter((r) => {
			if (Math.floor(r.timestamp / 5) === bucket) return false;
			bucket = Math.floor(r.timestamp / 5);
			return true;
		});
		serverRead.all.push(performance.now() - t);
	}
	const [ri, ra] = [median(serverRead.index), median(serverRead.all)];
	console.log(
		`| Classic opened late (timeline: a frame per 5 s) | server: read the day's records at step 5 | ${f(ra)} ms (read all, filter) | ${f(ri)} ms (by the index) | ${f(ri / ra, 2)} | | |`
	);
	console.log('');
} finally {
	await browser.close();
	server.close();
	recorder.close();
	rmSync(dir, { recursive: true, force: true });
	rmSync(tmp, { recursive: true, force: true });
}
