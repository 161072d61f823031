/**
 * The embedded service as a child process: started when no upstream is configured, killed when
 * the dashboard exits. It prints one JSON line when ready, naming its base URL and the demo
 * accounts with their keys; the dashboard keeps those keys server-side.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { log } from './log';

export interface DemoKey {
	key: string;
	integration: string;
	product: string;
}

export interface DemoAccount {
	_id: string;
	max_level: string;
	addons: string[];
	keys: DemoKey[];
}

export interface EmbeddedService {
	baseUrl: string;
	accounts: DemoAccount[];
	/** False once the child process has exited (it is then started again on demand). */
	alive(): boolean;
	stop(): void;
}

interface ReadyLine {
	event: 'ready';
	base_url: string;
	accounts: DemoAccount[];
}

const LEVEL_RANK: Record<string, number> = { classic: 1, state: 2, orderflow: 3, quant: 4 };

/** Rank of an account's entitlements: level first, then the Research add-on. */
export function entitlementRank(account: Pick<DemoAccount, 'max_level' | 'addons'>): number {
	const research = account.addons.some((a) => a.toLowerCase().includes('research')) ? 1 : 0;
	return (LEVEL_RANK[account.max_level] ?? 0) * 2 + research;
}

/** The demo account with the highest entitlements (Quant plus Research on the stock service). */
export function bestDemoAccount(accounts: readonly DemoAccount[]): DemoAccount | undefined {
	return [...accounts].sort((a, b) => entitlementRank(b) - entitlementRank(a))[0];
}

export function customKeyOf(account: DemoAccount): string | undefined {
	return (
		account.keys.find((k) => k.integration === 'custom' && k.product !== 'research')?.key ??
		account.keys.find((k) => k.product !== 'research' && !k.key.startsWith('research_'))?.key
	);
}

export function researchKeyOf(account: DemoAccount): string | undefined {
	return account.keys.find((k) => k.product === 'research' || k.key.startsWith('research_'))?.key;
}

export function parseReadyLine(line: string): ReadyLine | undefined {
	let value: unknown;
	try {
		value = JSON.parse(line);
	} catch {
		return undefined;
	}
	const v = value as Partial<ReadyLine>;
	if (v?.event !== 'ready' || typeof v.base_url !== 'string' || !Array.isArray(v.accounts)) {
		return undefined;
	}
	return v as ReadyLine;
}

/** The repository root (the folder holding src/service/main.ts), from the build or the sources. */
export function findProjectRoot(): string {
	const starts = [process.cwd(), dirname(fileURLToPath(import.meta.url))];
	for (const start of starts) {
		let dir = resolve(start);
		for (;;) {
			if (existsSync(join(dir, 'src', 'service', 'main.ts'))) return dir;
			const parent = dirname(dir);
			if (parent === dir) break;
			dir = parent;
		}
	}
	throw new Error(
		'embedded service not found (src/service/main.ts); set GEXDECK_UPSTREAM to use another service'
	);
}

/**
 * V8 flags the service runs with: its young generation capped at 2 MB semi-spaces (Node's default
 * is 16 MB). The live loop makes every chain's payloads each second, short-lived garbage that
 * grew the young generation to its cap and kept it there, some 30-40 MB of the idle service's
 * RSS. Measured (issue 26 item 5, `npm run bench -- servicememory`): see README.md's memory notes
 * for the RSS and the live loop's CPU with and without it.
 */
export const SERVICE_HEAP_FLAGS = ['--max-semi-space-size=2'];

/** Path of the compiled service inside the build folder (scripts/build-service.js writes it). */
export const BUILT_SERVICE_ENTRY = join('service', 'main.js');

/**
 * How to run the embedded service: the compiled build/service/main.js when this code runs from
 * adapter-node's build (a production install has no tsx and may have no src/), else the
 * TypeScript sources through tsx (vite dev, preview, tests).
 */
export function serviceCommand(from = dirname(fileURLToPath(import.meta.url))): {
	args: string[];
	cwd: string;
} {
	let dir = resolve(from);
	for (;;) {
		const entry = join(dir, BUILT_SERVICE_ENTRY);
		if (existsSync(join(dir, 'handler.js')) && existsSync(entry)) {
			return { args: [...SERVICE_HEAP_FLAGS, entry], cwd: process.cwd() };
		}
		const parent = dirname(dir);
		if (parent === dir) break;
		dir = parent;
	}
	const root = findProjectRoot();
	return {
		args: [...SERVICE_HEAP_FLAGS, '--import', 'tsx', join(root, 'src', 'service', 'main.ts')],
		cwd: root
	};
}

const children = new Set<ChildProcess>();
let exitHooked = false;

function hookExit(): void {
	if (exitHooked) return;
	exitHooked = true;
	// Last resort when the process ends without a graceful shutdown (stopEmbeddedServices).
	process.on('exit', () => {
		for (const child of children) child.kill('SIGTERM');
		children.clear();
	});
}

/**
 * Stops every embedded service child: SIGTERM (it closes its sockets and flushes its counters),
 * SIGKILL after `graceMs`. Resolves once all have exited.
 */
export async function stopEmbeddedServices(graceMs = 3_000): Promise<void> {
	const running = [...children];
	children.clear();
	await Promise.all(
		running.map(
			(child) =>
				new Promise<void>((done) => {
					if (child.exitCode !== null || child.signalCode !== null) return done();
					const kill = setTimeout(() => child.kill('SIGKILL'), graceMs);
					child.once('exit', () => {
						clearTimeout(kill);
						done();
					});
					child.kill('SIGTERM');
				})
		)
	);
}

/** Start the embedded service and wait for its ready line (2 min at most: the market model warms up first). */
export function startEmbeddedService(
	dataDir: string,
	timeoutMs = 120_000
): Promise<EmbeddedService> {
	const command = serviceCommand();
	hookExit();
	const child = spawn(
		process.execPath,
		[
			...command.args,
			'--port',
			'0',
			'--ready-json',
			'--data-dir',
			dataDir,
			// The State payload shape (observed | documented), for trying the dashboard on both.
			...(process.env.GEXDECK_SERVICE_PAYLOADS
				? ['--payloads', process.env.GEXDECK_SERVICE_PAYLOADS]
				: []),
			// How long a history request is held before its 504 with progress (the e2e tests
			// shorten it to see a day generate).
			...(process.env.GEXDECK_SERVICE_HISTORY_WAIT_MS
				? ['--history-wait', process.env.GEXDECK_SERVICE_HISTORY_WAIT_MS]
				: [])
		],
		{
			cwd: command.cwd,
			stdio: ['ignore', 'pipe', 'pipe'],
			env: { ...process.env, NODE_ENV: 'production' }
		}
	);
	children.add(child);
	let exited = false;
	child.once('exit', () => {
		exited = true;
		children.delete(child);
	});

	// Its diagnostics join the dashboard's log (one JSON object per line with GEXDECK_LOG=json).
	createInterface({ input: child.stderr! }).on('line', (line) => log.forward('service', line));
	return new Promise((resolvePromise, reject) => {
		const lines = createInterface({ input: child.stdout! });
		const timer = setTimeout(() => {
			fail(new Error(`embedded service did not report ready within ${timeoutMs} ms`));
			child.kill('SIGTERM');
		}, timeoutMs);
		let settled = false;
		function fail(err: Error) {
			if (settled) return;
			settled = true;
			clearTimeout(timer);
			reject(err);
		}
		lines.on('line', (line) => {
			if (settled) return;
			const ready = parseReadyLine(line);
			if (!ready) return;
			settled = true;
			clearTimeout(timer);
			// Keep draining its stdout so the child never blocks on a full pipe.
			lines.on('line', () => {});
			resolvePromise({
				baseUrl: ready.base_url.replace(/\/+$/, ''),
				accounts: ready.accounts,
				alive: () => !exited,
				stop: () => {
					child.kill('SIGTERM');
					children.delete(child);
				}
			});
		});
		child.once('error', (err) =>
			fail(new Error(`embedded service failed to start: ${err.message}`))
		);
		child.once('exit', (code, signal) =>
			fail(new Error(`embedded service exited before ready (code ${code}, signal ${signal})`))
		);
	});
}
