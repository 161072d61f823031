#!/usr/bin/env node
/**
 * `npm start`: run gexdeck from a fresh clone right after `npm ci`.
 *
 * Builds the app when build/ is missing or older than the sources, then runs the adapter-node
 * server in this process, honouring PORT and HOST (default 127.0.0.1:3000). Without
 * GEXDECK_UPSTREAM the dashboard starts the embedded service itself (and stops it on exit).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

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
	const built = statSync(marker).mtimeMs;
	const inputs = [
		'src',
		'static',
		'proto',
		'svelte.config.js',
		'vite.config.ts',
		'package.json',
		'package-lock.json'
	];
	for (const input of inputs) {
		if (newestMtime(join(root, input)) > built) return `${input} changed since the last build`;
	}
	return undefined;
}

/** @param {string} host */
function isLoopback(host) {
	const h = host.replace(/^\[|\]$/g, '').toLowerCase();
	return h === 'localhost' || h === '::1' || /^127(\.\d{1,3}){3}$/.test(h);
}

const host = process.env.HOST?.trim() || '127.0.0.1';
const port = process.env.PORT?.trim() || '3000';
if (!isLoopback(host) && !process.env.GEXDECK_PASSWORD?.trim()) {
	console.error(
		`gexdeck: HOST=${host} would expose the dashboard (and your API key's quota) to the network.\n` +
			'Set GEXDECK_PASSWORD to require a login, or leave HOST unset to stay on 127.0.0.1.'
	);
	process.exit(1);
}
// adapter-node would bind 0.0.0.0 by default; gexdeck binds loopback unless told otherwise.
process.env.HOST = host;
process.env.PORT = port;

const stale = buildIsStale();
if (stale) {
	console.log(`gexdeck: building (${stale})…`);
	const vite = join(root, 'node_modules', 'vite', 'bin', 'vite.js');
	const result = spawnSync(process.execPath, [vite, 'build', '--logLevel', 'warn'], {
		stdio: 'inherit'
	});
	if (result.status !== 0) {
		console.error('gexdeck: build failed');
		process.exit(result.status ?? 1);
	}
}

console.log(
	process.env.GEXDECK_UPSTREAM
		? `gexdeck: upstream ${process.env.GEXDECK_UPSTREAM}`
		: 'gexdeck: starting the embedded service (set GEXDECK_UPSTREAM to use another service)'
);
await import(pathToFileURL(join(root, 'build', 'index.js')).href);
const shownHost = host.includes(':') ? `[${host}]` : host;
console.log(`gexdeck: open http://${shownHost}:${port}/`);
