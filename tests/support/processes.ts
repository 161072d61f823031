/**
 * The project's servers as child processes, started the way users start them, for the
 * integration tests and the benchmarks alike (one starter of each, so a change to how the app
 * starts or says it is ready is made once): the built dashboard (`npm start` = scripts/start.js,
 * adapter-node's `node build`, or `vite preview`) and the embedded service alone (`npm run
 * service` = src/service/main.ts), each on a free loopback port. The dashboard and its helpers
 * for HTTP tests are re-exported by tests/integration/dashboard-support.ts, the service by
 * service-support.ts; bench/support.ts imports them from here.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { stripVTControlCharacters } from 'node:util';

export const root = join(import.meta.dirname, '..', '..');

/** A port free on 127.0.0.1 right now (for a server that must be told its port up front). */
export function freePort(): Promise<number> {
	return new Promise((resolve, reject) => {
		const s = createServer();
		s.once('error', reject);
		s.listen(0, '127.0.0.1', () => {
			const { port } = s.address() as AddressInfo;
			s.close(() => resolve(port));
		});
	});
}

/** Sends SIGTERM (unless the child already ended) and resolves when it has exited. */
export async function stopChild(child: ChildProcess): Promise<void> {
	if (child.exitCode !== null || child.signalCode !== null) return;
	const exited = new Promise((r) => child.once('exit', r));
	child.kill('SIGTERM');
	await exited;
}

export interface RunningDashboard {
	proc: ChildProcess;
	port: number;
	base: string;
	/** Everything the process printed so far (stdout and stderr). */
	output(): string;
	stop(): Promise<void>;
}

const ENTRIES = {
	/** `npm start` */
	start: { args: () => ['scripts/start.js'], ready: 'Listening on' },
	/** adapter-node's own `node build` */
	build: { args: () => ['build'], ready: 'Listening on' },
	/** `npm run preview` (vite preview of the build), on loopback */
	preview: {
		args: (port: number) => [
			join('node_modules', 'vite', 'bin', 'vite.js'),
			'preview',
			'--port',
			String(port),
			'--strictPort',
			'--host',
			'127.0.0.1'
		],
		ready: 'Local:'
	}
};

/** This process's environment with `env` laid over it; a variable set to undefined is removed. */
function childEnv(env: Record<string, string | undefined>): Record<string, string> {
	const out: Record<string, string> = {};
	for (const [k, v] of Object.entries({ ...process.env, ...env })) {
		if (v !== undefined) out[k] = v;
	}
	return out;
}

/** `node <args>` in the repository, its stdout and stderr collected as text. */
function spawnNode(args: string[], env: Record<string, string | undefined>) {
	const proc = spawn(process.execPath, args, {
		cwd: root,
		env: childEnv(env),
		stdio: ['ignore', 'pipe', 'pipe']
	});
	let out = '';
	proc.stdout!.on('data', (d: Buffer) => (out += d.toString()));
	proc.stderr!.on('data', (d: Buffer) => (out += d.toString()));
	// Vite colours its banner when CI is set, even into a pipe: match the text, not the escapes.
	return { proc, output: () => stripVTControlCharacters(out) };
}

/**
 * Start the built dashboard the way `entry` does, on a free loopback port with a fresh data
 * folder, and wait until it listens. `env` is laid over this process's environment; a variable
 * set to undefined there is removed (say, GEXDECK_UPSTREAM, to run the embedded service).
 */
export async function startDashboard(
	env: Record<string, string | undefined>,
	entry: keyof typeof ENTRIES = 'start'
): Promise<RunningDashboard> {
	// A port chosen up front (env.PORT: an OIDC provider must know the callback's) or a free one.
	const port = env.PORT ? Number(env.PORT) : await freePort();
	const { proc, output } = spawnNode(ENTRIES[entry].args(port), {
		HOST: '127.0.0.1',
		PORT: String(port),
		GEXDECK_DATA_DIR: mkdtempSync(join(tmpdir(), 'gexdeck-dash-')),
		...env
	});
	await new Promise<void>((resolve, reject) => {
		const onData = () => {
			if (output().includes(ENTRIES[entry].ready)) {
				proc.stdout!.off('data', onData);
				resolve();
			}
		};
		proc.stdout!.on('data', onData);
		proc.once('exit', (code) => reject(new Error(`dashboard exited ${code}: ${output()}`)));
	});
	return {
		proc,
		port,
		base: `http://127.0.0.1:${port}`,
		output,
		stop: () => stopChild(proc)
	};
}

/** Run `node <args>` to completion (a start that must refuse), with its exit code and output. */
export function runToExit(
	args: string[],
	env: Record<string, string | undefined>,
	timeoutMs = 120_000
): Promise<{ code: number | null; output: string }> {
	const { proc, output } = spawnNode(args, env);
	const timer = setTimeout(() => proc.kill('SIGKILL'), timeoutMs);
	return new Promise((resolve) =>
		proc.once('exit', (code) => {
			clearTimeout(timer);
			resolve({ code, output: output() });
		})
	);
}

export interface SpawnedService {
	child: ChildProcess;
	/** The service's base URL with its `/v2` prefix. */
	url: string;
	port: number;
	stop(): Promise<void>;
}

/**
 * The service as its own process, as `npm run service` runs it (so a crash is an exit);
 * resolves once it printed its ready line. `port` 0 picks a free one; a fixed one restarts a
 * killed service where its clients expect it.
 */
export async function spawnService(options: {
	dataDir: string;
	port?: number;
	tickers?: readonly string[];
	/** Simulated start instant (default an RTH moment, so frames flow whatever the wall clock says). */
	start?: string;
	seed?: number;
	/** Simulated seconds per wall second (default 1). */
	speed?: number;
	/** Collects the child's stderr (crash traces) instead of passing it through. */
	onStderr?: (text: string) => void;
}): Promise<SpawnedService> {
	const args = ['--import', 'tsx', join(root, 'src/service/main.ts'), '--ready-json'];
	args.push('--port', String(options.port ?? 0), '--data-dir', options.dataDir);
	args.push('--tickers', (options.tickers ?? ['SPX']).join(','));
	args.push('--start', options.start ?? '2026-11-18T16:00:00Z');
	if (options.seed !== undefined) args.push('--seed', String(options.seed));
	if (options.speed !== undefined) args.push('--speed', String(options.speed));
	const child = spawn(process.execPath, args, {
		stdio: ['ignore', 'pipe', options.onStderr ? 'pipe' : 'inherit']
	});
	if (options.onStderr) child.stderr!.on('data', (d: Buffer) => options.onStderr!(d.toString()));
	for await (const line of createInterface({ input: child.stdout! })) {
		if (!line.startsWith('{')) continue;
		const ready = JSON.parse(line) as { event: string; base_url: string };
		if (ready.event === 'ready') {
			child.stdout!.resume();
			return {
				child,
				url: ready.base_url,
				port: Number(new URL(ready.base_url).port),
				stop: () => stopChild(child)
			};
		}
	}
	throw new Error('the service exited before it was ready');
}
