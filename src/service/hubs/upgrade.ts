/**
 * Accepting WebSocket connections on `/client/hubs/{hub}?access_token=...` and speaking the
 * `json.webpubsub.azure.v1` protocol on them (connected message first, legacy joinGroup /
 * leaveGroup with acks, ping -> pong, unknown messages ignored).
 *
 * A refused upgrade is answered with a plain HTTP status and the upstream's `{"error": ...}`
 * body before any WebSocket exists, so a client sees why (expired URL, tampered token, ...).
 */
import { randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import { HubConnection } from './connection';
import {
	ackMessage,
	connectedMessage,
	parseClientMessage,
	WEBPUBSUB_SUBPROTOCOL as SUBPROTOCOL,
	type ClientMessage
} from '../../lib/contract/pubsub';
import type { Slot, SlotManager } from './slots';
import { tokenRefusal, type AccessTokens } from './tokens';

export const HUB_PATH = /^\/client\/hubs\/([A-Za-z0-9_]+)\/?$/;

export interface UpgradeDeps {
	tokens: AccessTokens;
	slots: SlotManager;
	/** Is `hub` a hub name this service serves (v2 or legacy)? */
	isHub(hub: string): boolean;
	/**
	 * Legacy flow: may a connection on `hub` of `slot` join `group` (the unprefixed name)?
	 * Returns an error text when not.
	 */
	legacyJoinError(slot: Slot, hub: string, group: string): string | undefined;
	maxBufferedBytes?: number;
}

export class HubAcceptor {
	private readonly wss = new WebSocketServer({
		noServer: true,
		// Frames are already compressed (zstd inside base64); deflating them again costs CPU for
		// nothing.
		perMessageDeflate: false,
		maxPayload: 64 * 1024,
		handleProtocols: (protocols) => (protocols.has(SUBPROTOCOL) ? SUBPROTOCOL : false)
	});

	constructor(private readonly deps: UpgradeDeps) {}

	/** Handles an HTTP upgrade; false when the path is not a hub path (someone else's). */
	handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): boolean {
		let url: URL;
		try {
			url = new URL(req.url ?? '/', 'http://hub.invalid');
		} catch {
			return false;
		}
		const match = HUB_PATH.exec(url.pathname);
		if (!match) return false;
		// Node hands an upgrade's socket over with no 'error' listener: a peer that resets it
		// (after a refusal, or mid-handshake) would otherwise crash the process.
		socket.on('error', ignoreSocketError);
		const hub = match[1];
		if (!this.deps.isHub(hub)) {
			refuse(socket, 404, `Unknown hub: ${hub}.`);
			return true;
		}
		const token = url.searchParams.get('access_token');
		if (!token) {
			refuse(socket, 401, 'Missing access_token: negotiate first (POST /v2/negotiate).');
			return true;
		}
		const check = this.deps.tokens.verify(token, hub);
		if (!check.ok) {
			refuse(socket, 401, tokenRefusal(check.reason));
			return true;
		}
		const offered = String(req.headers['sec-websocket-protocol'] ?? '')
			.split(',')
			.map((p) => p.trim());
		if (!offered.includes(SUBPROTOCOL)) {
			refuse(socket, 400, `Subprotocol ${SUBPROTOCOL} is required.`);
			return true;
		}
		const { claims } = check;
		const slot = this.deps.slots.find(claims.account, claims.slot);
		if (!slot?.session || slot.session.id !== claims.session) {
			refuse(socket, 401, 'Access token belongs to a superseded negotiation: negotiate again.');
			return true;
		}
		const session = slot.session;
		this.wss.handleUpgrade(req, socket, head, (ws) => {
			// The slot may have been renewed while the handshake ran.
			if (slot.session?.id !== session.id) {
				ws.close(1008, 'Access token belongs to a superseded negotiation');
				return;
			}
			this.accept(ws, slot, hub, session.flow, claims.account);
		});
		return true;
	}

	private accept(ws: WebSocket, slot: Slot, hub: string, flow: 'v2' | 'legacy', account: string) {
		const connectionId = randomBytes(16).toString('base64url');
		const conn = new HubConnection(ws, {
			connectionId,
			hub,
			account,
			slotKey: slot.key,
			session: slot.session!.id,
			flow,
			maxBufferedBytes: this.deps.maxBufferedBytes,
			onClosed: (c) => this.deps.slots.detach(c)
		});
		if (!this.deps.slots.attach(conn)) {
			ws.close(1008, 'Access token belongs to a superseded negotiation');
			return;
		}
		// The connected system message is the first frame a client sees.
		ws.send(JSON.stringify(connectedMessage(connectionId, account)));
		ws.on('pong', () => conn.markAlive());
		ws.on('close', () => conn.released());
		ws.on('error', () => conn.released());
		ws.on('message', (data, isBinary) => {
			conn.markAlive();
			// This protocol is JSON text; binary frames are unknown messages, ignored.
			if (isBinary) return;
			const text = Array.isArray(data)
				? Buffer.concat(data).toString('utf8')
				: Buffer.isBuffer(data)
					? data.toString('utf8')
					: Buffer.from(data).toString('utf8');
			const parsed = parseClientMessage(text);
			// Unparseable frames are ignored, never a reason to drop the connection.
			if (parsed.ok) this.onClientMessage(conn, slot, parsed.message);
		});
	}

	private onClientMessage(conn: HubConnection, slot: Slot, msg: ClientMessage): void {
		switch (msg.type) {
			case 'ping':
				conn.send(PONG_TEXT);
				return;
			case 'sendToGroup':
			case 'event': {
				const ackId = msg.raw.ackId;
				if (typeof ackId === 'number' && Number.isSafeInteger(ackId) && ackId >= 0) {
					conn.send(ack(ackId, 'This feed is receive-only: publishing is not permitted.'));
				}
				return;
			}
			case 'joinGroup': {
				const error = this.joinError(conn, slot, msg.group);
				if (!error) conn.joined.add(msg.group);
				if (msg.ackId !== undefined) conn.send(ack(msg.ackId, error));
				return;
			}
			case 'leaveGroup':
				if (conn.flow === 'legacy') conn.joined.delete(msg.group);
				if (msg.ackId !== undefined) {
					conn.send(ack(msg.ackId, conn.flow === 'legacy' ? undefined : V2_JOIN_MESSAGE));
				}
				return;
			default:
				// sequenceAck (reliable protocol) and anything newer: ignored, connection kept.
				return;
		}
	}

	private joinError(conn: HubConnection, slot: Slot, group: string): string | undefined {
		if (conn.flow !== 'legacy') return V2_JOIN_MESSAGE;
		if (conn.joined.has(group)) return undefined;
		const prefix = `${slot.session?.prefix}_`;
		if (!group.startsWith(prefix)) {
			return `Group names must start with the negotiated prefix "${prefix}".`;
		}
		return this.deps.legacyJoinError(slot, conn.hub, group.slice(prefix.length));
	}

	/** Heartbeat round over every connection (called by an interval timer). */
	heartbeat(): void {
		for (const slot of this.deps.slots.liveSlots()) {
			for (const conn of [...slot.connections]) conn.heartbeat();
		}
	}

	close(): void {
		this.wss.close();
	}
}

const PONG_TEXT = '{"type":"pong"}';

/** An ack frame; a refusal carries Azure's `Forbidden` error name and the reason. */
function ack(ackId: number, error?: string): string {
	return JSON.stringify(
		error
			? ackMessage(ackId, false, { name: 'Forbidden', message: error })
			: ackMessage(ackId, true)
	);
}

const V2_JOIN_MESSAGE =
	'Memberships of the v2 flow are managed by the server: use PATCH /v2/negotiate.';

const STATUS_TEXT: Record<number, string> = {
	400: 'Bad Request',
	401: 'Unauthorized',
	403: 'Forbidden',
	404: 'Not Found',
	500: 'Internal Server Error',
	503: 'Service Unavailable'
};

function ignoreSocketError(): void {
	// The peer is gone; the socket is destroyed by its own error handling.
}

/** Answers a refused upgrade with a plain HTTP status and the `{"error": ...}` body. */
export function refuse(socket: Duplex, status: number, message: string): void {
	if (socket.listenerCount('error') === 0) socket.on('error', ignoreSocketError);
	if (!socket.writable) {
		socket.destroy();
		return;
	}
	const body = JSON.stringify({ error: message });
	socket.end(
		`HTTP/1.1 ${status} ${STATUS_TEXT[status] ?? 'Error'}\r\n` +
			'Content-Type: application/json; charset=utf-8\r\n' +
			`Content-Length: ${Buffer.byteLength(body)}\r\n` +
			'Connection: close\r\n\r\n' +
			body
	);
}
