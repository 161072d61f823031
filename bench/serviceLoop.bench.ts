/**
 * The live loop's cost with its zero-gamma kernel now (the analytics engine's GammaKernel, the
 * same one every other zero gamma of the engine and the history generator uses) beside the
 * engine's own walk it replaced (src/service/engine/kernels.ts, removed), in one run:
 * - CPU per simulated second of the live loop for SPX with every payload of every category
 *   built and serialised (what a client subscribed to everything costs), early in the session
 *   and 15 minutes before the close (0DTE gamma at its narrowest: the kernel's hardest case);
 * - zero gamma alone (full, 0DTE and next-expiry sets) per second at the same times;
 * - CPU share of the embedded service at its default speed (1x, whole universe, no clients).
 *
 * The previous code is the tree of the commit before kernels.ts was removed, extracted with
 * `git archive` into a temporary folder (BENCH_BASELINE=<rev> picks another); both trees are
 * measured in this process (rounds interleaved, so a busy machine slows both alike) and the
 * service shares in child processes one after the other.
 */
import { fork, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const repo = join(here, '..');
const REMOVED = 'src/service/engine/kernels.ts';
const SEED = 1;
const DATE = '2026-11-18';
const ROUNDS = 8;
const TICKS_PER_ROUND = 15;
const SERVICE_WARMUP_S = Number(process.env.BENCH_SERVICE_WARMUP ?? 30);
const SERVICE_WINDOWS = Number(process.env.BENCH_SERVICE_WINDOWS ?? 10);
const WINDOW_S = 5;

function git(args: string[], input?: Buffer): Buffer {
	const r = spawnSync('git', args, { cwd: repo, input, maxBuffer: 512 * 1024 * 1024 });
	if (r.status !== 0) throw new Error(`git ${args.join(' ')}: ${r.stderr}`);
	return r.stdout;
}

/** The source tree of the previous kernel, extracted into a temporary folder (removed at the end). */
function baselineTree(): { rev: string; dir: string } {
	let rev = process.env.BENCH_BASELINE;
	if (!rev) {
		const atHead = spawnSync('git', ['cat-file', '-e', `HEAD:${REMOVED}`], { cwd: repo });
		// Before the removal is committed the baseline is HEAD; after it, the removal's parent.
		rev =
			atHead.status === 0
				? 'HEAD'
				: `${git(['rev-list', '-1', 'HEAD', '--', REMOVED]).toString().trim()}^`;
	}
	const sha = git(['rev-parse', rev]).toString().trim();
	const dir = mkdtempSync(join(tmpdir(), `gexdeck-bench-baseline-${sha.slice(0, 10)}-`));
	const tar = git(['archive', sha, 'src']);
	const x = spawnSync('tar', ['-x', '-C', dir], { input: tar });
	if (x.status !== 0) throw new Error(`tar: ${x.stderr}`);
	// Packages resolve from the repository's node_modules.
	symlinkSync(join(repo, 'node_modules'), join(dir, 'node_modules'));
	return { rev: sha.slice(0, 10), dir };
}

const load = (root: string, path: string) => import(pathToFileURL(join(root, path)).href);

function cpuMs(): number {
	const u = process.cpuUsage();
	return (u.user + u.system) / 1000;
}
function median(xs: number[]): number {
	const s = [...xs].sort((a, b) => a - b);
	return s.length % 2 ? s[s.length >> 1] : 0.5 * (s[s.length / 2 - 1] + s[s.length / 2]);
}
function p90(xs: number[]): number {
	const s = [...xs].sort((a, b) => a - b);
	return s[Math.min(s.length - 1, Math.floor(0.9 * s.length))];
}

interface Tree {
	name: string;
	root: string;
}

/** A live loop for SPX at `etTime` whose every payload is built and serialised each second. */
async function liveLoop(tree: Tree, utc: string) {
	const { LiveEngine } = await load(tree.root, 'src/service/engine/live.ts');
	const { SessionClock } = await load(tree.root, 'src/service/market/clock.ts');
	let wall = Date.parse(utc);
	const live = new LiveEngine(SEED, ['SPX'], new SessionClock({ mode: 'real', wall: () => wall }));
	await live.advance(Infinity);
	const bodies: string[] = [];
	return async (): Promise<number> => {
		wall += 1000;
		const before = cpuMs();
		await live.advance(Infinity);
		const s = live.latest('SPX');
		for (const map of [s.payloads, s.majors, s.maxchange, s.expiryPayloads ?? new Map()])
			for (const p of map.values()) bodies.push(p.body);
		const cost = cpuMs() - before;
		bodies.length = 0;
		return cost;
	};
}

/** Zero gamma of the three sets per second on an SPX day at `tick`. */
async function zeroGammaLoop(tree: Tree, tick: number) {
	const { TickerDay } = await load(tree.root, 'src/service/engine/tickerDay.ts');
	const { advanceDay } = await load(tree.root, 'src/service/engine/live.ts');
	const { zeroGammaOf } = await load(tree.root, 'src/service/engine/categoryPayloads.ts');
	const day = new TickerDay(SEED, 'SPX', DATE);
	advanceDay(day, tick);
	const levels: number[] = [];
	return async (): Promise<number> => {
		day.step('rings');
		const t = performance.now();
		for (const name of ['full', 'zero', 'one']) levels.push(zeroGammaOf(day, day.subsets[name]));
		return performance.now() - t;
	};
}

/**
 * The zero_gamma levels the payloads publish over a whole SPX day (every second, full, 0DTE and
 * next-expiry sets) from both trees, and for every level that differs, which tree's equals the
 * brute-force root (gammaKernel.test-support) rounded to cents.
 */
async function dayLevels(trees: Tree[], seed: number) {
	const days = [];
	for (const tree of trees) {
		const { TickerDay } = await load(tree.root, 'src/service/engine/tickerDay.ts');
		const { zeroGammaOf } = await load(tree.root, 'src/service/engine/categoryPayloads.ts');
		days.push({ day: new TickerDay(seed, 'SPX', DATE), zeroGammaOf });
	}
	const { bruteNearest } = await load(repo, 'src/lib/analytics/gammaKernel.test-support.ts');
	const { GammaKernel } = await load(repo, 'src/lib/analytics/gammaKernel.ts');
	const r2 = (x: number) => Math.round(x * 100) / 100;
	let levels = 0;
	const differ: { tick: number; set: string; now: number; before: number; brute: number }[] = [];
	const [a, b] = days;
	while (a.day.step('gamma') && b.day.step('gamma')) {
		for (const set of ['full', 'zero', 'one']) {
			const now = a.zeroGammaOf(a.day, a.day.subsets[set]);
			const before = b.zeroGammaOf(b.day, b.day.subsets[set]);
			levels++;
			if (now === before) continue;
			const s = a.day.subsets[set];
			const selection = Int32Array.from({ length: s.end - s.start }, (_, i) => s.start + i);
			const minWidth = new GammaKernel().update(a.day.arrays, { selection }).minWidth;
			const root =
				bruteNearest(a.day.arrays, 'vol', minWidth, 16, selection) ??
				bruteNearest(a.day.arrays, 'oi', minWidth, 16, selection);
			differ.push({ tick: a.day.tick, set, now, before, brute: root === null ? 0 : r2(root) });
		}
	}
	return { levels, differ };
}

/** Interleaved rounds of two measured loops; per-second samples of each. */
async function sideBySide(make: (tree: Tree) => Promise<() => Promise<number>>, trees: Tree[]) {
	const loops = [];
	for (const tree of trees) loops.push(await make(tree));
	const samples = trees.map(() => [] as number[]);
	for (let r = 0; r < ROUNDS; r++)
		for (let k = 0; k < loops.length; k++)
			for (let i = 0; i < TICKS_PER_ROUND; i++) {
				const v = await loops[k]();
				if (r > 0) samples[k].push(v); // the first round warms the JIT
			}
	return samples;
}

/** Child: the embedded service with its defaults, reporting its CPU share per window. */
async function serve(root: string): Promise<void> {
	const { startService } = await load(root, 'src/service/server.ts');
	const dataDir = mkdtempSync(join(tmpdir(), 'gexdeck-bench-cpu-'));
	// A session day at 09:40 ET, running at the default speed (1x) over the whole universe.
	const service = await startService({ dataDir, port: 0, start: `${DATE}T14:40:00Z` });
	await new Promise((r) => setTimeout(r, SERVICE_WARMUP_S * 1000));
	const shares: number[] = [];
	for (let w = 0; w < SERVICE_WINDOWS; w++) {
		const c0 = cpuMs();
		const t0 = performance.now();
		await new Promise((r) => setTimeout(r, WINDOW_S * 1000));
		shares.push((cpuMs() - c0) / (performance.now() - t0));
	}
	await service.close();
	rmSync(dataDir, { recursive: true, force: true });
	process.send?.(shares);
	process.disconnect?.();
}

async function serviceShare(root: string): Promise<number[]> {
	const child = fork(fileURLToPath(import.meta.url), ['serve', root], {
		execArgv: ['--import', 'tsx'],
		stdio: ['ignore', 'ignore', 'inherit', 'ipc']
	});
	return new Promise<number[]>((resolve, reject) => {
		child.once('message', (m) => resolve(m as number[]));
		child.once('exit', (code) => reject(new Error(`service process exited with ${code}`)));
	});
}

async function main(): Promise<void> {
	const baseline = baselineTree();
	try {
		await measure(baseline);
	} finally {
		rmSync(baseline.dir, { recursive: true, force: true });
	}
}

async function measure(baseline: { rev: string; dir: string }): Promise<void> {
	const trees: Tree[] = [
		{ name: 'GammaKernel (now)', root: repo },
		{ name: `engine walk (before, ${baseline.rev})`, root: baseline.dir }
	];
	const rows: string[] = [];
	const fmt = (x: number) => x.toFixed(3);
	const pair = (label: string, unit: string, [now, before]: number[][]) => {
		rows.push(`| ${label}, ${trees[0].name} | ${fmt(median(now))} ${unit} | ${fmt(p90(now))} |`);
		rows.push(
			`| ${label}, ${trees[1].name} | ${fmt(median(before))} ${unit} | ${fmt(p90(before))} |`
		);
		rows.push(
			`| ${label}: now / before (medians) | **${(median(now) / median(before)).toFixed(2)}** | |`
		);
	};
	for (const [label, utc, tick] of [
		['10:00 ET', `${DATE}T15:00:00Z`, 1800],
		['15:45 ET', `${DATE}T20:45:00Z`, 22_500]
	] as const) {
		pair(
			`SPX live loop CPU per second, every payload built + serialised, ${label}`,
			'ms',
			await sideBySide((t) => liveLoop(t, utc), trees)
		);
		pair(
			`SPX zero gamma per second (full, 0DTE, next expiry), ${label}`,
			'ms',
			await sideBySide((t) => zeroGammaLoop(t, tick), trees)
		);
	}
	// Seed 1 is the service's default market; 42 the one the regeneration tests use.
	for (const seed of [SEED, 42]) {
		const { levels, differ } = await dayLevels(trees, seed);
		const right = (k: 'now' | 'before') => differ.filter((d) => d[k] === d.brute).length;
		const cents = differ.filter((d) => Math.abs(d.now - d.before) < 0.0101).length;
		rows.push(
			`| SPX ${DATE} seed ${seed}, whole day: published zero_gamma levels that differ now / before | ${differ.length} of ${levels} (${cents} by one cent) | |`
		);
		rows.push(
			`| of those, equal to the brute-force root rounded to cents: now / before | ${right('now')} / ${right('before')} | |`
		);
	}
	const shares = [];
	for (const tree of trees) shares.push(await serviceShare(tree.root));
	const pct = (x: number) => `${(100 * x).toFixed(1)}%`;
	rows.push(
		`| embedded service CPU share (1x, whole universe, no clients, ${SERVICE_WINDOWS} x ${WINDOW_S} s), ${trees[0].name} | ${pct(median(shares[0]))} | ${pct(p90(shares[0]))} |`
	);
	rows.push(
		`| embedded service CPU share, ${trees[1].name} | ${pct(median(shares[1]))} | ${pct(p90(shares[1]))} |`
	);
	rows.push(
		`| embedded service CPU share: now / before (medians) | **${(median(shares[0]) / median(shares[1])).toFixed(2)}** | |`
	);
	console.log(
		`Live loop with the zero-gamma kernel now and before, one run, ${ROUNDS - 1} x ${TICKS_PER_ROUND} s each (interleaved), node ${process.version}\n`
	);
	console.log('| measurement | median | p90 |');
	console.log('| --- | --- | --- |');
	for (const r of rows) console.log(r);
}

if (process.argv[2] === 'serve') await serve(process.argv[3]);
else await main();
