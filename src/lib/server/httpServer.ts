/**
 * The seam between the app and the node:http server that `scripts/start.js` creates: server-side
 * parts that need the raw server (e.g. the stream relay's WebSocket upgrade on /stream) register
 * here, typically from the `init` hook; start.js calls every registered function once the server
 * exists, before it listens. Under `vite dev` nothing calls them.
 */
import type { Server } from 'node:http';

export const HTTP_SERVER_ATTACHERS = Symbol.for('gexdeck.httpServerAttachers');

export type HttpServerAttacher = (server: Server) => void;

/** Register `attach` to be called with the dashboard's http.Server. */
export function onHttpServer(attach: HttpServerAttacher): void {
	const g = globalThis as Record<symbol, unknown>;
	const list = (g[HTTP_SERVER_ATTACHERS] ??= []) as HttpServerAttacher[];
	list.push(attach);
}
