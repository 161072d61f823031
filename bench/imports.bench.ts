/**
 * `npm run bench -- imports`: the dashboard's memory and responsiveness while it imports.
 *
 * 1. N parallel past-day imports (`/history/SPX/<stream>?source=service&day=...`, each a
 *    different stream or day, polled through their 504 progress answers until stored), for
 *    N = 15 and 24.
 * 2. Opening one large EOD report (the `open` form action of /SPX/eod).
 *
 * Measured from outside: the built dashboard child's peak RSS (VmRSS of /proc/<pid>/status every
 * 50 ms) and the latency of GET /healthz asked one after another throughout. Targets: peak RSS
 * under 300 MB, /healthz under 100 ms.
 *
 * The embedded service runs in a child process (this file with `serve`) over a fixture made in a
 * temp dir: complete SPX ticker-days written straight into its history cache, every day key a
 * copy of one synthetic gzip day (23,400 snapshots, `--member-mb` MB of JSON each; the default
 * makes a report of about 326 MB, as the probe used), so nothing is generated and
 * nothing large is committed. `--app <dir>` measures another checkout's build (`npm run build`
 * done there), e.g. main's for the before figures; `--max-rss-mb` stops a run whose dashboard
 * grows past it (the before figures can exhaust a shared machine).
 */
import type { ChildProcess } from 'node:child_process';
import {
	copyFileSync,
	createWriteStream,
	mkdirSync,
	mkdtempSync,
	readFileSync,
	rmSync,
	writeFileSync
} from 'node:fs';
import { get } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { crc32, createGzip } from 'node:zlib';
import { demoAccounts } from '../src/service/accounts/demo';
import { QUOTA_POOLS } from '../src/service/quota/allowances';
import { startService } from '../src/service/server';
import { eodMembers } from '../src/service/http/eod';
import { dayKeysOf } from '../src/service/history/dayKeys';
import { historyCacheFolder } from '../src/service/history/historyStore';
import { dayFileName, MANIFEST } from '../src/service/history/tickerDayFiles';
import { forkServe, root, rssBytes, spawnBuiltDashboard, type Upstream } from './support';

const START = '2026-11-20T15:30:00Z'; // Friday 10:30 ET
const DAYS = ['2026-11-19', '2026-11-18'];
const SEED = 1;
const arg = (name: string, fallback: string) => {
	const i = process.argv.indexOf(`--${name}`);
	return i > 0 ? process.argv[i + 1] : fallback;
};

async function serve(dataDir: string): Promise<void> {
	const accounts = demoAccounts();
	const account = accounts.accounts.find((a) => a._id === 'demo-quant')!;
	account.allowances = Object.fromEntries(
		QUOTA_POOLS.map((p) => [p, { daily: 1e12, monthly: 1e12 }])
	);
	const service = await startService({
		dataDir,
		accounts,
		tickers: ['SPX'],
		start: START,
		seed: SEED
	});
	process.on('disconnect', () => void service.close().finally(() => process.exit(0)));
	process.send?.({ baseUrl: service.url, key: account.keys[0].key } satisfies Upstream);
}

/** One synthetic day of snapshots as a gzip JSON array of about `mb` MB; its size and CRC. */
async function dayFile(path: string, mb: number): Promise<{ size: number; crc: number }> {
	const seconds = 23_400;
	const strikes = Math.max(4, Math.round((mb * 1024 ** 2) / seconds / 30));
	const gzip = createGzip({ level: 4 });
	const out = createWriteStream(path);
	gzip.pipe(out);
	const done = new Promise<void>((r) => out.on('finish', () => r()));
	const t0 = Date.parse(`${DAYS[0]}T14:30:00Z`) / 1000;
	const r = (scale: number) => (Math.random() * scale).toFixed(3);
	for (let s = 0; s < seconds; s++) {
		const ladder: string[] = [];
		for (let k = 0; k < strikes; k++) ladder.push(`[${5000 + k * 5},${r(900)},${r(-400)}]`);
		const snap = `{"timestamp":${t0 + s},"ticker":"SPX","min_dte":0,"sec_min_dte":1,"spot":${r(6000)},"zero_gamma":${r(6000)},"strikes":[${ladder.join(',')}]}`;
		if (!gzip.write((s === 0 ? '[' : ',') + snap))
			await new Promise((res) => gzip.once('drain', res));
	}
	gzip.end(']');
	await done;
	const bytes = readFileSync(path);
	return { size: bytes.length, crc: crc32(bytes) >>> 0 };
}

/** Complete SPX ticker-days of DAYS in the service's history cache under `dataDir`. */
async function fixture(dataDir: string, mb: number): Promise<number> {
	const one = join(dataDir, 'one.json.gz');
	const member = await dayFile(one, mb);
	for (const date of DAYS) {
		const dir = join(dataDir, 'market', 'history', historyCacheFolder(SEED), date, 'SPX');
		mkdirSync(dir, { recursive: true });
		const members: Record<string, typeof member> = {};
		for (const key of dayKeysOf('observed')) {
			copyFileSync(one, join(dir, dayFileName(key)));
			members[key] = member;
		}
		writeFileSync(
			join(dir, MANIFEST),
			JSON.stringify({ ticker: 'SPX', date, records: 23_400, members })
		);
	}
	rmSync(one);
	return member.size;
}

/** The built dashboard of `app` (`node build`), on a free port with a fresh data folder. */
async function dashboard(app: string, upstream: Upstream) {
	const dataDir = mkdtempSync(join(tmpdir(), 'gexdeck-bench-imports-dash-'));
	const { proc, base } = await spawnBuiltDashboard(app, {
		GEXDECK_DATA_DIR: dataDir,
		GEXDECK_UPSTREAM: upstream.baseUrl,
		GEXDECK_API_KEY: upstream.key
	});
	return {
		proc,
		base,
		async stop() {
			if (proc.exitCode === null && proc.signalCode === null) {
				const exited = new Promise((r) => proc.once('exit', r));
				proc.kill('SIGKILL');
				await exited;
			}
			rmSync(dataDir, { recursive: true, force: true });
		}
	};
}

const rssMb = (pid: number) => rssBytes(pid) / 1024 ** 2;

/** Peak RSS of `proc` and /healthz latencies while `work` runs; kills it past `maxMb`. */
async function watch(proc: ChildProcess, base: string, maxMb: number, work: () => Promise<string>) {
	let peak = rssMb(proc.pid!);
	let killed = false;
	const sampler = setInterval(() => {
		peak = Math.max(peak, rssMb(proc.pid!));
		if (peak > maxMb && !killed) {
			killed = true;
			proc.kill('SIGKILL');
		}
	}, 50);
	const latencies: number[] = [];
	let probing = true;
	const probe = (async () => {
		while (probing && !killed) {
			const t0 = performance.now();
			await new Promise<void>((resolve) =>
				get(`${base}/healthz`, (res) => res.resume().on('end', resolve)).on('error', () =>
					resolve()
				)
			);
			latencies.push(performance.now() - t0);
			await new Promise((r) => setTimeout(r, 20));
		}
	})();
	const t0 = Date.now();
	let outcome: string;
	try {
		outcome = await work();
	} catch (e) {
		outcome = `failed: ${(e as Error).message}`;
	}
	if (killed) outcome = `stopped: RSS passed ${maxMb} MB`;
	const seconds = (Date.now() - t0) / 1000;
	probing = false;
	await probe;
	clearInterval(sampler);
	latencies.sort((a, b) => a - b);
	return {
		peakRssMb: Math.round(peak),
		healthzMaxMs: Math.round(latencies.at(-1) ?? NaN),
		healthzP99Ms: Math.round(latencies[Math.floor(latencies.length * 0.99)] ?? NaN),
		probes: latencies.length,
		seconds: Math.round(seconds * 10) / 10,
		outcome
	};
}

/** A fresh process loads its route modules on first use: done before measuring. */
async function warm(base: string): Promise<void> {
	for (const path of ['/healthz', '/SPX/eod', '/history/SPX/classic_gex_full?day=2026-11-02']) {
		for (let i = 0; i < 5; i++) await (await fetch(`${base}${path}`)).arrayBuffer();
	}
}

/** One past day through the page's route, retried through its 504 progress answers. */
async function importDay(base: string, stream: string, day: string): Promise<number> {
	for (let attempt = 0; attempt < 2000; attempt++) {
		const res = await fetch(`${base}/history/SPX/${stream}?source=service&day=${day}&to=1`);
		await res.arrayBuffer();
		if (res.status === 200) return res.status;
		if (res.status !== 504) throw new Error(`${stream} ${day} answered ${res.status}`);
		await new Promise((r) =>
			setTimeout(r, Math.min(2000, Number(res.headers.get('retry-after') ?? 1) * 1000))
		);
	}
	throw new Error(`${stream} ${day} never arrived`);
}

async function main(): Promise<void> {
	const app = arg('app', root);
	const mb = Number(arg('member-mb', '60'));
	const maxMb = Number(arg('max-rss-mb', '6000'));
	const counts = arg('parallel', '15,24').split(',').map(Number);
	const dataDir = mkdtempSync(join(tmpdir(), 'gexdeck-bench-imports-'));
	try {
		const memberBytes = await fixture(dataDir, mb);
		const members = eodMembers('SPX', DAYS[0]);
		const streams = members.map((m) => m.split('/').slice(1, 3).join('_'));
		const zipMb = (memberBytes * members.length) / 1024 ** 2;
		console.log(`app: ${app}`);
		console.log(
			`fixture: ${streams.length} streams x ${DAYS.length} days, each ${(memberBytes / 1024 ** 2).toFixed(1)} MB gzip (${mb} MB JSON); EOD report ~${zipMb.toFixed(0)} MB`
		);
		process.env.GEXDECK_BENCH_FIXTURE = dataDir;
		const { child, ready } = await forkServe<Upstream>(import.meta.url);
		try {
			console.log(
				'\n| run | peak RSS (MB) | /healthz max (ms) | /healthz p99 (ms) | time (s) | outcome |'
			);
			console.log('|---|---|---|---|---|---|');
			for (const n of counts) {
				const d = await dashboard(app, ready);
				await warm(d.base);
				const pairs = DAYS.flatMap((day) => streams.map((s) => [s, day] as const)).slice(0, n);
				const r = await watch(d.proc, d.base, maxMb, async () => {
					const answers = await Promise.all(pairs.map(([s, day]) => importDay(d.base, s, day)));
					return `${answers.length} days stored`;
				});
				console.log(
					`| ${n} parallel imports | ${r.peakRssMb} | ${r.healthzMaxMs} | ${r.healthzP99Ms} | ${r.seconds} | ${r.outcome} |`
				);
				await d.stop();
			}
			const d = await dashboard(app, ready);
			await warm(d.base);
			// The page sets the CSRF cookie; the form sends it back as a field, as a browser does.
			const page = await fetch(`${d.base}/SPX/eod`);
			await page.arrayBuffer();
			const csrf = /gexdeck_csrf=([^;]+)/.exec(page.headers.getSetCookie().join('\n'))?.[1] ?? '';
			const r = await watch(d.proc, d.base, maxMb, async () => {
				const res = await fetch(`${d.base}/SPX/eod?/open`, {
					method: 'POST',
					headers: {
						origin: d.base,
						cookie: `gexdeck_csrf=${csrf}`,
						'content-type': 'application/x-www-form-urlencoded',
						accept: 'application/json'
					},
					body: new URLSearchParams({ csrf }).toString()
				});
				const text = await res.text();
				if (!/"type":"success"/.test(text)) throw new Error(`${res.status} ${text.slice(0, 200)}`);
				return 'opened';
			});
			console.log(
				`| EOD open (${zipMb.toFixed(0)} MB zip) | ${r.peakRssMb} | ${r.healthzMaxMs} | ${r.healthzP99Ms} | ${r.seconds} | ${r.outcome} |`
			);
			await d.stop();
		} finally {
			child.disconnect();
		}
	} finally {
		rmSync(dataDir, { recursive: true, force: true });
	}
}

if (process.argv[2] === 'serve') await serve(process.env.GEXDECK_BENCH_FIXTURE!);
else await main();
