#!/usr/bin/env node
/**
 * `npm start`: run gexdeck from a fresh clone right after `npm ci`.
 *
 * Builds the app when build/ is missing or older than the sources (`vite build`, which also
 * compiles the embedded service into build/service/), then runs adapter-node's own entry,
 * build/index.js, exactly as `node build` does: same server, /api fast path, /stream, health
 * probes and graceful shutdown (all attached by the app itself, see src/lib/server/production.ts).
 * HOST defaults to 127.0.0.1 and PORT to 3000. Without GEXDECK_UPSTREAM the dashboard starts the
 * embedded service itself (and stops it on exit).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { withBuildLock } from './build-lock.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
process.chdir(root);

/** Newest modification time under `path` (files and folders, recursively). */
/** @param {string} path @returns {number} */
function newestMtime(path) {
	if (!existsSync(path)) return 0;
	const st = statSync(path);
	if (!st.isDirectory()) return st.mtimeMs;
	let newest = st.mtimeMs;
	for (const entry of readdirSync(path)) newest = Math.max(newest, newestMtime(join(path, entry)));
	return newest;
}

/** The build is stale when any input of the client/server bundles is newer than it. */
function buildIsStale() {
	const marker = join(root, 'build', 'index.js');
	if (!existsSync(marker)) return 'build/ is missing';
	if (!existsSync(join(root, 'build', 'service', 'main.js'))) return 'build/service/ is missing';
	const built = statSync(marker).mtimeMs;
	const inputs = [
		'src',
		'static',
		'proto',
		'svelte.config.js',
		'vite.config.ts',
		'scripts/build-service.js',
		'package.json',
		'package-lock.json'
	];
	for (const input of inputs) {
		if (newestMtime(join(root, input)) > built) return `${input} changed since the last build`;
	}
	return undefined;
}

/** `--build-only`: bring build/ up to date and exit (the test suite's one build before it runs). */
const buildOnly = process.argv.includes('--build-only');

const host = process.env.HOST?.trim() || '127.0.0.1';
const port = process.env.PORT?.trim() || '3000';
// adapter-node would bind 0.0.0.0 by default; gexdeck binds loopback unless told otherwise.
// Whether a non-loopback HOST may be bound is the request gate's decision
// (src/lib/server/requestGate.ts), made in the app's init hook when the handler is imported.
process.env.HOST = host;
process.env.PORT = port;

/**
 * Whether HOST:PORT can be listened on now, else the error's code (EADDRINUSE, EACCES). Asked
 * before anything starts: a taken port used to end in a stack trace after the build and after
 * the embedded service had started.
 * @returns {Promise<string | undefined>}
 */
function portProblem() {
	return new Promise((resolve) => {
		const probe = createServer();
		probe.once('error', (/** @type {NodeJS.ErrnoException} */ err) => resolve(err.code ?? 'error'));
		probe.listen(Number(port), host, () => probe.close(() => resolve(undefined)));
	});
}

if (!buildOnly && Number(port) !== 0) {
	const problem = await portProblem();
	if (problem) {
		const why =
			problem === 'EADDRINUSE'
				? 'is already in use (another gexdeck, or another program)'
				: `cannot be used (${problem})`;
		console.error(
			`gexdeck: port ${port} on ${host} ${why}.\n` +
				`Choose another port with PORT, e.g.: PORT=${Number(port) === 3000 ? 3001 : 3000} npm start`
		);
		process.exit(1);
	}
}

// Checked again under the lock: another process's build may have just made it (build-lock.js).
const buildStatus = withBuildLock(root, () => {
	const stale = buildIsStale();
	return stale ? build(stale) : 0;
});
if (buildStatus !== 0) process.exit(buildStatus);

/**
 * Builds build/; returns 0, or the exit status to end with.
 * @param {string} stale why build/ is out of date
 * @returns {number}
 */
function build(stale) {
	console.log(`gexdeck: building (${stale})…`);
	const vite = join(root, 'node_modules', 'vite', 'bin', 'vite.js');
	if (!existsSync(vite)) {
		// A production install (npm ci --omit=dev) runs a build made elsewhere.
		console.error(
			'gexdeck: cannot build without the dev dependencies: run `npm ci && npm run build`'
		);
		return 1;
	}
	const result = spawnSync(process.execPath, [vite, 'build', '--logLevel', 'warn'], {
		stdio: 'inherit',
		// A production build whatever the caller's NODE_ENV: under NODE_ENV=test (vitest) or
		// development, Vite resolves esm-env's development condition and SvelteKit's `dev` is
		// true in the build, which leaves out the production server (/stream, the /api fast
		// path, graceful shutdown).
		env: { ...process.env, NODE_ENV: 'production' }
	});
	if (result.status !== 0) {
		console.error('gexdeck: build failed');
		return result.status ?? 1;
	}
	return 0;
}

if (buildOnly) process.exit(0);

console.log(
	process.env.GEXDECK_UPSTREAM
		? `gexdeck: upstream ${process.env.GEXDECK_UPSTREAM}`
		: 'gexdeck: starting the embedded service (set GEXDECK_UPSTREAM to use another service)'
);
try {
	// Importing it runs the app's init hook (which starts the embedded service), then listens.
	await import(pathToFileURL(join(root, 'build', 'index.js')).href);
} catch (err) {
	// The init hook refuses an unsafe configuration (e.g. a public HOST without a password).
	console.error(/** @type {Error} */ (err).message);
	process.exit(1);
}
