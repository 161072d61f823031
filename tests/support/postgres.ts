/**
 * A real PostgreSQL for the tests: Debian's `postgresql` package (installed by
 * scripts/ensure-tools.js and .ci/run), one throwaway cluster in a temp folder on a free
 * loopback port. PostgreSQL refuses to run as root, so under root the cluster belongs to the
 * `postgres` user the package creates and its programs run through `runuser`.
 */
import { execFileSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { userInfo } from 'node:os';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { freePort } from './processes';

export interface RunningPostgres {
	/** postgres://gexdeck@127.0.0.1:PORT/postgres */
	url: string;
	/** A URL to a new, empty database of this cluster. */
	freshDatabase(): Promise<string>;
	stop(): void;
}

/** The folder of Debian's PostgreSQL programs (initdb, pg_ctl), newest version first. */
export function postgresBin(): string {
	const base = '/usr/lib/postgresql';
	const versions = existsSync(base)
		? readdirSync(base)
				.filter((v) => existsSync(join(base, v, 'bin', 'initdb')))
				.sort((a, b) => Number(b) - Number(a))
		: [];
	if (!versions.length) {
		throw new Error(
			'PostgreSQL is not installed: run `node scripts/ensure-tools.js` (apt-get install postgresql)'
		);
	}
	return join(base, versions[0], 'bin');
}

let databases = 0;

export async function startPostgres(): Promise<RunningPostgres> {
	const bin = postgresBin();
	const dir = mkdtempSync(join(tmpdir(), 'gexdeck-pg-'));
	const asRoot = userInfo().uid === 0;
	if (asRoot) {
		const ids = execFileSync('id', ['-u', 'postgres']).toString().trim();
		const gid = execFileSync('id', ['-g', 'postgres']).toString().trim();
		chownSync(dir, Number(ids), Number(gid));
	}
	const run = (program: string, args: string[]) =>
		asRoot
			? execFileSync('runuser', ['-u', 'postgres', '--', join(bin, program), ...args], {
					stdio: 'pipe'
				})
			: execFileSync(join(bin, program), args, { stdio: 'pipe' });
	const data = join(dir, 'data');
	run('initdb', ['-D', data, '-A', 'trust', '-U', 'gexdeck', '--no-sync', '-E', 'UTF8']);
	const port = await freePort();
	const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off`;
	run('pg_ctl', ['-D', data, '-o', options, '-l', join(dir, 'log'), '-w', 'start']);
	const url = `postgres://gexdeck@127.0.0.1:${port}/postgres`;
	return {
		url,
		async freshDatabase() {
			const name = `t${process.pid}_${++databases}`;
			const client = new pg.Client({ connectionString: url });
			await client.connect();
			try {
				await client.query(`CREATE DATABASE ${name}`);
			} finally {
				await client.end();
			}
			return `postgres://gexdeck@127.0.0.1:${port}/${name}`;
		},
		stop() {
			try {
				run('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']);
			} finally {
				rmSync(dir, { recursive: true, force: true });
			}
		}
	};
}
