#!/usr/bin/env node
/**
 * First step of `npm test`: the system tools the suite runs that npm cannot install. The
 * integration tests compile the platform integrations' cores with Mono's `mcs` (NinjaTrader's
 * C#, run under `mono` with the de-DE culture data) and `g++` (Sierra Chart's C++); the cluster
 * tests start a real `redis-server` (tests/support/redis.ts). When one is
 * missing and we are root with apt-get (a fresh Debian machine, CI), the Debian packages are
 * installed, printing each step; otherwise this stops with the command to run. Chromium for the
 * end-to-end tests is installed the same way by scripts/e2e.js. The database tests start a real
 * PostgreSQL from Debian's `postgresql` package (tests/support/postgres.ts).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';

const PACKAGES = [
	'mono-mcs',
	'libmono-system-net-http4.0-cil',
	'libmono-i18n4.0-all',
	'g++',
	'redis-server',
	'postgresql'
];

/** True when Debian's PostgreSQL programs (initdb, pg_ctl) are installed. */
function hasPostgres() {
	const base = '/usr/lib/postgresql';
	if (!existsSync(base)) return false;
	return readdirSync(base).some((v) => existsSync(`${base}/${v}/bin/initdb`));
}

/** @param {string} name */
function onPath(name) {
	return spawnSync('sh', ['-c', `command -v ${name}`], { stdio: 'ignore' }).status === 0;
}

const missing = [
	!onPath('mcs') && 'mcs',
	!onPath('mono') && 'mono',
	!onPath('g++') && 'g++',
	!onPath('redis-server') && 'redis-server',
	!existsSync('/usr/lib/mono/4.5/System.Net.Http.dll') && 'System.Net.Http.dll',
	!existsSync('/usr/lib/mono/4.5/I18N.West.dll') && 'I18N.West.dll (de-DE culture data)',
	!hasPostgres() && 'PostgreSQL (initdb, pg_ctl)'
].filter(Boolean);

if (missing.length > 0) {
	const install = `apt-get install -y --no-install-recommends ${PACKAGES.join(' ')}`;
	const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
	if (!isRoot || !existsSync('/usr/bin/apt-get')) {
		console.error(
			`test: missing ${missing.join(', ')} (the integrations' C# and C++ cores are compiled ` +
				`in the tests; the cluster tests start redis-server, the database tests a PostgreSQL). Install them first:\n  sudo apt-get update && sudo ${install}`
		);
		process.exit(1);
	}
	const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
	for (const args of [
		['update', '-qq'],
		['install', '-y', '-qq', '--no-install-recommends', ...PACKAGES]
	]) {
		console.log(`test: missing ${missing.join(', ')}; running: apt-get ${args.join(' ')}`);
		if (spawnSync('apt-get', args, { stdio: 'inherit', env }).status !== 0) process.exit(1);
	}
}
