/**
 * Two replicas starting at once on one empty database (issue 30): both migrate and both find no
 * user, so both would turn GEXDECK_PASSWORD into the admin user. The start takes the first admin
 * under a lock (teams.ts), so exactly one does, the other sees it and both start. Run with two
 * real processes (first-admin.child.ts) released together, a few times per engine.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import pg from 'pg';
import { openDatabase, type DatabaseTarget } from '../../src/lib/server/db/index';
import { useDatabases } from '../support/databases';
import { root } from '../support/processes';

const engines = useDatabases();
const ROUNDS = 3;

interface Started {
	proc: ChildProcess;
	out: string[];
	err: string[];
	exit: Promise<number | null>;
}

async function spawnStart(args: string[]): Promise<Started> {
	const proc = spawn(
		process.execPath,
		['--import', 'tsx', join('tests', 'integration', 'first-admin.child.ts'), ...args],
		{ cwd: root, stdio: ['pipe', 'pipe', 'pipe'] }
	);
	const out: string[] = [];
	const err: string[] = [];
	proc.stderr!.on('data', (d: Buffer) => err.push(d.toString()));
	const exit = new Promise<number | null>((resolve) => proc.once('exit', (code) => resolve(code)));
	const rl = createInterface({ input: proc.stdout! });
	await new Promise<void>((resolve, reject) => {
		rl.on('line', (line) => {
			out.push(line);
			if (line === 'ready') resolve();
		});
		void exit.then((code) => reject(new Error(`exited ${code} before ready: ${err.join('')}`)));
	});
	return { proc, out, err, exit };
}

/** Start two processes on `t` together; both must start, and exactly one admin exist. */
async function startPair(
	t: DatabaseTarget,
	what: string,
	whileWaiting?: () => Promise<void>
): Promise<void> {
	const args = [t.dataDir, 'hunter2-long-enough', ...(t.url ? [t.url] : [])];
	const pair = await Promise.all([spawnStart(args), spawnStart(args)]);
	for (const p of pair) p.proc.stdin!.end('go\n');
	await whileWaiting?.();
	const codes = await Promise.all(pair.map((p) => p.exit));
	expect(codes, `${what}: ${pair.map((p) => p.err.join('')).join('\n')}`).toEqual([0, 0]);
	for (const p of pair) expect(p.out).toContain(JSON.stringify({ teams: true }));
	const db = await openDatabase(t);
	try {
		expect(await db.all(`SELECT name, role FROM users`)).toEqual([
			{ name: 'admin', role: 'admin' }
		]);
		const added = await db.all(`SELECT detail FROM audit_log WHERE action = ?`, ['user added']);
		expect(added).toHaveLength(1);
	} finally {
		await db.close();
	}
}

describe.each(engines)('the first admin on $engine', ({ engine, target }) => {
	it(`is made once when two replicas start together on an empty database (${ROUNDS} rounds)`, async () => {
		for (let round = 0; round < ROUNDS; round++) {
			await startPair(await target(), `round ${round} (${engine})`);
		}
	}, 180_000);
});

describe.each(engines.filter((e) => e.engine === 'postgres'))('on $engine', ({ target }) => {
	/**
	 * The race made certain: the database is migrated, and the test holds the audit log's table
	 * lock until both processes wait. Without the start's lock both have read "no user" and
	 * inserted the admin by then (one waits on the other's row), and one fails at the release.
	 */
	it(`both find no user at the same moment: one makes the admin (${ROUNDS} rounds)`, async () => {
		for (let round = 0; round < ROUNDS; round++) {
			const t = await target();
			await (await openDatabase(t)).close();
			const holder = new pg.Client({ connectionString: t.url });
			await holder.connect();
			try {
				await holder.query('BEGIN');
				await holder.query('LOCK TABLE audit_log IN ACCESS EXCLUSIVE MODE');
				await startPair(t, `locked round ${round}`, async () => {
					// Watched from another connection: a transaction sees pg_stat_activity as of its
					// first look.
					const watcher = new pg.Client({ connectionString: t.url });
					await watcher.connect();
					try {
						const waiting = async () =>
							Number(
								(
									await watcher.query<{ n: string }>(
										`SELECT count(*) AS n FROM pg_stat_activity
										 WHERE datname = current_database() AND wait_event_type = 'Lock'`
									)
								).rows[0].n
							);
						const deadline = Date.now() + 60_000;
						while ((await waiting()) < 2) {
							if (Date.now() > deadline) throw new Error('the two starts never both waited');
							await new Promise((r) => setTimeout(r, 25));
						}
					} finally {
						await watcher.end();
					}
					await holder.query('COMMIT');
				});
			} finally {
				await holder.end();
			}
		}
	}, 180_000);
});
