#!/usr/bin/env node
/**
 * `npm run test:e2e`: Playwright end-to-end tests in Debian's Chromium against the built app and
 * the embedded service.
 *
 * 1. Chromium: /usr/bin/chromium must exist. When it does not and we are root with apt-get,
 *    it is installed (printing each step); otherwise this stops with instructions.
 * 2. Bring build/ up to date: `scripts/start.js --build-only`, the staleness check and production
 *    build of `npm start` and of vitest's global setup, so the build vitest just made of the same
 *    sources is used as it is (npm test) and a changed source still rebuilds.
 * 3. Run Playwright; playwright.config.ts starts the built app on a free port with a fresh
 *    data folder, so the embedded service and the dashboard's state are this run's alone.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const CHROMIUM = '/usr/bin/chromium';

/**
 * @param {string} cmd
 * @param {string[]} args
 * @param {import('node:child_process').SpawnSyncOptions} [options]
 */
function run(cmd, args, options = {}) {
	const result = spawnSync(cmd, args, { stdio: 'inherit', cwd: root, ...options });
	return result.status ?? 1;
}

function ensureChromium() {
	if (existsSync(CHROMIUM)) return;
	const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
	const hasApt = existsSync('/usr/bin/apt-get');
	if (!isRoot || !hasApt) {
		console.error(
			`e2e: ${CHROMIUM} is missing. Install Debian's Chromium first:\n` +
				'  sudo apt-get update && sudo apt-get install -y --no-install-recommends chromium\n' +
				'(Playwright is configured to use it; it never downloads its own browsers.)'
		);
		process.exit(1);
	}
	console.log('e2e: /usr/bin/chromium missing; running: apt-get update');
	const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
	if (run('apt-get', ['update', '-qq'], { env }) !== 0) process.exit(1);
	console.log('e2e: running: apt-get install -y --no-install-recommends chromium');
	if (
		run('apt-get', ['install', '-y', '-qq', '--no-install-recommends', 'chromium'], { env }) !== 0
	) {
		process.exit(1);
	}
}

/** @returns {Promise<number>} */
function freePort() {
	return new Promise((resolve, reject) => {
		const srv = createServer();
		srv.once('error', reject);
		srv.listen(0, '127.0.0.1', () => {
			const { port } = /** @type {import('node:net').AddressInfo} */ (srv.address());
			srv.close(() => resolve(port));
		});
	});
}

ensureChromium();

console.log('e2e: bringing build/ up to date');
if (run(process.execPath, [join(root, 'scripts', 'start.js'), '--build-only']) !== 0) {
	process.exit(1);
}

/** @type {NodeJS.ProcessEnv} */
const env = {
	...process.env,
	GEXDECK_E2E_PORT: String(await freePort()),
	GEXDECK_E2E_DATA_DIR: mkdtempSync(join(tmpdir(), 'gexdeck-e2e-'))
};
// The tests run against the embedded service whatever the caller's shell says.
delete env.GEXDECK_UPSTREAM;
delete env.GEXDECK_API_KEY;
delete env.GEXDECK_RESEARCH_KEY;
delete env.GEXDECK_PASSWORD;

const cli = join(root, 'node_modules', '@playwright', 'test', 'cli.js');
const status = run(process.execPath, [cli, 'test', ...process.argv.slice(2)], { env });
// The State views must work with both payload shapes the service can send: the full run also
// runs the State spec against a service started with `--payloads documented` (the embedded
// service reads GEXDECK_SERVICE_PAYLOADS), on its own port and data folder.
if (status !== 0 || process.argv.length > 2) process.exit(status);
console.log('e2e: the State spec again, against the documented payload profile');
process.exit(
	run(process.execPath, [cli, 'test', 'tests/e2e/state.spec.ts'], {
		env: {
			...env,
			GEXDECK_SERVICE_PAYLOADS: 'documented',
			GEXDECK_E2E_PORT: String(await freePort()),
			GEXDECK_E2E_DATA_DIR: mkdtempSync(join(tmpdir(), 'gexdeck-e2e-'))
		}
	})
);
