/**
 * What the benchmarks share: Chromium launched exactly as the e2e tests launch it (the flags
 * come from playwright.config.ts, not a copy), bundling browser code with esbuild (Svelte
 * components and rune modules included), a static server for harness pages, the embedded
 * service and the built dashboard as child processes (the integration tests' starters), the
 * load benches' unmetered service in a child and autocannon, and the statistics.
 */
import { fork, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser } from '@playwright/test';
import { build, transform, type Plugin } from 'esbuild';
import { compile, compileModule } from 'svelte/compiler';
import playwrightConfig from '../playwright.config';
import { attachStreamEndpoint, type StreamRelay } from '../src/lib/server/stream';
import { demoAccounts } from '../src/service/accounts/demo';
import { startService, type RunningService } from '../src/service/server';
import { freePort, root } from '../tests/support/processes';

export { root };

// ---- statistics ---------------------------------------------------------------------------

/** The q-quantile of an ascending array. */
export const quantile = (sorted: readonly number[], q: number): number =>
	sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];

export const median = (xs: readonly number[]): number =>
	quantile(
		[...xs].sort((a, b) => a - b),
		0.5
	);

// ---- Chromium -----------------------------------------------------------------------------

/** Chromium as playwright.config.ts launches it for the e2e tests. */
export function launchChromium(extraArgs: string[] = []): Promise<Browser> {
	const options = playwrightConfig.use?.launchOptions;
	if (!options?.executablePath) throw new Error('playwright.config.ts sets no launchOptions');
	return chromium.launch({ ...options, args: [...(options.args ?? []), ...extraArgs] });
}

/** Compiles `.svelte` components and `.svelte.ts` rune modules for the browser. */
const sveltePlugin: Plugin = {
	name: 'svelte',
	setup(b) {
		b.onLoad({ filter: /\.svelte$/ }, (args) => {
			const source = readFileSync(args.path, 'utf8');
			const out = compile(source, { filename: args.path, generate: 'client', css: 'injected' });
			return { contents: out.js.code, loader: 'js' };
		});
		b.onLoad({ filter: /\.svelte\.ts$/ }, async (args) => {
			const ts = await transform(readFileSync(args.path, 'utf8'), { loader: 'ts' });
			const out = compileModule(ts.code, { filename: args.path, generate: 'client' });
			return { contents: out.js.code, loader: 'js' };
		});
	}
};

/**
 * Bundles `entry` (relative to the repo, or to `from`: another tree of the repo's sources) into
 * one browser ES module (what vite does for the app).
 */
export async function bundleForBrowser(
	entry: string,
	outfile: string,
	from: string = root
): Promise<void> {
	await build({
		entryPoints: [join(from, entry)],
		bundle: true,
		format: 'esm',
		platform: 'browser',
		conditions: ['browser', 'production'],
		target: 'es2022',
		outfile,
		alias: { $lib: join(from, 'src/lib') },
		// Another tree (a past commit's sources, bench/render.bench.ts --before) has no
		// node_modules of its own: packages resolve from this checkout's.
		nodePaths: [join(root, 'node_modules')],
		plugins: [sveltePlugin],
		logLevel: 'error'
	});
}

/**
 * Serves fixed files (path -> body) on a free local port, cross-origin isolated so pages and
 * workers get a fine-grained performance.now().
 */
export async function serveFiles(files: Record<string, string>): Promise<{
	origin: string;
	close: () => void;
}> {
	const server: Server = createServer((req, res) => {
		const body = files[req.url ?? '/'];
		if (body === undefined) return void res.writeHead(404).end();
		res.writeHead(200, {
			'Content-Type': (req.url ?? '/').endsWith('.js') ? 'text/javascript' : 'text/html',
			'Cross-Origin-Opener-Policy': 'same-origin',
			'Cross-Origin-Embedder-Policy': 'require-corp'
		});
		res.end(body);
	});
	await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
	return {
		origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
		close: () => server.close()
	};
}

// ---- child processes ----------------------------------------------------------------------

// The built dashboard and the service as their own processes: the starters the integration
// tests use (tests/support/processes.ts), so both start the app the same way.
export { freePort, spawnService, startDashboard } from '../tests/support/processes';

/**
 * The built dashboard of the checkout `app` (`node build` there: another checkout's for before
 * figures), on a free port with `env` over this process's, once it says it is listening. The
 * caller stops it as its bench needs.
 */
export async function spawnBuiltDashboard(
	app: string,
	env: Record<string, string>
): Promise<{ proc: ChildProcess; port: number; base: string }> {
	const port = await freePort();
	const proc = spawn(process.execPath, ['build'], {
		cwd: app,
		env: { ...process.env, HOST: '127.0.0.1', PORT: String(port), ...env },
		stdio: ['ignore', 'pipe', 'pipe']
	});
	let out = '';
	proc.stderr!.on('data', (d: Buffer) => (out += d.toString()));
	await new Promise<void>((resolve, reject) => {
		proc.stdout!.on('data', (d: Buffer) => {
			out += d.toString();
			if (out.includes('Listening on')) resolve();
		});
		proc.once('exit', (code) => reject(new Error(`dashboard exited ${code}: ${out}`)));
	});
	return { proc, port, base: `http://127.0.0.1:${port}` };
}

/** Resident memory of process `pid` in bytes (VmRSS of /proc/<pid>/status; 0 once it is gone). */
export function rssBytes(pid: number): number {
	try {
		const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
		return m ? Number(m[1]) * 1024 : 0;
	} catch {
		return 0;
	}
}

export function lines(child: ChildProcess): AsyncIterator<string> {
	return createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
}

/** The next JSON line of `it` whose `event` is `event` (banner lines are skipped). */
export async function nextJson(
	it: AsyncIterator<string>,
	event: string
): Promise<Record<string, unknown>> {
	for (;;) {
		const { value, done } = await it.next();
		if (done) throw new Error(`child ended before ${event}`);
		try {
			const j = JSON.parse(value) as Record<string, unknown>;
			if (j.event === event) return j;
		} catch {
			/* banner lines */
		}
	}
}

/**
 * The dashboard's /stream endpoint for `relay` on a loopback port (every viewer let in), and a
 * viewers process on it: `script` (a bench/*.viewers.ts) run with tsx, given the /stream URL
 * and `args`, speaking JSON lines on stdout and taking commands on stdin. close() ends the
 * viewers ('exit') and the endpoint; the relay is the caller's.
 */
export async function relayToViewers(
	relay: StreamRelay,
	script: string,
	args: string[]
): Promise<{ viewers: ChildProcess; close(): void }> {
	const http = createServer((_q, s) => s.writeHead(404).end());
	const endpoint = attachStreamEndpoint(http, relay, () => true);
	await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
	const url = `ws://127.0.0.1:${(http.address() as AddressInfo).port}/stream`;
	const viewers = spawn(process.execPath, ['--import', 'tsx', join(root, script), url, ...args], {
		stdio: ['pipe', 'pipe', 'inherit']
	});
	return {
		viewers,
		close: () => {
			viewers.stdin!.write('exit\n');
			endpoint.close();
			http.close();
		}
	};
}

/** The GEXDECK_UPSTREAM / GEXDECK_API_KEY pair a real deployment sets, for startDashboard. */
export interface Upstream {
	baseUrl: string;
	key: string;
}

export function upstreamEnv(upstream: Upstream, dataDir: string): Record<string, string> {
	return {
		GEXDECK_UPSTREAM: upstream.baseUrl,
		GEXDECK_API_KEY: upstream.key,
		GEXDECK_DATA_DIR: dataDir
	};
}

// ---- load runs against the embedded service in a child process ------------------------------

export interface AutocannonResult {
	requests: { average: number };
	latency: { p50: number; p99: number; average: number };
	non2xx: number;
	errors: number;
}

/** autocannon, typed: it ships no declarations; this is the part of its API the benches use. */
export const autocannon = createRequire(import.meta.url)('autocannon') as (options: {
	url: string;
	connections: number;
	duration: number;
	headers?: Record<string, string>;
}) => Promise<AutocannonResult>;

/**
 * One autocannon run of `connections` x `seconds` against `url`: requests/s, latency (whole ms,
 * as autocannon measures it) and the failures.
 */
export async function loadRun(
	url: string,
	headers: Record<string, string>,
	connections: number,
	seconds: number
) {
	const r = await autocannon({ url, connections, duration: seconds, headers });
	return {
		rps: r.requests.average,
		p50: r.latency.p50,
		p99: r.latency.p99,
		mean: r.latency.average,
		non2xx: r.non2xx,
		errors: r.errors
	};
}

/**
 * The `serve` side of a load bench: the embedded service (SPX) in this child process, with the
 * api_default allowance of demo account `accountId` lifted (a load run sends far more than a
 * day's allowance) and that account's first key; the service and its data folder go when the
 * parent disconnects. The bench sends the parent what it needs with `process.send`.
 */
export async function serveUnmetered(
	accountId: string
): Promise<{ service: RunningService; key: string }> {
	const dataDir = mkdtempSync(join(tmpdir(), 'gexdeck-bench-serve-'));
	const accounts = demoAccounts();
	const account = accounts.accounts.find((a) => a._id === accountId);
	if (!account) throw new Error(`no demo account ${accountId}`);
	account.allowances = { api_default: { daily: 1e12, monthly: 1e12 } };
	const service = await startService({ dataDir, accounts, tickers: ['SPX'] });
	process.on('disconnect', () => {
		void service.close().finally(() => {
			rmSync(dataDir, { recursive: true, force: true });
			process.exit(0);
		});
	});
	return { service, key: account.keys[0].key };
}

/**
 * Runs `benchFile` (a bench's import.meta.url) again as a child with the argument `serve`, so
 * the load generator does not share the servers' event loop; resolves with the child and the
 * first message it sends. `child.disconnect()` ends it.
 */
export async function forkServe<T>(benchFile: string): Promise<{ child: ChildProcess; ready: T }> {
	const child = fork(fileURLToPath(benchFile), ['serve'], {
		execArgv: ['--import', 'tsx'],
		stdio: ['ignore', 'inherit', 'inherit', 'ipc']
	});
	const ready = await new Promise<T>((resolve, reject) => {
		child.once('message', (m) => resolve(m as T));
		child.once('exit', (code) => reject(new Error(`server process exited with ${code}`)));
	});
	return { child, ready };
}
