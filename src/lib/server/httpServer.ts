/**
 * The seam between the app and the node:http server that serves it, whichever entry created
 * it: adapter-node's `node build`, `npm start` (which runs the same build/index.js) or
 * `vite preview`. Server-side parts that need the raw server (the /stream WebSocket upgrade,
 * the /api fast path, the request gate's server guard) register with onHttpServer(), typically
 * from the `init` hook; watchHttpServer() hands them the server when it accepts its first
 * connection (Node's documented `net.server.socket` diagnostics channel fires before the server
 * parses any request or upgrade on it), so no entry point has to pass the server in. Under
 * `vite dev` the hand-over is explicit instead: the Vite plugin in vite.config.ts passes Vite's
 * own http server through devServer.ts, with the upgrades Vite answers itself (HMR).
 */
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { Server, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';

export type HttpServerAttacher = (server: Server) => void;

/** What the entry that created the server says about it when it hands it over. */
export interface HttpServerHandOff {
	/**
	 * Upgrade requests another listener of the same server answers (Vite's HMR socket under
	 * `vite dev`): the request gate's server guard lets them pass instead of refusing them.
	 */
	foreignUpgrade?: (req: IncomingMessage) => boolean;
}

const attachers: HttpServerAttacher[] = [];
let attached: Server | undefined;
let handOff: HttpServerHandOff = {};
let watching = false;

/** Register `attach` to be called with the dashboard's http.Server (at once if it is known). */
export function onHttpServer(attach: HttpServerAttacher): void {
	attachers.push(attach);
	if (attached) attach(attached);
}

/** The dashboard's http.Server once it has accepted a connection, else undefined. */
export function httpServer(): Server | undefined {
	return attached;
}

/** Whether another listener of the server answers this upgrade (see HttpServerHandOff). */
export function isForeignUpgrade(req: IncomingMessage): boolean {
	return handOff.foreignUpgrade?.(req) ?? false;
}

/** Hands `server` to every attacher (once per process; later servers are ignored). */
export function attachHttpServer(server: Server, options: HttpServerHandOff = {}): void {
	if (attached) return;
	attached = server;
	handOff = options;
	for (const attach of attachers) attach(server);
}

const SOCKET_CHANNEL = 'net.server.socket';

function onSocket(message: unknown): void {
	// Node sets socket.server on every accepted connection before publishing it.
	const server = (message as { socket?: { server?: unknown } }).socket?.server;
	if (!(server instanceof Server)) return;
	unsubscribe(SOCKET_CHANNEL, onSocket);
	attachHttpServer(server);
}

/** Attach to the first http.Server of this process that accepts a connection. */
export function watchHttpServer(): void {
	if (watching || attached) return;
	watching = true;
	subscribe(SOCKET_CHANNEL, onSocket);
}

/**
 * Lets `intercept` answer a request before the server's own listeners (the adapter's handler)
 * see it: the /api fast path. A request it takes (returns true) never reaches them.
 */
export function interceptRequests(
	server: Server,
	intercept: (req: IncomingMessage, res: ServerResponse) => boolean
): void {
	const emit = server.emit;
	server.emit = function (this: Server, event: string | symbol, ...args: unknown[]): boolean {
		if (event === 'request' && intercept(args[0] as IncomingMessage, args[1] as ServerResponse)) {
			return true;
		}
		return (emit as (event: string | symbol, ...args: unknown[]) => boolean).call(
			this,
			event,
			...args
		);
	} as Server['emit'];
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
	if (!socket.writable) {
		socket.destroy();
		return;
	}
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
