/**
 * Soak: the stream relay and the embedded service under a long, steady load, looking for
 * memory that grows and frames that go missing.
 *
 *   npm run bench -- soak [--minutes 20] [--speed 10] [--viewers 50] [--warmup 2]
 *
 * The embedded service runs in its own process on the session clock, started at 09:31 ET of a
 * session day and running `--speed` simulated seconds per wall second (so a 20-minute soak covers
 * hours of the session). This process runs the dashboard's StreamRelay and its /stream endpoint,
 * as bench/stream.bench.ts does; the viewers run in a third process (bench/soak.viewers.ts). The
 * relay holds 150 memberships (50 tickers x classic gex_full + spot on v2_classic, 25 x orderflow
 * + spot on v2_orderflow) and every viewer wants all of them.
 *
 * Reported: RSS of the relay process and of the service, sampled every 10 s, with the
 * least-squares slope after the warm-up (target: flat, < 1 MB/min); the frame check (every
 * viewer got every frame of every group, in order: zero gaps); relay CPU per viewer.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { ALL_TICKERS } from '../src/lib/contract/tickers';
import { StreamRelay } from '../src/lib/server/stream';
import { demoAccountsFor } from '../src/service/accounts/demo';
import { lines, nextJson, relayToViewers, spawnService } from './support';

const { values: flags } = parseArgs({
	options: {
		minutes: { type: 'string', default: '20' },
		speed: { type: 'string', default: '10' },
		viewers: { type: 'string', default: '50' },
		warmup: { type: 'string', default: '2' }
	},
	strict: true
});
const MINUTES = Number(flags.minutes);
const SPEED = Number(flags.speed);
const VIEWERS = Number(flags.viewers);
const WARMUP_MINUTES = Number(flags.warmup);
const SAMPLE_MS = 10_000;
// 09:31 ET on a Wednesday session day (EST, UTC-5).
const START = '2026-11-18T14:31:00Z';
const SESSION_MINUTES_LEFT = 6.5 * 60 - 1;

for (const [name, v] of Object.entries({ MINUTES, SPEED, VIEWERS, WARMUP_MINUTES })) {
	if (!(v > 0)) throw new Error(`soak: ${name.toLowerCase()} must be a positive number`);
}
if (WARMUP_MINUTES >= MINUTES) throw new Error('soak: --warmup must be shorter than --minutes');
if (MINUTES * SPEED > SESSION_MINUTES_LEFT) {
	throw new Error(
		`soak: ${MINUTES} min at speed ${SPEED} runs past the close; keep minutes x speed <= ${SESSION_MINUTES_LEFT}`
	);
}

const TICKERS = ALL_TICKERS.slice(0, 50);
const groups = [
	...TICKERS.map((t) => `${t}_classic_gex_full`),
	...TICKERS.slice(0, 25).map((t) => `${t}_orderflow_orderflow`)
];
const WITNESS = `${TICKERS[0]}_classic_gex_full`;

/** Resident set of a process in bytes (Linux /proc). */
function rssOf(pid: number): number {
	const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
	return m ? Number(m[1]) * 1024 : NaN;
}

/** CPU time (user + system) of another process in ms, from /proc/<pid>/stat (100 Hz ticks). */
function cpuMsOf(pid: number): number {
	const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
	const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
	return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** Least-squares slope of y over x. */
function slope(xs: number[], ys: number[]): number {
	const n = xs.length;
	const mx = xs.reduce((a, b) => a + b, 0) / n;
	const my = ys.reduce((a, b) => a + b, 0) / n;
	let num = 0;
	let den = 0;
	for (let i = 0; i < n; i++) {
		num += (xs[i] - mx) * (ys[i] - my);
		den += (xs[i] - mx) ** 2;
	}
	return den === 0 ? 0 : num / den;
}

const MB = 1024 * 1024;
let t0 = performance.now();
const dataDir = mkdtempSync(join(tmpdir(), 'gexdeck-bench-soak-'));
const service = await spawnService({
	dataDir,
	tickers: TICKERS,
	start: START,
	speed: SPEED,
	seed: 5
});
const servicePid = service.child.pid!;
const key = demoAccountsFor(dataDir).accounts.find((a) => a._id === 'demo-quant')!.keys[0].key;
/** What the relay logged (hub drops and their reasons go into the report). */
const relayLog: string[] = [];
const relay = new StreamRelay({
	baseUrl: service.url,
	key,
	userAgent: 'gexdeck-bench/1.0',
	log: (m) => {
		if (relayLog.length < 20)
			relayLog.push(`${((performance.now() - t0) / 60_000).toFixed(1)} min: ${m}`);
		console.error(`soak relay: ${m}`);
	}
});
const { viewers, close: closeViewers } = await relayToViewers(relay, 'bench/soak.viewers.ts', [
	String(VIEWERS),
	JSON.stringify(groups),
	WITNESS
]);
const viewerLines = lines(viewers);
await nextJson(viewerLines, 'subscribed');
await relay.settled();
const usage = relay.status().usage;
if (relay.state !== 'live') throw new Error(`soak: relay is ${relay.state}: ${relay.reason}`);

interface Sample {
	minute: number;
	relayRss: number;
	serviceRss: number;
}
const samples: Sample[] = [];
t0 = performance.now();
const serviceCpu0 = cpuMsOf(servicePid);
const c0 = { ...relay.counters };
let cpuAfterWarmup: NodeJS.CpuUsage | undefined;
let serviceCpuAfterWarmup = 0;
let warmupAt = 0;
let framesAfterWarmup = 0;
const end = t0 + MINUTES * 60_000;
while (performance.now() < end) {
	await new Promise((r) => setTimeout(r, Math.min(SAMPLE_MS, end - performance.now())));
	const minute = (performance.now() - t0) / 60_000;
	const sample = { minute, relayRss: process.memoryUsage.rss(), serviceRss: rssOf(servicePid) };
	samples.push(sample);
	if (!cpuAfterWarmup && minute >= WARMUP_MINUTES) {
		cpuAfterWarmup = process.cpuUsage();
		serviceCpuAfterWarmup = cpuMsOf(servicePid);
		warmupAt = performance.now();
		framesAfterWarmup = relay.counters.framesOut;
	}
	console.error(
		`soak ${minute.toFixed(1)} min: relay ${(sample.relayRss / MB).toFixed(1)} MB, service ${(sample.serviceRss / MB).toFixed(1)} MB, frames out ${relay.counters.framesOut - c0.framesOut}, state ${relay.state}`
	);
}
const measuredS = (performance.now() - warmupAt) / 1000;
const relayCpu = process.cpuUsage(cpuAfterWarmup);
const relayCpuMsPerS = (relayCpu.user + relayCpu.system) / 1000 / measuredS;
const serviceCpuMsPerS = (cpuMsOf(servicePid) - serviceCpuAfterWarmup) / measuredS;
const framesOutPerS = (relay.counters.framesOut - framesAfterWarmup) / measuredS;
const totalCpuS = (cpuMsOf(servicePid) - serviceCpu0) / 1000;

// Stop the source, let the last frames drain, then compare what the viewers got with what the
// relay delivered.
const counters = { ...relay.counters };
await service.stop();
await new Promise((r) => setTimeout(r, 3000));
const delivered = relay.counters.framesOut;
viewers.stdin!.write('report\n');
const report = await nextJson(viewerLines, 'report');

const after = samples.filter((s) => s.minute >= WARMUP_MINUTES);
const minutes = after.map((s) => s.minute);
const relaySlope = slope(
	minutes,
	after.map((s) => s.relayRss / MB)
);
const serviceSlope = slope(
	minutes,
	after.map((s) => s.serviceRss / MB)
);
const range = (key: 'relayRss' | 'serviceRss') => {
	const v = after.map((s) => s[key] / MB);
	return `${Math.min(...v).toFixed(0)}-${Math.max(...v).toFixed(0)} MB`;
};
const f = (x: number, d = 2) => x.toFixed(d);
const missing = delivered - Number(report.frames);
const zeroGaps =
	missing === 0 &&
	report.gaps === 0 &&
	report.outOfOrder === 0 &&
	report.corrupt === 0 &&
	report.witnessBackwards === 0;

console.log(`| measure | value | target |`);
console.log(`|---|---|---|`);
console.log(
	`| run | ${MINUTES} min wall (${WARMUP_MINUTES} min warm-up), speed ${SPEED} (${f((MINUTES * SPEED) / 60, 1)} simulated hours from 09:31 ET), ${VIEWERS} viewers, ${usage.used} memberships | >= 20 min |`
);
console.log(
	`| relay process RSS slope after warm-up (range) | ${f(relaySlope)} MB/min (${range('relayRss')}) | flat, < 1 MB/min |`
);
console.log(
	`| service process RSS slope after warm-up (range) | ${f(serviceSlope)} MB/min (${range('serviceRss')}) | flat, < 1 MB/min |`
);
console.log(
	`| frames delivered by the relay / received by the viewers | ${delivered} / ${String(report.frames)} | equal |`
);
console.log(
	`| per-group order check over all viewers: gaps (frames missed) / out of order / corrupt | ${String(report.gaps)} (${String(report.missed)}) / ${String(report.outOfOrder)}${report.outOfOrder ? ` (${(report.outOfOrderGroups as string[]).join(', ')})` : ''} / ${String(report.corrupt)} | 0 / 0 / 0 |`
);
console.log(
	`| witness ${WITNESS} on viewer 0: frames / timestamp steps backwards | ${String(report.witnessFrames)} / ${String(report.witnessBackwards)} | - / 0 |`
);
console.log(
	`| relay CPU after warm-up: total / per viewer | ${f(relayCpuMsPerS, 1)} ms per s / ${f(relayCpuMsPerS / VIEWERS, 2)} ms per s per viewer | - |`
);
console.log(
	`| service CPU after warm-up (whole run) | ${f(serviceCpuMsPerS, 1)} ms per s (${f(totalCpuS, 0)} s) | - |`
);
console.log(
	`| frames out per s / upstream frames in (whole run) / spot duplicates skipped | ${f(framesOutPerS, 0)} / ${counters.framesIn - c0.framesIn} / ${counters.spotDuplicates - c0.spotDuplicates} | - |`
);
console.log(
	`| negotiations POST / PATCH, hub connects / drops during the run | ${counters.posts} / ${counters.patches}, ${counters.hubConnects} / ${counters.hubDrops} | 1 / 0, 2 / 0 |`
);
console.log(
	`| viewers still open at the end / viewer process RSS | ${String(report.open)} / ${f(Number(report.rss) / MB, 0)} MB | ${VIEWERS} / - |`
);
console.log(`| frame check | ${zeroGaps ? 'pass: zero gaps' : 'FAIL'} | pass |`);
console.log(
	`\nRSS samples (minute relay/service MB): ${samples.map((s) => `${f(s.minute, 1)} ${f(s.relayRss / MB, 0)}/${f(s.serviceRss / MB, 0)}`).join(', ')}`
);
if (relayLog.length > 0) console.log(`\nRelay log: ${relayLog.join(' | ')}`);
console.log(`\n(Node ${process.version}; shared machine)`);

closeViewers();
await relay.close();
rmSync(dataDir, { recursive: true, force: true });
process.exit(zeroGaps ? 0 : 1);
