/**
 * Accepting WebSocket connections on `/client/hubs/{hub}?access_token=...` and speaking the
 * `json.webpubsub.azure.v1` protocol on them (connected message first, legacy joinGroup /
 * leaveGroup with acks, ping -> pong, unknown messages ignored), or its reliable variant
 * `json.reliable.webpubsub.azure.v1` (sequence ids, acks and recovery: ./reliable.ts).
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
	disconnectedMessage,
	parseClientMessage,
	pickSubprotocol,
	WEBPUBSUB_RELIABLE_SUBPROTOCOL,
	type ClientMessage
} from '../../lib/contract/pubsub';
import {
	recoveryParams,
	ReliableConnection,
	ReliableRegistry,
	subprotocolRefusal
} from './reliable';
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
	/** Reliable protocol: resend buffer bound per connection and recovery window. */
	maxResendBytes?: number;
	recoveryWindowMs?: number;
}

export class HubAcceptor {
	private readonly wss = new WebSocketServer({
		noServer: true,
		// Frames are already compressed (zstd inside base64); deflating them again costs CPU for
		// nothing.
		perMessageDeflate: false,
		maxPayload: 64 * 1024,
		handleProtocols: (protocols) => pickSubprotocol(protocols) ?? false
	});
	/** Reliable connections by id (recoveries find theirs here). */
	readonly reliable = new ReliableRegistry();

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
		const offered = String(req.headers['sec-websocket-protocol'] ?? '')
			.split(',')
			.map((p) => p.trim());
		const protocol = pickSubprotocol(offered);
		if (!protocol) {
			refuse(socket, 400, subprotocolRefusal(offered));
			return true;
		}
		const recovery = protocol === WEBPUBSUB_RELIABLE_SUBPROTOCOL && recoveryParams(url);
		if (recovery) {
			// The reconnection token is the credential of a recovery: the access token of the URL
			// may have aged past its connect window since the first connect.
			this.wss.handleUpgrade(req, socket, head, (ws) =>
				this.recover(ws, hub, recovery.connectionId, recovery.token)
			);
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
			this.accept(ws, slot, hub, session.flow, claims.account, protocol);
		});
		return true;
	}

	private accept(
		ws: WebSocket,
		slot: Slot,
		hub: string,
		flow: 'v2' | 'legacy',
		account: string,
		protocol: string
	) {
		const connectionId = randomBytes(16).toString('base64url');
		const init = {
			connectionId,
			hub,
			account,
			slotKey: slot.key,
			session: slot.session!.id,
			flow,
			maxBufferedBytes: this.deps.maxBufferedBytes,
			onClosed: (c: HubConnection) => this.deps.slots.detach(c)
		};
		const conn =
			protocol === WEBPUBSUB_RELIABLE_SUBPROTOCOL
				? new ReliableConnection(ws, {
						...init,
						registry: this.reliable,
						maxResendBytes: this.deps.maxResendBytes,
						recoveryWindowMs: this.deps.recoveryWindowMs
					})
				: new HubConnection(ws, init);
		if (!this.deps.slots.attach(conn)) {
			ws.close(1008, 'Access token belongs to a superseded negotiation');
			conn.close('Access token belongs to a superseded negotiation');
			return;
		}
		// The connected system message is the first frame a client sees.
		ws.send(
			conn instanceof ReliableConnection
				? conn.connectedText()
				: JSON.stringify(connectedMessage(connectionId, account))
		);
		this.listen(ws, conn, slot);
	}

	/**
	 * A reliable client's reconnection: the same connection on a new socket, or a 1008 close
	 * (the client then negotiates anew) when it cannot be continued.
	 */
	private recover(ws: WebSocket, hub: string, connectionId: string, token: string): void {
		const claim = this.reliable.claim(connectionId, token, hub);
		const slot = claim.ok ? this.deps.slots.byKey(claim.conn.slotKey) : undefined;
		if (!claim.ok || !slot || slot.session?.id !== claim.conn.session) {
			const reason = claim.ok ? 'Connection belongs to a superseded negotiation.' : claim.reason;
			ws.send(JSON.stringify(disconnectedMessage(reason)));
			ws.close(1008, reason);
			return;
		}
		claim.conn.resume(ws);
		this.listen(ws, claim.conn, slot);
	}

	private listen(ws: WebSocket, conn: HubConnection, slot: Slot): void {
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
			case 'sequenceAck':
				if (conn instanceof ReliableConnection) conn.ack(msg.sequenceId);
				return;
			default:
				// Anything newer: ignored, connection kept.
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
