/**
 * The time dimension's costs (issue 14).
 *
 * 1. Recorder: the SessionRecorder on the update tap, fed one second of a 150-membership stream
 *    per step (25 tickers x classic gex_full, state gex_full and orderflow = 75 groups, plus their
 *    25 spot frames; real zstd-protobuf frames of 200-strike chains from the wire encoder):
 *    process CPU per recorded second (so CPU share at the live 1 Hz) and bytes per hour on disk.
 * 2. Backfill of a full SPX gex_full day (23,400 one-second frames of a 100-strike chain) written
 *    by the recorder: server time to build the answer (backfillResponse), its bytes; in Chromium
 *    the worker's fetch + decode (the app's decodeBackfill) and the main thread's grid + first
 *    heatmap draw.
 * 3. Heatmap in Chromium: first draw of 23,400 columns x 100 strikes decimated to a 1280-px
 *    canvas (target < 50 ms), one appended column drawn as the live view does (target < 2 ms)
 *    against a full repaint per append, the incremental canvas compared with a full repaint,
 *    long tasks > 50 ms.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ALL_TICKERS } from '../src/lib/contract/tickers';
import { answerBytes, backfillResponse } from '../src/lib/server/recorder/backfillResponse';
import { SessionRecorder } from '../src/lib/server/recorder/sessionRecorder';
import { UpdateTap } from '../src/lib/server/updates/tap';
import { spxChain } from '../src/lib/wire/arbitraries.test-support';
import { encodeFrame, initWireEncoder } from '../src/lib/wire/encode';
import type { OrderflowBody } from '../src/lib/contract/schemas';
import { bundleForBrowser, launchChromium, median, quantile, serveFiles } from './support';

await initWireEncoder();
const f = (x: number, d = 2) => x.toFixed(d);
const OPEN = 1795446000; // 2026-11-23 09:30 ET (a Monday session)

// ---- 1. recorder -------------------------------------------------------------------------
{
	const tickers = ['SPX', ...ALL_TICKERS.filter((t) => t !== 'SPX').slice(0, 24)];
	const seconds = Number(process.env.TIME_BENCH_SECONDS ?? 300);
	const orderflow = (t: string, ts: number): OrderflowBody =>
		({ ticker: t, timestamp: ts, spot: 100 + (ts % 7) }) as unknown as OrderflowBody;
	// Frames of 10 distinct seconds, reused: encoding is the upstream's cost, not the recorder's.
	const variants = Array.from({ length: 10 }, (_, v) =>
		tickers.flatMap((t, i) => {
			const ts = OPEN + v;
			const chain = { ...spxChain(200, i * 10 + v + 1), ticker: t, timestamp: ts };
			return [
				{ group: `${t}_classic_gex_full`, any: encodeFrame('gex', chain) },
				{ group: `${t}_state_gex_full`, any: encodeFrame('gex', chain) },
				{ group: `${t}_orderflow_orderflow`, any: encodeFrame('orderflow', orderflow(t, ts)) },
				{
					group: `${t}_spot`,
					any: encodeFrame('spot', { ticker: t, timestamp: ts, spot: 100 + v } as never)
				}
			];
		})
	);
	const dir = mkdtempSync(join(tmpdir(), 'gexdeck-bench-rec-'));
	const tap = new UpdateTap();
	const recorder = new SessionRecorder({ root: dir });
	recorder.attach(tap);
	const cpu0 = process.cpuUsage();
	const wall0 = performance.now();
	for (let s = 0; s < seconds; s++) {
		for (const fr of variants[s % variants.length]) {
			tap.publish({ source: 'stream', group: fr.group, receivedAt: Date.now(), any: fr.any });
		}
	}
	const cpu = process.cpuUsage(cpu0);
	const wall = performance.now() - wall0;
	const usage = recorder.diskUsage();
	recorder.close();
	rmSync(dir, { recursive: true, force: true });
	const perSecondMs = (cpu.user + cpu.system) / 1000 / seconds;
	console.log('### Recorder at 150 memberships (75 groups + 25 spot frames per second)\n');
	console.log(`| measure | value |\n| --- | --- |`);
	console.log(`| frames per recorded second | ${variants[0].length} |`);
	console.log(
		`| CPU per recorded second | ${f(perSecondMs)} ms (${f(perSecondMs / 10)} % of one core at 1 Hz) |`
	);
	console.log(`| wall per recorded second | ${f(wall / seconds)} ms |`);
	console.log(
		`| bytes on disk per hour | ${f(((usage.bytes / seconds) * 3600) / 1024 ** 2, 1)} MB |`
	);
	console.log(`| failures | ${recorder.counters.failures} |\n`);
}

// ---- 2 + 3. backfill and heatmap ----------------------------------------------------------
{
	const dir = mkdtempSync(join(tmpdir(), 'gexdeck-bench-day-'));
	const recorder = new SessionRecorder({ root: dir });
	const tap = new UpdateTap();
	recorder.attach(tap);
	const base = spxChain(100, 3);
	const variants = Array.from({ length: 30 }, (_, v) => spxChain(100, v + 3));
	for (let s = 0; s < 23_400; s++) {
		const chain = {
			...variants[s % 30],
			timestamp: OPEN + s,
			spot: base.spot + Math.sin(s / 900) * 20
		};
		tap.publish({
			source: 'stream',
			group: 'SPX_classic_gex_full',
			receivedAt: Date.now(),
			any: encodeFrame('gex', chain)
		});
	}
	const serverMs: number[] = [];
	let body: Uint8Array = new Uint8Array(0);
	for (let i = 0; i < 5; i++) {
		const t = performance.now();
		const answer = await backfillResponse(
			recorder,
			'SPX',
			'classic_gex_full',
			new URLSearchParams()
		);
		body = await answerBytes(answer);
		serverMs.push(performance.now() - t);
	}
	// What the heatmap asks for: one calculation per 5 s.
	const overview = await answerBytes(
		await backfillResponse(recorder, 'SPX', 'classic_gex_full', new URLSearchParams('step=5'))
	);
	const data = createServer((req, res) => {
		res.writeHead(200, {
			'content-type': 'application/octet-stream',
			'access-control-allow-origin': '*',
			'cross-origin-resource-policy': 'cross-origin'
		});
		res.end(req.url === '/overview' ? overview : body);
	});
	await new Promise<void>((r) => data.listen(0, '127.0.0.1', r));
	const dataUrl = `http://127.0.0.1:${(data.address() as AddressInfo).port}/backfill`;

	const tmp = mkdtempSync(join(tmpdir(), 'gexdeck-bench-time-'));
	await bundleForBrowser('bench/time.harness.ts', join(tmp, 'harness.js'));
	await bundleForBrowser('bench/time.worker-entry.ts', join(tmp, 'worker.js'));
	const site = await serveFiles({
		'/': '<!doctype html><meta charset="utf-8"><title>time bench</title><body style="margin:0"><script type="module" src="/harness.js"></script>',
		'/harness.js': readFileSync(join(tmp, 'harness.js'), 'utf8'),
		'/worker.js': readFileSync(join(tmp, 'worker.js'), 'utf8')
	});
	const browser = await launchChromium();
	try {
		const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
		await page.goto(site.origin + '/');
		await page.waitForFunction(() => 'timeBench' in globalThis);
		type Bench = {
			backfill: (url: string, worker: string) => Promise<Record<string, number>>;
			heatmapDraws: () => Promise<{
				buildMs: number;
				first: number;
				firsts: number[];
				appends: number[];
				fullAppends: number[];
				modes: Record<string, number>;
				differing: number;
				maxDiff: number;
				drawLongTasks: number[];
			}>;
			longTasks: number[];
		};
		const runs: Record<string, number>[] = [];
		for (let i = 0; i < 3; i++) {
			runs.push(
				await page.evaluate(
					([u, w]) => (globalThis as unknown as { timeBench: Bench }).timeBench.backfill(u, w),
					[dataUrl, site.origin + '/worker.js'] as const
				)
			);
		}
		const overviewRuns: Record<string, number>[] = [];
		for (let i = 0; i < 3; i++) {
			overviewRuns.push(
				await page.evaluate(
					([u, w]) => (globalThis as unknown as { timeBench: Bench }).timeBench.backfill(u, w),
					[dataUrl.replace('/backfill', '/overview'), site.origin + '/worker.js'] as const
				)
			);
		}
		const med = (k: string) => median(runs.map((r) => r[k]));
		const medO = (k: string) => median(overviewRuns.map((r) => r[k]));
		console.log('### Backfill of a full SPX gex_full day (23,400 frames, 100 strikes)\n');
		console.log(`| measure | median of runs |\n| --- | --- |`);
		console.log(`| server: build the answer | ${f(median(serverMs))} ms |`);
		console.log(`| bytes | ${f(body.length / 1024 ** 2)} MB |`);
		console.log(`| updates decoded (corrupt) | ${runs[0].updates} (${runs[0].corrupt}) |`);
		console.log(`| worker: fetch | ${f(med('fetchMs'))} ms |`);
		console.log(`| worker: decode | ${f(med('workerDecodeMs'))} ms |`);
		console.log(`| main thread: grid from updates | ${f(med('mainGridMs'))} ms |`);
		console.log(`| main thread: first heatmap draw | ${f(med('mainDrawMs'))} ms |`);
		console.log(`| request to first draw | ${f(med('totalToFirstDrawMs'))} ms |`);
		console.log(
			`| heatmap overview (step=5: ${overviewRuns[0].updates} frames, ${f(overview.length / 1024 ** 2)} MB): worker decode / request to first draw | ${f(medO('workerDecodeMs'))} / ${f(medO('totalToFirstDrawMs'))} ms |\n`
		);

		const h = await page.evaluate(() =>
			(globalThis as unknown as { timeBench: Bench }).timeBench.heatmapDraws()
		);
		const appends = [...h.appends].sort((a, b) => a - b);
		const longTasks = h.drawLongTasks;
		console.log('### Heatmap in Chromium (23,400 columns x 100 strikes, 1280-px canvas)\n');
		console.log(`| measure | value | target |\n| --- | --- | --- |`);
		console.log(`| grid build (23,000 columns) | ${f(h.buildMs)} ms | |`);
		console.log(`| first draw | ${f(h.first)} ms | < 50 ms |`);
		console.log(`| redraw, median of 10 | ${f(median(h.firsts.slice(1)))} ms | |`);
		const fullAppends = [...h.fullAppends].sort((a, b) => a - b);
		const q = (xs: number[]) =>
			`${f(quantile(xs, 0.5))} / ${f(quantile(xs, 0.95))} / ${f(xs.at(-1)!)} ms`;
		console.log(
			`| append a column + draw it (live view), median / p95 / max of ${appends.length} | ${q(appends)} | < 2 ms |`
		);
		console.log(
			`| append a column + full repaint, median / p95 / max of ${fullAppends.length} | ${q(fullAppends)} | |`
		);
		console.log(
			`| full repaint / incremental, medians | ${f(quantile(fullAppends, 0.5) / quantile(appends, 0.5), 1)}x | |`
		);
		console.log(
			`| incremental draws (columns / none / full) | ${h.modes.columns ?? 0} / ${h.modes.none ?? 0} / ${h.modes.full ?? 0} | |`
		);
		console.log(
			`| incremental canvas vs full repaint after 400 appends: pixels differing (max channel diff of 255) | ${h.differing} (${h.maxDiff}) | antialiasing at strip edges only |`
		);
		console.log(
			`| long tasks > 50 ms while drawing and appending | ${longTasks.filter((d) => d > 50).length} (max ${f(Math.max(0, ...longTasks))} ms) | 0 |\n`
		);
	} finally {
		await browser.close();
		site.close();
		data.close();
		recorder.close();
		rmSync(dir, { recursive: true, force: true });
		rmSync(tmp, { recursive: true, force: true });
	}
}
