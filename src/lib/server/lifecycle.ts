/**
 * Graceful shutdown of the dashboard process, the same under every entry (`node build`,
 * `npm start`, `vite preview`). On SIGTERM or SIGINT, within SHUTDOWN_DEADLINE_MS:
 *   1. stop accepting: /readyz answers 503, the http.Server closes (adapter-node's own signal
 *      handler closes it; when no entry does, this does);
 *   2. /stream viewers are closed with the "restarting" code (the page reconnects by itself)
 *      and the relay's upstream hubs are closed, which frees the account's WebSocket slot;
 *   3. the quota ledger is flushed to disk;
 *   4. once the server has closed (idle keep-alive connections are closed as they go idle,
 *      the rest at the deadline's margin), the embedded service is stopped, the ledger is flushed
 *      once more (answers that finished in the meantime) and the process exits 0.
 * If anything hangs, the deadline ends the process with exit code 1 and a log line.
 */
import type { Server } from 'node:http';
import { errorText, log } from './log';

export const SHUTDOWN_DEADLINE_MS = 9_000;

/** What a shutdown stops; injected so the sequence is testable without a real dashboard. */
export interface ShutdownParts {
	server: () => Server | undefined;
	/** Close /stream viewers ("restarting") and release the upstream slot. */
	stopStream: () => Promise<void>;
	/** Write pending state (the quota ledger) to disk. */
	flush: () => void | Promise<void>;
	/** Stop the embedded service child, if one runs. */
	stopService: () => Promise<void>;
	exit: (code: number) => void;
	deadlineMs?: number;
}

let stoppingSince: number | undefined;

/** True once a shutdown began (readiness answers 503 from then on). */
export function isStopping(): boolean {
	return stoppingSince !== undefined;
}

/** Resolves when `server` has closed, or at once when it is not listening anymore. */
function serverClosed(server: Server | undefined): Promise<void> {
	if (!server || !server.listening) return Promise.resolve();
	return new Promise((resolve) => server.once('close', () => resolve()));
}

/** Waits for `promise` at most `ms`; a timeout or failure is logged, never thrown. */
async function bounded(what: string, promise: Promise<unknown>, ms: number): Promise<void> {
	let timer: NodeJS.Timeout | undefined;
	try {
		await Promise.race([
			promise,
			new Promise((resolve) => {
				timer = setTimeout(() => {
					log.warn(`shutdown: ${what} did not finish in ${ms} ms`);
					resolve(undefined);
				}, ms);
			})
		]);
	} catch (err) {
		log.error(`shutdown: ${what} failed`, { error: errorText(err) });
	} finally {
		clearTimeout(timer);
	}
}

/** Runs the shutdown sequence once; later calls return the same promise. */
let running: Promise<void> | undefined;
export function shutdown(signal: string, parts: ShutdownParts): Promise<void> {
	running ??= runShutdown(signal, parts);
	return running;
}

async function runShutdown(signal: string, parts: ShutdownParts): Promise<void> {
	const deadlineMs = parts.deadlineMs ?? SHUTDOWN_DEADLINE_MS;
	stoppingSince = Date.now();
	log.info('shutting down', { signal, deadlineMs });
	const server = parts.server();
	const deadline = setTimeout(() => {
		log.error('shutdown deadline reached; exiting anyway', { signal });
		server?.closeAllConnections();
		parts.exit(1);
	}, deadlineMs);
	deadline.unref();

	const closed = serverClosed(server);
	// adapter-node's signal handler (registered after this one) closes the server in this same
	// tick; an entry without one (vite preview) leaves it to us.
	setImmediate(() => {
		if (server?.listening) server.close();
	});
	// Keep-alive connections become idle as their answers finish: close each then, so
	// server.close() is not held up by a client that keeps its connection open.
	const idle = setInterval(() => server?.closeIdleConnections(), 100);
	idle.unref();

	await bounded('closing /stream', parts.stopStream(), 2_000);
	try {
		await parts.flush();
	} catch (err) {
		log.error('shutdown: flush failed', { error: errorText(err) });
	}
	// Requests still running get most of the deadline, then their connections are cut.
	const margin = Math.min(3_500, deadlineMs / 2);
	await bounded('closing connections', closed, Math.max(0, deadlineMs - margin - elapsed()));
	clearInterval(idle);
	server?.closeAllConnections();
	await bounded('stopping the embedded service', parts.stopService(), 3_000);
	try {
		await parts.flush();
	} catch (err) {
		log.error('shutdown: flush failed', { error: errorText(err) });
	}
	clearTimeout(deadline);
	log.info('stopped', { signal, ms: elapsed() });
	parts.exit(0);
}

function elapsed(): number {
	return stoppingSince === undefined ? 0 : Date.now() - stoppingSince;
}

let installed = false;

/** Handle SIGTERM and SIGINT with shutdown(parts) (once per process). */
export function installShutdown(parts: ShutdownParts): void {
	if (installed) return;
	installed = true;
	for (const signal of ['SIGTERM', 'SIGINT'] as const) {
		process.on(signal, () => void shutdown(signal, parts));
	}
}

/** Tests: forget a finished shutdown. */
export function resetShutdownForTests(): void {
	running = undefined;
	stoppingSince = undefined;
}
