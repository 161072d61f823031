/**
 * The cluster benchmark's lease failover (cluster.bench.ts): three processes compete for the
 * upstream slot's lease (src/lib/server/cluster/slotLease.ts, default TTL and renewal) on one
 * real redis-server; the holder is killed with SIGKILL, the time until another process holds
 * the lease is measured, a fresh process replaces the dead one, ten times over.
 *
 * This is the lease hand-over only: the relay does not use the lease yet, so a negotiation and
 * the first frame after it are not in these numbers.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { connectRedis } from '../src/lib/server/cluster/redis';
import { SlotLease } from '../src/lib/server/cluster/slotLease';
import { setLogSink } from '../src/lib/server/log';

interface Acquired {
	pid: number;
	at: number;
}

/** Child: compete for the lease and report when this process holds it. */
function compete(redisUrl: string): void {
	setLogSink({ out: () => undefined, err: () => undefined });
	const lease = new SlotLease(connectRedis(redisUrl), `p${process.pid}`, {
		acquired: () => process.send?.({ pid: process.pid, at: Date.now() } satisfies Acquired),
		lost: () => undefined
	});
	lease.start();
	setInterval(() => undefined, 60_000);
}

export async function leaseFailover(redisUrl: string, kills = 10) {
	const children = new Set<ChildProcess>();
	const acquired: Acquired[] = [];
	const waiters: ((a: Acquired) => void)[] = [];
	const spawnOne = () => {
		const child = fork(fileURLToPath(import.meta.url), ['lease', redisUrl], {
			execArgv: ['--import', 'tsx'],
			stdio: ['ignore', 'inherit', 'inherit', 'ipc']
		});
		child.on('message', (m) => {
			acquired.push(m as Acquired);
			waiters.shift()?.(m as Acquired);
		});
		child.once('exit', () => children.delete(child));
		children.add(child);
	};
	const next = () => new Promise<Acquired>((resolve) => waiters.push(resolve));
	try {
		let holder = next();
		for (let i = 0; i < 3; i++) spawnOne();
		const times: number[] = [];
		for (let k = 0; k < kills; k++) {
			const held = await holder;
			// Let a few renewals pass, as a holder would in service.
			await new Promise((r) => setTimeout(r, 1_500));
			holder = next();
			const victim = [...children].find((c) => c.pid === held.pid)!;
			const killedAt = Date.now();
			victim.kill('SIGKILL');
			spawnOne();
			times.push((await holder).at - killedAt);
		}
		await holder;
		times.sort((a, b) => a - b);
		return { median: times[Math.floor(times.length / 2)], max: times[times.length - 1], times };
	} finally {
		for (const c of children) c.kill('SIGKILL');
	}
}

if (process.argv[2] === 'lease') compete(process.argv[3]);
