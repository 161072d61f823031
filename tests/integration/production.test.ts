/**
 * The production path, run the way deploy/Dockerfile builds the image and a self-hoster runs
 * adapter-node: a copy of the repository (the files git knows: the image's build context), the
 * Dockerfile's build stage (`npm ci`, `npm run build`), its runtime stage in a second folder
 * (package files, `npm ci --omit=dev ...`, build/ — no sources, no dev dependencies), and its
 * CMD `node build`. The instructions are read from deploy/Dockerfile itself, with two stand-ins:
 * the build stage's `npm ci` links this checkout's node_modules (installed from the same
 * package-lock.json) and runs the `prepare` script npm ci would run; the runtime `npm ci` gets
 * --prefer-offline to use the local cache.
 *
 * Both entries, `node build` and `npm start` (scripts/start.js, in the build folder), must serve
 * the same app: a page, /api/whoami through the /api fast path and the embedded service, a
 * /stream frame, /healthz and /readyz; on SIGTERM the /stream viewer gets the "restarting" close
 * code, the process exits 0 within 10 s and its embedded service is gone. `vite preview` binds
 * loopback and goes through the same hooks.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import {
	cpSync,
	existsSync,
	mkdirSync,
	mkdtempSync,
	readdirSync,
	readFileSync,
	rmSync,
	symlinkSync
} from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { streamFrame } from './dashboard-support';
import { execForm, npmRuns, parseDockerfile, stage, type Stage } from '../support/dockerfile';

const root = join(import.meta.dirname, '..', '..');
const WORKDIR = '/app';
const dockerfile = parseDockerfile(readFileSync(join(root, 'deploy', 'Dockerfile'), 'utf8'));

const work = mkdtempSync(join(tmpdir(), 'gexdeck-prod-'));
const dirs: Record<string, string> = {
	build: join(work, 'build-stage'),
	runtime: join(work, 'runtime-stage')
};

/** The environment of a child: none of vitest's, none of the caller's gexdeck settings. */
function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
	const env: NodeJS.ProcessEnv = {};
	for (const [k, v] of Object.entries(process.env)) {
		if (/^(VITEST|GEXDECK_|NODE_ENV$|HOST$|PORT$|ORIGIN$|TEST$)/.test(k)) continue;
		env[k] = v;
	}
	return { ...env, ...extra };
}

function sh(command: string, cwd: string, env: NodeJS.ProcessEnv): void {
	const run = spawnSync('sh', ['-c', command], { cwd, env, encoding: 'utf8', timeout: 240_000 });
	if (run.status !== 0) {
		throw new Error(`\`${command}\` failed (${run.status}):\n${run.stdout}\n${run.stderr}`);
	}
}

/** Never part of the build context (deploy/Dockerfile.dockerignore excludes them too). */
const NOT_CONTEXT = ['.git', 'node_modules', 'build', 'data', '.svelte-kit', 'test-results'];

/** The files of the build context: what git tracks or would track (.gitignore applies). */
function copyContext(into: string): void {
	const listed = spawnSync(
		'git',
		['ls-files', '-z', '--cached', '--others', '--exclude-standard'],
		{
			cwd: root,
			encoding: 'utf8'
		}
	);
	if (listed.status !== 0) {
		// Not a git checkout (an unpacked archive): the folder minus what is never context.
		cpSync(root, into, {
			recursive: true,
			filter: (src) => !NOT_CONTEXT.some((n) => src === join(root, n))
		});
		return;
	}
	for (const file of listed.stdout.split('\0').filter(Boolean)) {
		const from = join(root, file);
		if (!existsSync(from)) continue; // deleted in the working tree
		mkdirSync(dirname(join(into, file)), { recursive: true });
		cpSync(from, join(into, file));
	}
}

/** A path of the image (under WORKDIR) in the folder standing for `stageName`. */
function hostPath(stageName: string, path: string): string {
	const rel = path.startsWith(`${WORKDIR}/`) ? path.slice(WORKDIR.length + 1) : path;
	return join(dirs[stageName], rel === '.' || rel === './' ? '' : rel);
}

/** Runs a stage's WORKDIR, ENV, COPY and npm RUN instructions in its folder. */
function runStage(s: Stage, context: string): void {
	const dir = dirs[s.name];
	mkdirSync(dir, { recursive: true });
	let env = cleanEnv();
	for (const i of s.instructions) {
		if (i.op === 'WORKDIR') expect(i.args).toBe(WORKDIR);
		else if (i.op === 'ENV') {
			for (const pair of i.args.split(/\s+/)) {
				const eq = pair.indexOf('=');
				env = { ...env, [pair.slice(0, eq)]: pair.slice(eq + 1) };
			}
		} else if (i.op === 'COPY') {
			const parts = i.args.split(/\s+/);
			const from = parts[0].startsWith('--from=') ? parts.shift()!.slice(7) : undefined;
			const dest = hostPath(s.name, parts.pop()!);
			for (const src of parts) {
				if (from) cpSync(hostPath(from, src), dest, { recursive: true });
				else if (src === '.') copyContext(dir);
				else cpSync(join(context, src), join(dest, src), { recursive: true });
			}
		} else if (i.op === 'RUN' && npmRuns(s).includes(i.args)) {
			if (/^npm ci\b/.test(i.args) && !i.args.includes('--omit=dev')) {
				symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'), 'dir');
				sh('npm run prepare', dir, env);
			} else if (/^npm ci\b/.test(i.args)) sh(`${i.args} --prefer-offline`, dir, env);
			else sh(i.args, dir, env);
		}
	}
}

function freePort(): Promise<number> {
	return new Promise((resolve) => {
		const s = createServer();
		s.listen(0, '127.0.0.1', () => {
			const { port } = s.address() as AddressInfo;
			s.close(() => resolve(port));
		});
	});
}

interface Running {
	name: string;
	child: ChildProcess;
	base: string;
	output: string[];
	exited: Promise<number | null>;
}

/** Starts `command` and resolves once it prints `ready` (its whole output is kept). */
function start(
	name: string,
	command: string[],
	cwd: string,
	env: NodeJS.ProcessEnv,
	base: string,
	ready: RegExp
): Promise<Running> {
	const child = spawn(command[0], command.slice(1), {
		cwd,
		env,
		stdio: ['ignore', 'pipe', 'pipe']
	});
	const output: string[] = [];
	const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
	return new Promise((resolve, reject) => {
		const timer = setTimeout(
			() => reject(new Error(`${name}: not ready:\n${output.join('\n')}`)),
			150_000
		);
		let partial = '';
		const onData = (d: Buffer) => {
			const text = partial + d.toString();
			// Vite colours its banner when CI is set, even into a pipe: keep the text only.
			const lines = text.split('\n').map((l) => stripVTControlCharacters(l));
			partial = text.slice(text.lastIndexOf('\n') + 1);
			lines.pop();
			output.push(...lines);
			if (lines.some((l) => ready.test(l))) {
				clearTimeout(timer);
				resolve({ name, child, base, output, exited });
			}
		};
		child.stdout!.on('data', onData);
		child.stderr!.on('data', onData);
		void exited.then((code) => {
			clearTimeout(timer);
			reject(new Error(`${name} exited ${code} before ready:\n${output.join('\n')}`));
		});
	});
}

/** Pids whose parent is `pid` (Linux /proc). */
function childPids(pid: number): number[] {
	const out: number[] = [];
	for (const entry of readdirSync('/proc')) {
		if (!/^\d+$/.test(entry)) continue;
		try {
			const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
			// Fields after the parenthesised command: state, ppid, ...
			const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
			if (ppid === pid) out.push(Number(entry));
		} catch {
			// gone meanwhile
		}
	}
	return out;
}

function alive(pid: number): boolean {
	try {
		process.kill(pid, 0);
		return true;
	} catch {
		return false;
	}
}

/** GET with a chosen Host header (fetch cannot set one). */
function getWithHost(url: string, host: string): Promise<number> {
	return new Promise((resolve, reject) => {
		const req = request(url, { headers: { host } }, (res) => {
			res.resume();
			resolve(res.statusCode ?? 0);
		});
		req.on('error', reject);
		req.end();
	});
}

const entries: Running[] = [];
let stub: Server;

beforeAll(async () => {
	runStage(stage(dockerfile, 'build'), root);
	runStage(stage(dockerfile, 'runtime'), root);
	const cmd = execForm(stage(dockerfile, 'runtime').instructions.find((i) => i.op === 'CMD')!.args);
	const [nodePort, startPort] = [await freePort(), await freePort()];
	const runtimeEnv = Object.fromEntries(
		stage(dockerfile, 'runtime')
			.instructions.filter((i) => i.op === 'ENV')
			.flatMap((i) => i.args.split(/\s+/).map((p) => p.split('=') as [string, string]))
	);
	const [nodeBuild, npmStart] = await Promise.all([
		start(
			'node build',
			cmd[0] === 'node' ? [process.execPath, ...cmd.slice(1)] : cmd,
			dirs.runtime,
			cleanEnv({
				...runtimeEnv,
				// The test binds loopback (the image binds 0.0.0.0 and needs a password for it).
				HOST: '127.0.0.1',
				PORT: String(nodePort),
				GEXDECK_DATA_DIR: join(work, 'data-node-build')
			}),
			`http://127.0.0.1:${nodePort}`,
			/^Listening on /
		),
		start(
			'npm start',
			[process.execPath, 'scripts/start.js'],
			dirs.build,
			cleanEnv({ PORT: String(startPort), GEXDECK_DATA_DIR: join(work, 'data-npm-start') }),
			`http://127.0.0.1:${startPort}`,
			/^Listening on /
		)
	]);
	entries.push(nodeBuild, npmStart);
	stub = createServer((_req, res) => res.writeHead(404).end('{"error":"not found"}'));
	await new Promise<void>((r) => stub.listen(0, '127.0.0.1', r));
}, 300_000);

afterAll(async () => {
	for (const e of entries) if (e.child.exitCode === null) e.child.kill('SIGKILL');
	await new Promise<void>((r) => (stub ? stub.close(() => r()) : r()));
	rmSync(work, { recursive: true, force: true });
});

describe('the runtime stage', () => {
	it('holds production dependencies and build/ only', () => {
		expect(existsSync(join(dirs.runtime, 'build', 'index.js'))).toBe(true);
		expect(existsSync(join(dirs.runtime, 'build', 'service', 'main.js'))).toBe(true);
		expect(existsSync(join(dirs.runtime, 'node_modules', 'ws'))).toBe(true);
		for (const devOnly of ['tsx', 'vite', '@sveltejs/kit', 'typescript']) {
			expect(existsSync(join(dirs.runtime, 'node_modules', devOnly)), devOnly).toBe(false);
		}
		expect(existsSync(join(dirs.runtime, 'src'))).toBe(false);
	});
});

describe.each(['node build', 'npm start'])('%s', (name) => {
	const entry = () => entries.find((e) => e.name === name)!;

	it("runs the history generator's compiled child without tsx", () => {
		// What the service spawns (two at a time) to write a past ticker-day: one minute of a
		// small ticker's day here, written by the runtime stage's build alone.
		const dir = join(work, 'history-part');
		mkdirSync(dir, { recursive: true });
		const run = spawnSync(
			process.execPath,
			[
				join(dirs.runtime, 'build', 'service', 'tickerDayPart.js'),
				JSON.stringify({
					seed: 1,
					ticker: 'VIX',
					date: '2026-11-18',
					dir,
					endTick: 59,
					keys: ['gex_full', 'state_gex_full']
				})
			],
			{ cwd: dirs.runtime, encoding: 'utf8', timeout: 120_000 }
		);
		expect(run.status, run.stderr).toBe(0);
		const result = JSON.parse(run.stdout.trim().split('\n').at(-1)!) as {
			records: number;
			members: Record<string, { size: number }>;
		};
		expect(result.records).toBe(60);
		expect(Object.keys(result.members)).toEqual(['gex_full', 'state_gex_full']);
		expect(existsSync(join(dir, 'state_gex_full.json.gz'))).toBe(true);
	});

	it('serves a page', async () => {
		const res = await fetch(`${entry().base}/`);
		expect(res.status).toBe(200);
		expect(res.headers.get('content-type')).toMatch(/text\/html/);
		expect(await res.text()).toContain('data-theme=');
	});

	it('answers /api/whoami from the embedded service through the fast path', async () => {
		const res = await fetch(`${entry().base}/api/whoami`);
		expect(res.status).toBe(200);
		expect(((await res.json()) as { _id: string })._id).toMatch(/^demo-/);
		// SvelteKit's pipeline would have set the CSRF cookie (hooks.server.ts); the fast path
		// answers before it.
		expect(res.headers.getSetCookie()).toEqual([]);
		expect(res.headers.get('x-content-type-options')).toBe('nosniff');
	});

	it('answers /healthz and /readyz without a session, and nothing more', async () => {
		const health = await fetch(`${entry().base}/healthz`);
		expect(health.status).toBe(200);
		expect(await health.json()).toEqual({ status: 'ok' });
		// Answered before SvelteKit's pipeline (fastAnswers.ts), which would set the CSRF cookie.
		expect(health.headers.getSetCookie()).toEqual([]);
		expect(health.headers.get('x-content-type-options')).toBe('nosniff');
		const ready = await fetch(`${entry().base}/readyz`);
		expect(ready.status).toBe(200);
		expect(await ready.json()).toEqual({
			status: 'ready',
			checks: {
				upstream: 'ok',
				disk: 'ok',
				database: 'ok',
				relay: expect.any(String),
				shutdown: 'no'
			}
		});
		// Still behind the gate's Host allowlist.
		expect(await getWithHost(`${entry().base}/healthz`, 'evil.example')).toBe(421);
	});

	it('relays a /stream frame, then shuts down cleanly on SIGTERM', async () => {
		const e = entry();
		const { ws, frame } = await streamFrame(e.base);
		expect(frame.length).toBeGreaterThan(10);
		const services = childPids(e.child.pid!);
		expect(services.length).toBe(1);
		const closed = new Promise<number>((r) => ws.once('close', (code) => r(code)));
		const t0 = Date.now();
		e.child.kill('SIGTERM');
		expect(await closed).toBe(1012);
		const code = await e.exited;
		const ms = Date.now() - t0;
		expect(code, e.output.join('\n')).toBe(0);
		expect(ms).toBeLessThan(10_000);
		for (const pid of services) expect(alive(pid), `embedded service ${pid}`).toBe(false);
	}, 60_000);
});

describe('logs', () => {
	it('are one JSON object per line under GEXDECK_LOG=json (adapter-node’s own banner aside)', () => {
		const e = entries.find((x) => x.name === 'node build')!;
		const lines = e.output.filter((l) => l.trim() && !l.startsWith('Listening on '));
		expect(lines.length).toBeGreaterThan(0);
		for (const line of lines) {
			const parsed = JSON.parse(line) as { time: string; level: string; msg: string };
			expect(parsed).toMatchObject({ time: expect.any(String), level: expect.any(String) });
		}
		expect(lines.some((l) => (JSON.parse(l) as { msg: string }).msg === 'stopped')).toBe(true);
	});
});

describe('vite preview', () => {
	it('binds loopback and goes through the hooks', async () => {
		const port = await freePort();
		const vite = join(dirs.build, 'node_modules', 'vite', 'bin', 'vite.js');
		const preview = await start(
			'vite preview',
			[process.execPath, vite, 'preview', '--port', String(port), '--strictPort'],
			dirs.build,
			cleanEnv({
				GEXDECK_UPSTREAM: `http://127.0.0.1:${(stub.address() as AddressInfo).port}/v2`,
				GEXDECK_DATA_DIR: join(work, 'data-preview')
			}),
			`http://localhost:${port}`,
			/Local:/
		);
		try {
			await new Promise((r) => setTimeout(r, 300)); // the rest of the banner
			expect(preview.output.join('\n')).toContain('use --host to expose');
			// /healthz is answered before SvelteKit (fastAnswers.ts, mounted by the init hook):
			// the security headers, not the pipeline's CSRF cookie.
			const health = await fetch(`${preview.base}/healthz`);
			expect(health.status).toBe(200);
			expect(health.headers.get('x-frame-options')).toBe('DENY');
			expect(health.headers.getSetCookie()).toEqual([]);
			const res = await fetch(`${preview.base}/readyz`);
			// The hooks' security headers and CSRF cookie: the request went through them.
			expect(res.headers.get('x-frame-options')).toBe('DENY');
			expect(res.headers.getSetCookie().join(';')).toContain('gexdeck_csrf=');
			// A rebinding Host is refused: by Vite's own allowedHosts check (403) before the gate's
			// (421) would see it.
			expect([403, 421]).toContain(
				await getWithHost(`${preview.base}/healthz`, `evil.example:${port}`)
			);
			// Vite's own SIGTERM handler ends preview once its server closed (exit code 128 + 15).
			preview.child.kill('SIGTERM');
			expect([0, 143]).toContain(await preview.exited);
		} finally {
			if (preview.child.exitCode === null) preview.child.kill('SIGKILL');
		}
	}, 60_000);
});
