/**
 * The dashboard's `/stream` WebSocket endpoint: authenticates the upgrade like the rest of the
 * dashboard (the caller's `authorize`, e.g. the session cookie), refuses cross-site upgrades
 * (a WebSocket is not covered by CORS), and speaks the viewer protocol: JSON control messages
 * in, JSON replies and binary relay frames out.
 *
 * Bounded per viewer and per client: at most MAX_VIEWERS_PER_CLIENT viewers of one client
 * (session or address), control messages through a token bucket (unanswered past it, closed
 * after CONTROL_OVERRUN_LIMIT more), and replies within the viewer's high-water mark (viewer.ts).
 */
import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import { parseViewerRequest, STREAM_PATH } from '../../relay/protocol';
import { cookieValue } from '../cookies';
import { refuseSocket } from '../httpServer';
import { log } from '../log';
import { TokenBucket } from '../tokenBucket';
import type { StreamRelay } from './relay';

/** Decides whether an upgrade request may open a viewer (true), else the refusal status. */
export type StreamAuthorizer = (
	req: IncomingMessage
) =>
	| boolean
	| { status: number; message: string }
	| Promise<boolean | { status: number; message: string }>;

export interface StreamEndpointOptions {
	path?: string;
	/** Refuse an upgrade whose Origin host differs from its Host (default true). */
	sameOrigin?: boolean;
	/** Simultaneous viewers allowed (default MAX_VIEWERS). */
	maxViewers?: number;
	/** Server ping interval to find dead viewers (default 30 s). */
	pingIntervalMs?: number;
	/** Who a viewer belongs to, for the per-client cap (default: the socket's peer address). */
	clientOf?: (req: IncomingMessage) => string;
	/** Whose share of the slot a viewer is (usage/callShares.ts's caller key; default the relay's). */
	ownerOf?: (req: IncomingMessage) => string | undefined;
	/** Viewers one client may hold at once (default MAX_VIEWERS_PER_CLIENT). */
	maxViewersPerClient?: number;
	/** Control messages a viewer may send: burst and sustained rate (default 40, 10 a second). */
	controlBurst?: number;
	controlPerSecond?: number;
}

export interface StreamEndpoint {
	/** Viewers currently connected. */
	readonly size: number;
	/** Stops accepting viewers and closes the connected ones with `code` (default 1001). */
	close(code?: number, reason?: string): void;
	/** Closes the viewers of one client (clientOf's answer), e.g. a session that ended. */
	closeClient(client: string, code: number, reason: string): number;
}

/**
 * The default viewer cap. The 20-minute soak (`npm run bench -- soak`) held 50 viewers on 150
 * memberships at ten times the live feed's rate with zero missed frames, flat memory, and about
 * 4 ms of relay CPU per viewer per second; at the live rate the stream bench measures about 1 ms
 * per viewer per second, so 128 viewers cost roughly a tenth of a core, and each viewer's memory
 * is bounded by its high-water mark.
 */
export const MAX_VIEWERS = 128;
/** A quarter of the slots per client (session or address), so one cannot take them all. */
export const MAX_VIEWERS_PER_CLIENT = 32;
/**
 * Control messages beyond the rate limit are not answered; a viewer that keeps sending this
 * many more is closed (1008). A page sends a handful a minute.
 */
export const CONTROL_OVERRUN_LIMIT = 100;

export function attachStreamEndpoint(
	server: Server,
	relay: StreamRelay,
	authorize: StreamAuthorizer,
	options: StreamEndpointOptions = {}
): StreamEndpoint {
	const path = options.path ?? STREAM_PATH;
	const maxViewers = options.maxViewers ?? MAX_VIEWERS;
	const wss = new WebSocketServer({
		noServer: true,
		perMessageDeflate: false,
		// Control messages are small; frames only flow server -> viewer.
		maxPayload: 64 * 1024
	});
	const alive = new WeakMap<WebSocket, boolean>();
	const perClient = new Map<string, number>();
	const maxPerClient = options.maxViewersPerClient ?? MAX_VIEWERS_PER_CLIENT;
	const clientOf = options.clientOf ?? ((req: IncomingMessage) => req.socket.remoteAddress ?? '?');

	const onUpgrade = (req: IncomingMessage, socket: Duplex, head: Buffer) => {
		// Node hands an upgrade's socket over with no 'error' listener: a peer that resets it
		// would otherwise crash the dashboard, whoever's upgrade it is.
		socket.on('error', ignoreSocketError);
		let pathname: string | undefined;
		try {
			pathname = new URL(req.url ?? '/', 'http://dashboard.invalid').pathname;
		} catch {
			pathname = undefined; // an absolute-form target that does not parse
		}
		if (pathname !== path) {
			// Someone else's upgrade (vite HMR); with nobody else listening, refuse rather than
			// leave the socket open forever.
			if (server.listenerCount('upgrade') === 1) refuseSocket(socket, 404, 'Not found.');
			return;
		}
		accept(req, socket, head).catch((err: unknown) => {
			// A bug in the handshake path answers this one upgrade, never the process.
			log.error('/stream upgrade failed', { error: (err as Error)?.message ?? String(err) });
			refuseSocket(socket, 500, 'Stream connection failed.');
		});
	};

	async function accept(req: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
		if (options.sameOrigin !== false && !sameOrigin(req)) {
			return refuseSocket(socket, 403, 'Cross-origin stream connection refused.');
		}
		let verdict: boolean | { status: number; message: string };
		try {
			verdict = await authorize(req);
		} catch {
			verdict = { status: 500, message: 'Authorization failed.' };
		}
		if (verdict !== true) {
			const r = verdict === false ? { status: 401, message: 'Sign in first.' } : verdict;
			return refuseSocket(socket, r.status, r.message);
		}
		if (wss.clients.size >= maxViewers)
			return refuseSocket(socket, 503, 'Too many stream viewers.');
		const client = clientOf(req);
		if ((perClient.get(client) ?? 0) >= maxPerClient) {
			return refuseSocket(
				socket,
				503,
				`Too many stream viewers from one client (${maxPerClient}).`
			);
		}
		perClient.set(client, (perClient.get(client) ?? 0) + 1);
		let claimed = true;
		const release = () => {
			if (!claimed) return;
			claimed = false;
			const n = (perClient.get(client) ?? 1) - 1;
			if (n > 0) perClient.set(client, n);
			else perClient.delete(client);
		};
		socket.once('close', release);
		wss.handleUpgrade(req, socket, head, (ws) => {
			clients.set(ws, client);
			ws.once('close', release);
			onViewer(ws, req);
		});
	}

	function onViewer(ws: WebSocket, req: IncomingMessage): void {
		const label = `${req.socket.remoteAddress ?? '?'} ${String(req.headers['user-agent'] ?? '').slice(0, 60)}`;
		alive.set(ws, true);
		const viewer = relay.connect(ws, label, options.ownerOf?.(req));
		const budget = new TokenBucket(options.controlBurst ?? 40, options.controlPerSecond ?? 10);
		let overrun = 0;
		ws.on('pong', () => alive.set(ws, true));
		ws.on('message', (data, isBinary) => {
			alive.set(ws, true);
			if (!budget.take()) {
				// Over the rate: not answered; a viewer that keeps on is closed.
				if (++overrun >= CONTROL_OVERRUN_LIMIT) {
					ws.close(1008, 'Too many control messages');
					ws.terminate();
				}
				return;
			}
			if (isBinary) {
				viewer.sendMessage({ type: 'error', message: 'Binary messages are not accepted.' });
				return;
			}
			const parsed = parseViewerRequest(data.toString());
			if (!parsed.ok) {
				viewer.sendMessage({ type: 'error', message: parsed.error });
				return;
			}
			const m = parsed.message;
			const id = m.id === undefined ? {} : { id: m.id };
			switch (m.type) {
				case 'subscribe': {
					const r = relay.subscribe(viewer, m.groups);
					viewer.sendMessage({ type: 'subscribed', ...id, ...r });
					if (m.after !== undefined) void relay.resume(viewer, m.after);
					return;
				}
				case 'unsubscribe':
					viewer.sendMessage({
						type: 'unsubscribed',
						...id,
						groups: relay.unsubscribe(viewer, m.groups)
					});
					return;
				case 'status':
					viewer.sendMessage(relay.status(viewer, m.id));
					return;
				case 'takeBack':
					relay.takeBack();
					viewer.sendMessage(relay.status(viewer, m.id));
					return;
			}
		});
		ws.on('close', () => relay.disconnect(viewer));
		ws.on('error', () => relay.disconnect(viewer));
	}

	server.on('upgrade', onUpgrade);
	const clients = new WeakMap<WebSocket, string>();
	const ping = setInterval(() => {
		for (const ws of wss.clients) {
			if (!alive.get(ws)) {
				ws.terminate();
				continue;
			}
			alive.set(ws, false);
			ws.ping();
		}
	}, options.pingIntervalMs ?? 30_000);
	ping.unref();

	return {
		get size() {
			return wss.clients.size;
		},
		closeClient(client, code, reason) {
			let n = 0;
			for (const ws of wss.clients) {
				if (clients.get(ws) !== client) continue;
				ws.close(code, reason);
				setTimeout(() => ws.terminate(), 1_000).unref();
				n++;
			}
			return n;
		},
		close(code = 1001, reason = 'Stream endpoint closing') {
			clearInterval(ping);
			server.off('upgrade', onUpgrade);
			for (const ws of wss.clients) ws.close(code, reason);
			// A viewer that never answers the close handshake must not hold the server open.
			const stragglers = [...wss.clients];
			setTimeout(() => {
				for (const ws of stragglers) ws.terminate();
			}, 1_000).unref();
			wss.close();
		}
	};
}

/** A cookie of the upgrade request (the dashboard's session cookie, for `authorize`). */
export function cookieOf(req: IncomingMessage, name: string): string | undefined {
	return cookieValue(req.headers.cookie, name);
}

function sameOrigin(req: IncomingMessage): boolean {
	const origin = req.headers.origin;
	// Non-browser clients send no Origin; the authorizer still applies to them.
	if (!origin) return true;
	try {
		return new URL(origin).host === req.headers.host;
	} catch {
		return false;
	}
}

function ignoreSocketError(): void {
	// The peer is gone; the socket is destroyed by its own error handling.
}
