/**
 * A real `redis-server` (Debian's redis-server package; scripts/ensure-tools.js and .ci/run
 * install it) for the cluster tests and the cluster benchmark: started on a free loopback port
 * in a fresh temp folder, no persistence, no protected-mode surprises. `restart()` kills it and
 * starts it again on the same port (what a replica sees when Redis goes away and comes back).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, stopChild } from './processes';

export interface RunningRedis {
	port: number;
	/** `redis://127.0.0.1:<port>` (GEXDECK_REDIS_URL). */
	url: string;
	/** Kill it (SIGKILL) and start it again on the same port, empty. */
	restart(): Promise<void>;
	/** Stop it (its data folder is removed). */
	stop(): Promise<void>;
	/** Kill it without starting it again. */
	kill(): Promise<void>;
}

/** The redis-server binary, or an error that says how to install it. */
export function redisServerBinary(): string {
	const found = spawnSync('sh', ['-c', 'command -v redis-server'], { encoding: 'utf8' });
	const path = found.stdout.trim();
	if (found.status !== 0 || !path) {
		throw new Error('redis-server is missing: apt-get install -y redis-server (or npm test)');
	}
	return path;
}

/** Resolves once something accepts TCP connections on 127.0.0.1:port (PING answered). */
async function waitForPing(port: number, timeoutMs = 10_000): Promise<void> {
	const deadline = Date.now() + timeoutMs;
	for (;;) {
		const ok = await new Promise<boolean>((resolve) => {
			const s = createConnection({ host: '127.0.0.1', port }, () => s.write('PING\r\n'));
			s.once('data', (d) => {
				s.destroy();
				resolve(d.toString().startsWith('+PONG'));
			});
			s.once('error', () => resolve(false));
		});
		if (ok) return;
		if (Date.now() > deadline) throw new Error(`redis-server on ${port} did not answer PING`);
		await new Promise((r) => setTimeout(r, 50));
	}
}

export async function startRedis(): Promise<RunningRedis> {
	const binary = redisServerBinary();
	const dir = mkdtempSync(join(tmpdir(), 'gexdeck-redis-'));
	const port = await freePort();
	let child: ChildProcess | undefined;
	const launch = async () => {
		child = spawn(
			binary,
			[
				'--port',
				String(port),
				'--bind',
				'127.0.0.1',
				'--dir',
				dir,
				'--save',
				'',
				'--appendonly',
				'no',
				'--protected-mode',
				'no'
			],
			{ stdio: 'ignore' }
		);
		await waitForPing(port);
	};
	const kill = async () => {
		if (!child || child.exitCode !== null || child.signalCode !== null) return;
		const exited = new Promise((r) => child!.once('exit', r));
		child.kill('SIGKILL');
		await exited;
	};
	await launch();
	return {
		port,
		url: `redis://127.0.0.1:${port}`,
		async restart() {
			await kill();
			await launch();
		},
		kill,
		async stop() {
			if (child) await stopChild(child);
			rmSync(dir, { recursive: true, force: true });
		}
	};
}
