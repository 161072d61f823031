/**
 * One build of build/ at a time in a checkout (scripts/build-lock.js): builds that contend take
 * turns, a lock whose process is gone is taken over, and `npm start`'s build step waits for a
 * build another process holds instead of writing build/ beside it. Real processes throughout.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));
const lockModule = new URL('../../scripts/build-lock.js', import.meta.url).href;

const dirs: string[] = [];
afterEach(() => {
	for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function tempRoot(): string {
	const dir = mkdtempSync(join(tmpdir(), 'gexdeck-build-lock-'));
	dirs.push(dir);
	return dir;
}

interface Run {
	code: number | null;
	output: string;
}

/** A process that takes the lock of `dir` and "builds": writes start, holds 300 ms, writes end. */
function contender(dir: string, id: string, onOutput?: (text: string) => void): Promise<Run> {
	const code = `
		import { appendFileSync } from 'node:fs';
		import { withBuildLock } from ${JSON.stringify(lockModule)};
		withBuildLock(${JSON.stringify(dir)}, () => {
			appendFileSync(${JSON.stringify(join(dir, 'log'))}, 'start ${id}\\n');
			Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 300);
			appendFileSync(${JSON.stringify(join(dir, 'log'))}, 'end ${id}\\n');
		}, { pollMs: 20 });`;
	return new Promise((resolve) => {
		const child = spawn(process.execPath, ['--input-type=module', '-e', code]);
		let output = '';
		const take = (b: Buffer) => {
			output += b.toString();
			onOutput?.(output);
		};
		child.stdout.on('data', take);
		child.stderr.on('data', take);
		child.on('close', (c) => resolve({ code: c, output }));
	});
}

/** The log's builds as [id, id] pairs of start and end, failing on an interleaving. */
function turns(dir: string): string[] {
	const lines = readFileSync(join(dir, 'log'), 'utf8').trim().split('\n');
	const ids: string[] = [];
	for (let i = 0; i < lines.length; i += 2) {
		const [start, end] = [lines[i], lines[i + 1]];
		expect(start, lines.join(' | ')).toMatch(/^start /);
		expect(end, lines.join(' | ')).toBe(start.replace('start', 'end'));
		ids.push(start.slice('start '.length));
	}
	return ids;
}

/** A pid no process has any more. */
function deadPid(): number {
	const gone = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']);
	return Number(gone.stdout.toString());
}

describe('the build lock', () => {
	it('lets contending builds take turns, each whole, and leaves no lock behind', async () => {
		const dir = tempRoot();
		const runs = await Promise.all(['a', 'b', 'c', 'd'].map((id) => contender(dir, id)));
		for (const r of runs) expect(r.code, r.output).toBe(0);
		expect(turns(dir).sort()).toEqual(['a', 'b', 'c', 'd']);
		expect(existsSync(join(dir, '.build.lock'))).toBe(false);
	}, 60_000);

	it('takes over the lock of a process that is gone, and says so', async () => {
		const dir = tempRoot();
		const pid = deadPid();
		mkdirSync(join(dir, '.build.lock'));
		writeFileSync(join(dir, '.build.lock', 'pid'), String(pid));
		const run = await contender(dir, 'a');
		expect(run.code, run.output).toBe(0);
		expect(run.output).toContain(`taking over the build lock of process ${pid}, which is gone`);
		expect(turns(dir)).toEqual(['a']);
	}, 60_000);

	it('waits while a live process holds it, saying whose, and builds once it is free', async () => {
		const dir = tempRoot();
		mkdirSync(join(dir, '.build.lock'));
		writeFileSync(join(dir, '.build.lock', 'pid'), String(process.pid));
		let waiting!: () => void;
		const told = new Promise<void>((r) => (waiting = r));
		const run = contender(dir, 'a', (out) => {
			if (out.includes(`waiting for the build of process ${process.pid}`)) waiting();
		});
		await told;
		expect(existsSync(join(dir, 'log'))).toBe(false);
		rmSync(join(dir, '.build.lock'), { recursive: true });
		const done = await run;
		expect(done.code, done.output).toBe(0);
		expect(turns(dir)).toEqual(['a']);
	}, 60_000);
});

describe("npm start's build step", () => {
	it('waits for a build another process holds, then finds build/ up to date', async () => {
		// The suite's global setup built this checkout; this process holds its lock a while.
		const lock = join(root, '.build.lock');
		mkdirSync(lock);
		writeFileSync(join(lock, 'pid'), String(process.pid));
		try {
			const run = await new Promise<Run>((resolve, reject) => {
				const child = spawn(process.execPath, ['scripts/start.js', '--build-only'], { cwd: root });
				let output = '';
				child.stdout.on('data', (b: Buffer) => {
					output += b.toString();
					if (output.includes(`waiting for the build of process ${process.pid}`))
						rmSync(lock, { recursive: true, force: true });
				});
				child.stderr.on('data', (b: Buffer) => (output += b.toString()));
				child.on('error', reject);
				child.on('close', (code) => resolve({ code, output }));
			});
			expect(run.code, run.output).toBe(0);
			expect(run.output).toContain(`waiting for the build of process ${process.pid}`);
			expect(run.output).not.toContain('building');
		} finally {
			rmSync(lock, { recursive: true, force: true });
		}
	}, 120_000);
});
