/**
 * What the benchmarks share: Chromium launched exactly as the e2e tests launch it (the flags
 * come from playwright.config.ts, not a copy), bundling browser code with esbuild (Svelte
 * components and rune modules included), a static server for harness pages, the embedded
 * service and the built dashboard as child processes, and the statistics.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { createServer as createNetServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser } from '@playwright/test';
import { build, transform, type Plugin } from 'esbuild';
import { compile, compileModule } from 'svelte/compiler';
import playwrightConfig from '../playwright.config';

export const root = fileURLToPath(new URL('..', import.meta.url));

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
export function launchChromium(): Promise<Browser> {
	const options = playwrightConfig.use?.launchOptions;
	if (!options?.executablePath) throw new Error('playwright.config.ts sets no launchOptions');
	return chromium.launch(options);
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

/** Bundles `entry` (relative to the repo) into one browser ES module (what vite does for the app). */
export async function bundleForBrowser(entry: string, outfile: string): Promise<void> {
	await build({
		entryPoints: [join(root, entry)],
		bundle: true,
		format: 'esm',
		platform: 'browser',
		conditions: ['browser', 'production'],
		target: 'es2022',
		outfile,
		alias: { $lib: join(root, 'src/lib') },
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

export function freePort(): Promise<number> {
	return new Promise((resolve, reject) => {
		const srv = createNetServer();
		srv.once('error', reject);
		srv.listen(0, '127.0.0.1', () => {
			const { port } = srv.address() as AddressInfo;
			srv.close(() => resolve(port));
		});
	});
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

export interface ServiceOptions {
	dataDir: string;
	tickers: readonly string[];
	/** Simulated start instant (an RTH moment, so frames flow whatever the wall clock says). */
	start?: string;
	seed?: number;
	/** Simulated seconds per wall second (default 1). */
	speed?: number;
}

/** The embedded service in its own process (src/service/main.ts), at simulated speed 1. */
export async function startService(
	o: ServiceOptions
): Promise<{ process: ChildProcess; baseUrl: string; stop: () => Promise<void> }> {
	const child = spawn(
		process.execPath,
		[
			'--import',
			'tsx',
			join(root, 'src/service/main.ts'),
			'--port',
			'0',
			'--ready-json',
			'--data-dir',
			o.dataDir,
			'--start',
			o.start ?? '2026-11-18T16:00:00Z',
			'--speed',
			String(o.speed ?? 1),
			'--seed',
			String(o.seed ?? 5),
			'--tickers',
			o.tickers.join(',')
		],
		{ stdio: ['ignore', 'pipe', 'inherit'] }
	);
	const ready = await nextJson(lines(child), 'ready');
	return {
		process: child,
		baseUrl: String(ready.base_url),
		stop: async () => {
			if (child.exitCode !== null) return;
			child.kill('SIGTERM');
			await new Promise((r) => child.once('exit', r));
		}
	};
}

export interface Upstream {
	baseUrl: string;
	key: string;
}

/**
 * The built dashboard (`node scripts/start.js`) on `port`, pointed at `upstream` with the two
 * variables a real deployment uses. Resolves once it listens.
 */
export async function startDashboard(
	upstream: Upstream,
	port: number,
	dataDir: string
): Promise<ChildProcess> {
	const child = spawn(process.execPath, ['scripts/start.js'], {
		cwd: root,
		env: {
			...process.env,
			PORT: String(port),
			HOST: '127.0.0.1',
			GEXDECK_UPSTREAM: upstream.baseUrl,
			GEXDECK_API_KEY: upstream.key,
			GEXDECK_DATA_DIR: dataDir
		},
		stdio: ['ignore', 'pipe', 'inherit']
	});
	await new Promise<void>((resolve, reject) => {
		let out = '';
		child.stdout!.on('data', (d: Buffer) => {
			out += d.toString();
			if (out.includes('Listening on')) resolve();
		});
		child.once('exit', (code) => reject(new Error(`dashboard exited with ${code}: ${out}`)));
	});
	return child;
}
