/**
 * One upstream hub connection (`ws`, subprotocol json.webpubsub.azure.v1 by default; the
 * reliable one is driven by ./resumable.ts on top of it). It turns the JSON
 * text frames into callbacks: group data as raw Any bytes (base64 decoded, never parsed further),
 * and one `onEnd` when the connection is gone, with the upstream's stated reason.
 */
import WebSocket from 'ws';
import { SESSION_LIMIT_REASON } from '../../contract/hubs';
import {
	parseServerMessage,
	WEBPUBSUB_SUBPROTOCOL,
	type ConnectedMessage
} from '../../contract/pubsub';

export interface HubEnd {
	/** Another negotiation of the account took the slot. */
	slotTaken: boolean;
	/** HTTP status of a refused upgrade (401: expired or superseded URL), else undefined. */
	refusedStatus?: number;
	/** The upstream's words (disconnected message, close reason, refusal body, socket error). */
	reason: string;
	/** The socket had opened and greeted (a drop), as opposed to never connecting. */
	wasOpen: boolean;
	/** WebSocket close code (1006: no close frame, the connection died; 1008: policy). */
	code?: number;
}

export interface HubSocketHandlers {
	/** `sequenceId` is set on the reliable subprotocol. */
	onGroupData(group: string, any: Buffer, sequenceId?: number): void;
	onEnd(end: HubEnd): void;
	/** The `connected` system message (reliable protocol: carries the reconnection token). */
	onConnected?(message: ConnectedMessage): void;
}

export class HubSocket {
	private ws: WebSocket;
	private open = false;
	private ended = false;
	private lastReason = '';
	private slotTaken = false;
	/** Resolves once the `connected` system message arrived; rejects if the socket ends first. */
	readonly ready: Promise<void>;
	/** Corrupt or unexpected upstream frames, counted and skipped. */
	skipped = 0;

	constructor(
		readonly hub: string,
		url: string,
		private readonly handlers: HubSocketHandlers,
		options: {
			userAgent: string;
			handshakeTimeoutMs?: number;
			pingIntervalMs?: number;
			/** Subprotocols offered, preferred first (default: the plain JSON one). */
			protocols?: string[];
		}
	) {
		this.ws = new WebSocket(url, options.protocols ?? WEBPUBSUB_SUBPROTOCOL, {
			headers: { 'User-Agent': options.userAgent },
			perMessageDeflate: false,
			handshakeTimeout: options.handshakeTimeoutMs ?? 10_000,
			maxPayload: 16 * 1024 * 1024
		});
		let resolveReady!: () => void;
		let rejectReady!: (e: Error) => void;
		this.ready = new Promise((res, rej) => {
			resolveReady = res;
			rejectReady = rej;
		});
		// A caller that never awaits ready must not see an unhandled rejection.
		this.ready.catch(() => undefined);
		let refusedStatus: number | undefined;

		this.ws.on('unexpected-response', (_req, res) => {
			refusedStatus = res.statusCode ?? 0;
			let body = '';
			res.setEncoding('utf8');
			res.on('data', (c: string) => (body += c.length < 4096 ? c : ''));
			res.on('end', () => {
				let reason = body;
				try {
					const e = (JSON.parse(body) as { error?: unknown }).error;
					if (typeof e === 'string') reason = e;
				} catch {
					/* plain-text refusal */
				}
				this.end({
					slotTaken: false,
					refusedStatus,
					reason: reason || `upgrade refused ${refusedStatus}`,
					wasOpen: false
				});
				rejectReady(new Error(reason));
			});
			res.on('error', () => undefined);
		});
		// A silently dead TCP connection shows no close: ping, and cut a peer that stays silent
		// for a whole interval (a pong is mandatory for any WebSocket server).
		let alive = true;
		const markAlive = () => (alive = true);
		this.ws.on('pong', markAlive);
		this.ws.on('ping', markAlive);
		const heartbeat = setInterval(() => {
			if (this.ws.readyState !== WebSocket.OPEN) return;
			if (!alive) {
				this.lastReason = 'no answer to pings';
				this.ws.terminate();
				return;
			}
			alive = false;
			this.ws.ping();
		}, options.pingIntervalMs ?? 30_000);
		heartbeat.unref();
		this.ws.on('message', (data, isBinary) => {
			alive = true;
			if (isBinary) {
				this.skipped++;
				return;
			}
			this.onText(data.toString(), resolveReady);
		});
		this.ws.on('error', (e) => {
			this.lastReason ||= e.message;
		});
		this.ws.on('close', (code, reasonBuffer) => {
			clearInterval(heartbeat);
			const closeReason = reasonBuffer.toString();
			if (closeReason.includes(SESSION_LIMIT_REASON)) this.slotTaken = true;
			if (refusedStatus !== undefined) return; // reported by unexpected-response
			const reason = this.lastReason || closeReason || `closed with code ${code}`;
			this.end({ slotTaken: this.slotTaken, reason, wasOpen: this.open, code });
			rejectReady(new Error(reason));
		});
	}

	get isOpen(): boolean {
		return this.open && !this.ended;
	}

	/** The subprotocol the upstream chose ('' before the handshake). */
	get protocol(): string {
		return this.ws.protocol;
	}

	/** Sends a text frame (reliable protocol: sequenceAck); false when not open. */
	send(text: string): boolean {
		if (this.ws.readyState !== WebSocket.OPEN) return false;
		this.ws.send(text);
		return true;
	}

	/** Our own close: no onEnd callback. */
	close(): void {
		this.ended = true;
		this.open = false;
		if (this.ws.readyState === WebSocket.CONNECTING) this.ws.terminate();
		else this.ws.close(1000, 'relay closing');
	}

	/** A hard cut (tests simulate a dropped network with it). */
	terminate(): void {
		this.ws.terminate();
	}

	private onText(text: string, resolveReady: () => void): void {
		// An odd frame is counted and skipped, never a reason to drop the hub.
		const parsed = parseServerMessage(text);
		if (!parsed.ok) {
			this.skipped++;
			return;
		}
		const m = parsed.message;
		if (m.type === 'message' && m.from === 'group') {
			if ((m.dataType === 'protobuf' || m.dataType === 'binary') && typeof m.data === 'string') {
				this.handlers.onGroupData(m.group, Buffer.from(m.data, 'base64'), m.sequenceId);
			} else this.skipped++;
			return;
		}
		if (m.type === 'system' && m.event === 'connected') {
			this.open = true;
			this.handlers.onConnected?.(m);
			resolveReady();
			return;
		}
		if (m.type === 'system' && m.event === 'disconnected') {
			this.lastReason = m.message;
			if (m.message.includes(SESSION_LIMIT_REASON)) this.slotTaken = true;
		}
	}

	private end(end: HubEnd): void {
		if (this.ended) return;
		this.ended = true;
		this.open = false;
		this.handlers.onEnd(end);
	}
}
