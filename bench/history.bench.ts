/**
 * History generation, each part in a fresh child process (this file with the part's name) so
 * its peak RSS is its own:
 * - `day`: one SPX ticker-day, every category, written by the two processes the service uses
 *   (peak RSS = this process's plus both children's; targets: < 30 s wall on a quiet machine,
 *   < 800 MB), and `day-one`: the same in one process;
 * - `eod-first`: the embedded service (SPX, SPY, QQQ, after Friday's close) answers the first
 *   GET /v2/hist/eod/SPX of a day not generated yet (target: 200 within 60 s), then a second
 *   one (a file read, or the rest of the generation when the first answered 504);
 * - `eod-prepared`: the same after the background preparation the market runs after each close.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { demoAccounts } from '../src/service/accounts/demo';
import type { Market } from '../src/service/simulatedMarket';
import { writeTickerDay } from '../src/service/history/tickerDayFiles';
import { writeTickerDayInProcesses } from '../src/service/history/tickerDayProcesses';
import { startService } from '../src/service/server';

const DATE = '2026-11-20';
/** Friday 17:00 ET: the session of DATE is the last completed one. */
const AFTER_CLOSE = '2026-11-20T22:00:00Z';

interface Sample {
	wallS: number;
	cpuS: number;
	peakRssMb: number;
	[k: string]: number | string;
}

/** RSS of this process's children (the history writers), from /proc (Linux). */
function childrenRss(): number {
	let total = 0;
	try {
		for (const pid of readdirSync('/proc')) {
			if (!/^\d+$/.test(pid)) continue;
			try {
				const status = readFileSync(`/proc/${pid}/status`, 'utf8');
				if (Number(/^PPid:\s+(\d+)/m.exec(status)?.[1]) !== process.pid) continue;
				total += Number(/^VmRSS:\s+(\d+) kB/m.exec(status)?.[1] ?? 0) * 1024;
			} catch {
				// gone meanwhile
			}
		}
	} catch {
		// no /proc
	}
	return total;
}

/**
 * Peak RSS while `fn` runs (this process plus its children, sampled every 100 ms), plus wall and
 * CPU time of this process.
 */
async function measure(fn: () => Promise<Record<string, number | string>>): Promise<Sample> {
	let peak = process.memoryUsage().rss;
	const timer = setInterval(
		() => (peak = Math.max(peak, process.memoryUsage().rss + childrenRss())),
		100
	);
	const cpu0 = process.cpuUsage();
	const t0 = performance.now();
	try {
		const extra = await fn();
		const cpu = process.cpuUsage(cpu0);
		return {
			wallS: (performance.now() - t0) / 1000,
			cpuS: (cpu.user + cpu.system) / 1e6,
			peakRssMb: peak / 1e6,
			...extra
		};
	} finally {
		clearInterval(timer);
	}
}

function get(url: string, key: string): Promise<{ status: number; bytes: number }> {
	return new Promise((resolve, reject) => {
		const req = request(
			url,
			{ headers: { 'User-Agent': 'gexdeck-bench/1', Authorization: `Bearer ${key}` } },
			(res) => {
				let bytes = 0;
				res.on('data', (c: Buffer) => (bytes += c.length));
				res.on('end', () => resolve({ status: res.statusCode ?? 0, bytes }));
				res.on('error', reject);
			}
		);
		req.on('error', reject);
		req.end();
	});
}

async function part(name: string): Promise<Record<string, unknown>> {
	const dataDir = mkdtempSync(join(tmpdir(), 'gexdeck-bench-history-'));
	try {
		if (name === 'day' || name === 'day-one') {
			let children = 0;
			const sample = await measure(async () => {
				const options = {
					seed: 1,
					ticker: 'SPX',
					date: DATE,
					dir: join(dataDir, 'SPX'),
					endTick: 23_400
				};
				const m =
					name === 'day'
						? await writeTickerDayInProcesses(options, {
								processes: 2,
								onChildRss: (b) => (children += b)
							})
						: await writeTickerDay(options);
				const bytes = Object.values(m.members).reduce((n, x) => n + (x?.size ?? 0), 0);
				return { records: m.records, gzipMb: bytes / 1e6 };
			});
			// Children's CPU is not in process.cpuUsage(); their memory is in the sampled peak.
			return { ...sample, childRssMb: children / 1e6 };
		}
		const accounts = demoAccounts();
		const key = accounts.accounts[0].keys[0].key;
		const service = await startService({
			dataDir,
			accounts,
			tickers: ['SPX', 'SPY', 'QQQ'],
			clock: 'real',
			start: AFTER_CLOSE,
			seed: 1,
			marketOptions: { eodTickers: ['SPX'] }
		});
		try {
			const market = service.market as Market;
			const baseline = process.memoryUsage().rss / 1e6;
			let prepareS = 0;
			if (name === 'eod-prepared') {
				const t0 = performance.now();
				await market.prepareEod(DATE);
				prepareS = (performance.now() - t0) / 1000;
			}
			const first = await measure(async () => {
				const r = await get(`${service.url}/hist/eod/SPX`, key);
				return { status: r.status, zipMb: r.bytes / 1e6 };
			});
			const second = await measure(async () => {
				const r = await get(`${service.url}/hist/eod/SPX`, key);
				return { status: r.status, zipMb: r.bytes / 1e6 };
			});
			return { baselineRssMb: baseline, prepareS, first, second };
		} finally {
			await service.close();
		}
	} finally {
		rmSync(dataDir, { recursive: true, force: true });
	}
}

const self = fileURLToPath(import.meta.url);
const which = process.argv[2];
if (which) {
	console.log(JSON.stringify(await part(which)));
} else {
	const run = (name: string) => {
		const child = spawnSync(process.execPath, ['--import', 'tsx', self, name], {
			encoding: 'utf8',
			stdio: ['ignore', 'pipe', 'inherit'],
			maxBuffer: 16 << 20
		});
		const line = child.stdout.trim().split('\n').at(-1) ?? '';
		if (child.status !== 0) throw new Error(`history bench part ${name} failed: ${line}`);
		return JSON.parse(line) as Record<string, unknown>;
	};
	const f = (x: unknown, d = 1) => (typeof x === 'number' ? x.toFixed(d) : String(x));
	const day = run('day') as Sample;
	const dayOne = run('day-one') as Sample;
	const first = run('eod-first') as { baselineRssMb: number; first: Sample; second: Sample };
	const prepared = run('eod-prepared') as {
		baselineRssMb: number;
		prepareS: number;
		first: Sample;
		second: Sample;
	};
	console.log(`History generation (one run; the machine may be shared: see load below)\n`);
	console.log('| measurement | wall s | CPU s | peak RSS MB | notes | target |');
	console.log('| --- | --- | --- | --- | --- | --- |');
	console.log(
		`| SPX ticker-day, all 14 categories, two processes (the service's way) | ${f(day.wallS)} | (children) | ${f(day.peakRssMb, 0)} | ${day.records} records, ${f(day.gzipMb, 0)} MB gzip; RSS sampled over parent + children (children's own peaks sum to ${f(day.childRssMb, 0)} MB) | < 30 s, < 800 MB |`
	);
	console.log(
		`| SPX ticker-day, all 14 categories, one process | ${f(dayOne.wallS)} | ${f(dayOne.cpuS)} | ${f(dayOne.peakRssMb, 0)} | engine, serialisation and thread-pool gzip | |`
	);
	console.log(
		`| EOD SPX, first request (day not generated) | ${f(first.first.wallS)} | ${f(first.first.cpuS)} | ${f(first.first.peakRssMb, 0)} | status ${first.first.status}, ${f(first.first.zipMb, 0)} MB zip; service at ${f(first.baselineRssMb, 0)} MB before | 200 within 60 s, < 800 MB |`
	);
	console.log(
		`| EOD SPX, second request right after (waits for the generation if the first got 504, then streams) | ${f(first.second.wallS, 2)} | ${f(first.second.cpuS, 2)} | ${f(first.second.peakRssMb, 0)} | status ${first.second.status} | |`
	);
	console.log(
		`| EOD SPX after the background preparation (${f(prepared.prepareS)} s to prepare SPX) | ${f(prepared.first.wallS, 2)} | ${f(prepared.first.cpuS, 2)} | ${f(prepared.first.peakRssMb, 0)} | status ${prepared.first.status} | a file read |`
	);
	const { loadavg } = await import('node:os');
	console.log(
		`\nload average at the end: ${loadavg()
			.map((x) => x.toFixed(2))
			.join(', ')}`
	);
}
