#!/usr/bin/env node
/**
 * `npm start`: run gexdeck from a fresh clone right after `npm ci`.
 *
 * Builds the app when build/ is missing or older than the sources, then serves the adapter-node
 * handler from this process (with the proxy's fast path for /api), honouring PORT and HOST
 * (default 127.0.0.1:3000). Without GEXDECK_UPSTREAM the dashboard starts the embedded service itself (and stops it on exit).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
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

const host = process.env.HOST?.trim() || '127.0.0.1';
const port = process.env.PORT?.trim() || '3000';
// adapter-node would bind 0.0.0.0 by default; gexdeck binds loopback unless told otherwise.
// Whether a non-loopback HOST may be bound is the request gate's decision
// (src/lib/server/requestGate.ts), made in the app's init hook when the handler is imported.
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
// The adapter's request handler; importing it runs the app's init hook (which starts the
// embedded service), so the server listens only once the upstream is ready.
/** @type {{ handler: (req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse) => void }} */
let app;
try {
	app = await import(pathToFileURL(join(root, 'build', 'handler.js')).href);
} catch (err) {
	// The init hook refuses an unsafe configuration (e.g. a public HOST without a password).
	console.error(/** @type {Error} */ (err).message);
	process.exit(1);
}
const { handler } = app;

/**
 * GET /api/* goes to the proxy's node:http fast path when the app offers one (see
 * src/lib/server/fastApi.ts); everything else to SvelteKit.
 * @type {((req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse) => boolean) | undefined}
 */
const fastApi = /** @type {any} */ (globalThis)[Symbol.for('gexdeck.fastApi')];
const server = createServer((req, res) => {
	// One request's failure is a 500 and a log line, never the end of the process.
	try {
		if (fastApi && fastApi(req, res)) return;
		handler(req, res);
	} catch (err) {
		console.error('gexdeck: request failed:', err);
		if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
		res.end('{"error":"Internal error; see the dashboard log."}');
	}
});
server.keepAliveTimeout = 65_000;
// Parts of the app that need the raw server (WebSocket upgrades) registered themselves through
// src/lib/server/httpServer.ts while the app initialised (the request gate's server guard too:
// error listeners on every upgrade socket, the bound address checked once listening).
const attachers = /** @type {any} */ (globalThis)[Symbol.for('gexdeck.httpServerAttachers')] ?? [];
for (const attach of attachers) attach(server);

let stopping = false;
/** @param {string} signal */
function shutdown(signal) {
	if (stopping) return;
	stopping = true;
	console.log(`gexdeck: ${signal}, shutting down`);
	server.close(() => {
		// Lets the app stop what it started (the embedded service child).
		/** @type {any} */ (process).emit('sveltekit:shutdown', signal);
		process.exit(0);
	});
	server.closeIdleConnections();
	setTimeout(() => process.exit(0), 5_000).unref();
}
process.on('SIGINT', () => shutdown('SIGINT'));
process.on('SIGTERM', () => shutdown('SIGTERM'));

server.listen(Number(port), host, () => {
	const shownHost = host.includes(':') ? `[${host}]` : host;
	console.log(`Listening on http://${shownHost}:${port}`);
	console.log(`gexdeck: open http://${shownHost}:${port}/`);
});
