/**
 * The seam between the app and the node:http server that `scripts/start.js` creates: server-side
 * parts that need the raw server (e.g. the stream relay's WebSocket upgrade on /stream) register
 * here, typically from the `init` hook; start.js calls every registered function once the server
 * exists, before it listens. Under `vite dev` nothing calls them.
 */
import type { Server } from 'node:http';
import type { Duplex } from 'node:stream';

export const HTTP_SERVER_ATTACHERS = Symbol.for('gexdeck.httpServerAttachers');

export type HttpServerAttacher = (server: Server) => void;

/** Register `attach` to be called with the dashboard's http.Server. */
export function onHttpServer(attach: HttpServerAttacher): void {
	const g = globalThis as Record<symbol, unknown>;
	const list = (g[HTTP_SERVER_ATTACHERS] ??= []) as HttpServerAttacher[];
	list.push(attach);
}

const STATUS_TEXT: Record<number, string> = {
	400: 'Bad Request',
	401: 'Unauthorized',
	403: 'Forbidden',
	404: 'Not Found',
	421: 'Misdirected Request',
	500: 'Internal Server Error',
	503: 'Service Unavailable'
};

/** Answer a raw upgrade socket with `status` and close it (it never becomes a WebSocket). */
export function refuseSocket(socket: Duplex, status: number, message: string): void {
	const body = JSON.stringify({ error: message });
	if (socket.destroyed) return;
	socket.end(
		`HTTP/1.1 ${status} ${STATUS_TEXT[status] ?? 'Error'}\r\n` +
			'Content-Type: application/json\r\n' +
			`Content-Length: ${Buffer.byteLength(body)}\r\n` +
			'Connection: close\r\n\r\n' +
			body
	);
	// A peer that never reads must not hold the socket open.
	setTimeout(() => socket.destroy(), 5_000).unref();
}
