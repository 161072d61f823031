/**
 * `npm run bench -- servicememory`: the embedded service's memory and first EOD report (issue 26
 * item 5), measured from outside.
 *
 * The service is started as `npm start` starts it (build/service/main.js with --ready-json on a
 * fresh data folder, the whole universe, the session clock, NODE_ENV=production, and the V8 flags
 * that checkout's embedded.ts starts it with, SERVICE_HEAP_FLAGS), plus --heapsnapshot-signal so
 * the bench can ask it for a heap snapshot. Measured:
 * - idle RSS: the service process alone (its children are counted only for the EOD peak; an
 *   idle service has none), sampled every second for `--idle` s (default 30) once it has
 *   settled: at least `--settle` s (default 90) after its ready line, and 30 s after it logs
 *   that every chain is live (the chains beyond the headline ones catch up after the ready line;
 *   a build that does not log it is given SETTLE_S + 120 s). Sampled 15-20 s after ready as
 *   before, the figure rode that catch-up's ramp and moved by +-25 MB between runs. Median, min
 *   and max, the anonymous / file-backed split, and the CPU of the live loop over the window;
 * - the first EOD request (GET /v2/hist/eod/SPX, a day nobody generated yet): the time to its
 *   200 (a 504 with progress is asked again, its time counted) and the peak RSS of the service
 *   and all its children (the day's generating processes), sampled every 50 ms;
 * - then what holds its heap: one heap snapshot (last, as writing one raises RSS for good),
 *   summarised by constructor (self sizes; typed arrays' backing stores count as "(array buffer
 *   data)") and the backing stores by the object property holding them.
 * `--checkout <dir>` measures another checkout's build (for before figures in the same run).
 * - the CPU seconds of that request (the service's and its children's user + system time), the
 *   figure that must fit in 30 s on two cores when the machine is shared, and the load average.
 * Targets: EOD < 30 s with peak < 600 MB; idle < 250 MB.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import { median, root, rssBytes } from './support';

const { values: flags } = parseArgs({
	options: {
		checkout: { type: 'string', multiple: true },
		idle: { type: 'string', default: '30' },
		settle: { type: 'string', default: '90' },
		/** Replaces the checkouts' own SERVICE_HEAP_FLAGS (to try V8 flags); repeatable. */
		'node-flag': { type: 'string', multiple: true },
		'skip-eod': { type: 'boolean', default: false }
	},
	strict: true
});
const checkouts = (flags.checkout?.length ? flags.checkout : [root]).map((c) => resolve(c));
const IDLE_S = Number(flags.idle);
const SETTLE_S = Number(flags.settle);
const MB = 1024 * 1024;

interface Ready {
	base_url: string;
	accounts: { max_level: string; keys: { key: string; integration: string; product: string }[] }[];
}

/** Every descendant of `pid` (scanning /proc for parent ids). */
function descendants(pid: number): number[] {
	const parent = new Map<number, number>();
	for (const entry of readdirSync('/proc')) {
		if (!/^\d+$/.test(entry)) continue;
		try {
			const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
			const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
			parent.set(Number(entry), ppid);
		} catch {
			// ended meanwhile
		}
	}
	const out: number[] = [];
	const walk = (p: number) => {
		for (const [child, pp] of parent) {
			if (pp !== p) continue;
			out.push(child);
			walk(child);
		}
	};
	walk(pid);
	return out;
}

/**
 * CPU seconds (user + system) process `pid` has used so far, or (`children`) those of its ended
 * children that it waited for (the day's generating processes, once they exit).
 */
function cpuSeconds(pid: number, children = false): number {
	const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
	const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
	// utime, stime, cutime and cstime are fields 14 to 17 of stat (11 to 14 after the command),
	// in clock ticks.
	return (children ? Number(f[13]) + Number(f[14]) : Number(f[11]) + Number(f[12])) / 100;
}

function treeRss(pid: number): number {
	return [pid, ...descendants(pid)].reduce((sum, p) => sum + rssBytes(p), 0);
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Anonymous and file-backed (code, mapped libraries) parts of a process's RSS, bytes. */
function rssParts(pid: number): { anon: number; file: number } {
	const status = readFileSync(`/proc/${pid}/status`, 'utf8');
	const kb = (k: string) => Number(new RegExp(`${k}:\\s+(\\d+) kB`).exec(status)?.[1] ?? 0) * 1024;
	return { anon: kb('RssAnon'), file: kb('RssFile') + kb('RssShmem') };
}

/**
 * The V8 flags `npm start` gives the checkout's service (embedded.ts's SERVICE_HEAP_FLAGS; none
 * for a checkout from before they existed), unless --node-flag replaces them.
 */
async function serviceFlags(checkout: string): Promise<string[]> {
	if (flags['node-flag']) return flags['node-flag'];
	const source = join(checkout, 'src', 'lib', 'server', 'embedded.ts');
	if (!existsSync(source)) return [];
	const mod = (await import(source)) as { SERVICE_HEAP_FLAGS?: string[] };
	return mod.SERVICE_HEAP_FLAGS ?? [];
}

/** Self sizes of a heap snapshot's nodes grouped by constructor (the top `n`), and typed
 * arrays' backing stores grouped by the property of the object that holds them. */
function heapSummary(
	file: string,
	n = 12
): { total: number; rows: [string, number, number][]; owners: [string, number, number][] } {
	const snap = JSON.parse(readFileSync(file, 'utf8')) as {
		snapshot: {
			meta: {
				node_fields: string[];
				node_types: [string[]];
				edge_fields: string[];
				edge_types: [string[]];
			};
		};
		nodes: number[];
		edges: number[];
		strings: string[];
	};
	const meta = snap.snapshot.meta;
	const nf = meta.node_fields.length;
	const ef = meta.edge_fields.length;
	const types = meta.node_types[0];
	const edgeTypes = meta.edge_types[0];
	const [typeAt, nameAt, sizeAt, countAt] = ['type', 'name', 'self_size', 'edge_count'].map((f) =>
		meta.node_fields.indexOf(f)
	);
	const [eType, eName, eTo] = ['type', 'name_or_index', 'to_node'].map((f) =>
		meta.edge_fields.indexOf(f)
	);
	const nodeCount = snap.nodes.length / nf;
	// One strong retainer per node (the first met) and the edge's name.
	const parent = new Int32Array(nodeCount).fill(-1);
	const via = new Array<string>(nodeCount);
	for (let i = 0, e = 0; i < nodeCount; i++) {
		const edges = snap.nodes[i * nf + countAt];
		for (let k = 0; k < edges; k++, e += ef) {
			const kind = edgeTypes[snap.edges[e + eType]];
			if (kind === 'weak' || kind === 'shortcut') continue;
			const to = snap.edges[e + eTo] / nf;
			if (parent[to] !== -1) continue;
			parent[to] = i;
			const name = snap.edges[e + eName];
			via[to] = kind === 'element' || kind === 'hidden' ? `[${name}]` : snap.strings[name];
		}
	}
	const nameOf = (i: number) => snap.strings[snap.nodes[i * nf + nameAt]];
	const typeOf = (i: number) => types[snap.nodes[i * nf + typeAt]];
	const container = (i: number) =>
		typeOf(i) !== 'object' || /^(ArrayBuffer|Array|\w+Array|Object|system.*)$/.test(nameOf(i));
	const groups = new Map<string, [number, number]>();
	const owners = new Map<string, [number, number]>();
	const add = (m: Map<string, [number, number]>, key: string, size: number) => {
		const g = m.get(key) ?? [0, 0];
		g[0] += size;
		g[1]++;
		m.set(key, g);
	};
	let total = 0;
	for (let i = 0; i < nodeCount; i++) {
		const type = typeOf(i);
		const name = nameOf(i);
		const size = snap.nodes[i * nf + sizeAt];
		total += size;
		const store = name === 'system / JSArrayBufferData';
		add(
			groups,
			type === 'object' || type === 'closure'
				? name.slice(0, 40)
				: store
					? '(array buffer data)'
					: `(${type})`,
			size
		);
		if (!store) continue;
		// Up from the store past buffers, typed arrays and arrays to the object holding them.
		let at = i;
		let path = '';
		for (let hops = 0; hops < 8 && parent[at] !== -1; hops++) {
			path = via[at].startsWith('[') ? path : via[at];
			at = parent[at];
			if (!container(at)) break;
		}
		add(owners, `${nameOf(at).slice(0, 30)}.${path}`, size);
	}
	const top = (m: Map<string, [number, number]>) =>
		[...m]
			.sort((a, b) => b[1][0] - a[1][0])
			.slice(0, n)
			.map(([k, [size, count]]) => [k, size, count] as [string, number, number]);
	return { total, rows: top(groups), owners: top(owners) };
}

function printHeap(heap: ReturnType<typeof heapSummary> | undefined): void {
	if (!heap) return void console.log('(no heap snapshot written)');
	console.log(`heap snapshot: ${(heap.total / MB).toFixed(0)} MB of self sizes; top holders:`);
	console.log('| constructor | MB | count |\n|---|---:|---:|');
	for (const [name, size, count] of heap.rows)
		console.log(`| ${name} | ${(size / MB).toFixed(1)} | ${count} |`);
	console.log('\ntyped arrays by holder:\n| holder.property | MB | buffers |\n|---|---:|---:|');
	for (const [name, size, count] of heap.owners)
		console.log(`| ${name} | ${(size / MB).toFixed(1)} | ${count} |`);
}

/** One heap snapshot of the service (SIGUSR2), summarised. */
async function heapOf(child: ChildProcess, dataDir: string) {
	child.kill('SIGUSR2');
	let snapshot: string | undefined;
	for (let t = 0; t < 600 && !snapshot; t++) {
		await sleep(500);
		const f = readdirSync(dataDir).find((n) => n.endsWith('.heapsnapshot'));
		// Written once the next file appears whole: wait until its size stops changing.
		if (f) {
			const a = readFileSync(join(dataDir, f)).length;
			await sleep(1000);
			if (readFileSync(join(dataDir, f)).length === a && a > 0) snapshot = join(dataDir, f);
		}
	}
	const heap = snapshot ? heapSummary(snapshot) : undefined;
	if (snapshot) rmSync(snapshot);
	return heap;
}

async function measure(checkout: string): Promise<void> {
	const entry = join(checkout, 'build', 'service', 'main.js');
	if (!existsSync(entry)) throw new Error(`${entry} is missing: build that checkout first`);
	const dataDir = mkdtempSync(join(tmpdir(), 'gexdeck-bench-servicememory-'));
	const nodeFlags = await serviceFlags(checkout);
	const child: ChildProcess = spawn(
		process.execPath,
		[
			...nodeFlags,
			'--heapsnapshot-signal=SIGUSR2',
			`--diagnostic-dir=${dataDir}`,
			entry,
			'--port',
			'0',
			'--ready-json',
			'--data-dir',
			join(dataDir, 'service')
		],
		{
			cwd: checkout,
			stdio: ['ignore', 'pipe', 'inherit'],
			env: { ...process.env, NODE_ENV: 'production' }
		}
	);
	const started = performance.now();
	// Its stdout: the ready line, then its info log, where a build that says so tells when every
	// chain is live (timed, to show the idle window starts after it).
	let allLiveS: number | undefined;
	const readyLine = new Promise<Ready | undefined>((resolveReady) => {
		const lines = createInterface({ input: child.stdout! });
		lines.on('line', (line) => {
			if (allLiveS === undefined && /all \d+ chains live/.test(line))
				allLiveS = (performance.now() - started) / 1000;
			if (!line.startsWith('{')) return;
			const msg = JSON.parse(line) as Ready & { event: string };
			if (msg.event === 'ready') resolveReady(msg);
		});
		lines.once('close', () => resolveReady(undefined));
	});
	try {
		const ready = await readyLine;
		if (!ready) throw new Error('the service exited before it was ready');
		const readyS = (performance.now() - started) / 1000;
		const pid = child.pid!;

		// Settled: `--settle` s after ready and, for a build that reports it, 30 s after every chain
		// is live (its build caches dropped, the catch-up's garbage collected); a build that does
		// not say so gets the longest wait, SETTLE_S + 120 s.
		const sinceReady = () => (performance.now() - started) / 1000 - readyS;
		while (
			sinceReady() < SETTLE_S ||
			(allLiveS === undefined
				? sinceReady() < SETTLE_S + 120
				: (performance.now() - started) / 1000 - allLiveS < 30)
		)
			await sleep(1000);
		const settledS = sinceReady();
		const idle: number[] = [];
		const cpu0 = cpuSeconds(pid);
		const idleLoad = loadavg()[0];
		for (let t = 0; t < IDLE_S; t++) {
			await sleep(1000);
			idle.push(rssBytes(pid));
		}
		const idleCpu = (cpuSeconds(pid) - cpu0) / IDLE_S;
		const parts = rssParts(pid);
		const mb = (b: number) => (b / MB).toFixed(0);
		const idleLine =
			`idle RSS (service alone, ${IDLE_S} samples 1 s apart from ${settledS.toFixed(0)} s after ready): ` +
			`median ${mb(median(idle))} MB (min ${mb(Math.min(...idle))}, max ${mb(Math.max(...idle))}; ` +
			`at the end ${mb(parts.anon)} MB anonymous + ${mb(parts.file)} MB file-backed), ` +
			`CPU ${(idleCpu * 100).toFixed(0)}% of a core over that window (the live loop, no client), ` +
			`load ${idleLoad.toFixed(1)}; V8 flags: ${nodeFlags.join(' ') || '(none)'}; every chain live ` +
			(allLiveS === undefined ? '(not reported)' : `${allLiveS.toFixed(0)} s after the start`);

		if (flags['skip-eod']) {
			console.log(`checkout: ${checkout}\nready after ${readyS.toFixed(1)} s\n${idleLine}`);
			printHeap(await heapOf(child, dataDir));
			return;
		}
		const account = ready.accounts.find((a) => a.max_level === 'quant') ?? ready.accounts[0];
		const key = account.keys.find((k) => k.product !== 'research')!.key;
		const url = `${new URL(ready.base_url).origin}/v2/hist/eod/SPX`;
		let peak = treeRss(pid);
		let peakChildren = 0;
		const sampler = setInterval(() => {
			peak = Math.max(peak, treeRss(pid));
			peakChildren = Math.max(peakChildren, descendants(pid).length);
		}, 50);
		const t0 = performance.now();
		const cpuBefore = [cpuSeconds(pid), cpuSeconds(pid, true)];
		const load0 = loadavg()[0];
		let status = 0;
		let bytes = 0;
		let asks = 0;
		while (asks++ < 20) {
			const res = await fetch(url, {
				headers: { 'User-Agent': 'gexdeck-bench/1', Authorization: `Bearer ${key}` }
			});
			bytes = (await res.arrayBuffer()).byteLength;
			status = res.status;
			if (status !== 504) break;
		}
		const eodS = (performance.now() - t0) / 1000;
		clearInterval(sampler);
		// The parts have exited (the day is written before the 200), so cutime holds theirs.
		const ownCpu = cpuSeconds(pid) - cpuBefore[0];
		const childCpu = cpuSeconds(pid, true) - cpuBefore[1];
		const load1 = loadavg()[0];
		await sleep(2000);
		const afterRss = rssBytes(pid);
		// Last: writing a snapshot raises the process's RSS for good, so it must not precede the EOD.
		const heap = await heapOf(child, dataDir);

		console.log(`checkout: ${checkout}`);
		console.log(`ready after ${readyS.toFixed(1)} s`);
		console.log(idleLine);
		printHeap(heap);
		console.log(
			`first EOD (SPX): ${status} after ${eodS.toFixed(1)} s (${asks} request(s), ${(bytes / MB).toFixed(1)} MB), ` +
				`peak RSS of service + children ${(peak / MB).toFixed(0)} MB (up to ${peakChildren} children), ` +
				`service alone 2 s after: ${(afterRss / MB).toFixed(0)} MB`
		);
		// The service's own share includes its live loop for as long as the request takes, which
		// on a loaded machine is mostly waiting: the children's figure is the day's generation.
		console.log(
			`first EOD CPU (user + system): children ${childCpu.toFixed(1)} s, service ` +
				`${ownCpu.toFixed(1)} s (its live loop included), together ${(childCpu + ownCpu).toFixed(1)} s ` +
				`= ${((childCpu + ownCpu) / eodS).toFixed(2)} cores over the wall time; load average ` +
				`${load0.toFixed(1)} at the request, ${load1.toFixed(1)} at the 200`
		);
	} finally {
		child.kill('SIGTERM');
		await new Promise((r) => (child.exitCode === null ? child.once('exit', r) : r(undefined)));
		rmSync(dataDir, { recursive: true, force: true });
	}
}

for (const checkout of checkouts) await measure(checkout);
