/**
 * One client WebSocket on one hub: bounded sending, server-side heartbeats and closing with a
 * reason the client can read.
 *
 * Memory is the risk of a push feed: a client that reads slower than the feed produces makes
 * the socket's user-space buffer grow without end. Every send checks the bytes still queued
 * and, past the bound, closes the connection with a clear reason instead of queueing more.
 */
import { disconnectedMessage } from '../../lib/contract/pubsub';

/** The part of a `ws` WebSocket a connection uses (a fake in unit tests). */
export interface SocketLike {
	readonly readyState: number;
	readonly bufferedAmount: number;
	send(data: string): void;
	close(code?: number, reason?: string): void;
	terminate(): void;
	ping(): void;
}

const OPEN = 1;

/** Close code for policy closes (session replaced, slow consumer). */
export const POLICY_CLOSE = 1008;
/** Close code when the service shuts down. */
export const GOING_AWAY = 1001;

export const DEFAULT_MAX_BUFFERED_BYTES = 8 * 1024 * 1024;
/** How long a close handshake may take before the socket is cut. */
const CLOSE_GRACE_MS = 5_000;

export type Flow = 'v2' | 'legacy';

export interface ConnectionInit {
	connectionId: string;
	hub: string;
	account: string;
	slotKey: string;
	session: string;
	flow: Flow;
	maxBufferedBytes?: number;
	onClosed?: (conn: HubConnection) => void;
}

export class HubConnection {
	readonly connectionId: string;
	readonly hub: string;
	readonly account: string;
	readonly slotKey: string;
	readonly session: string;
	readonly flow: Flow;
	/** Legacy flow: groups this connection joined itself (prefixed names, as the client sent them). */
	readonly joined = new Set<string>();
	/** Bytes handed to the socket since connect (bench and tests read it). */
	bytesSent = 0;
	framesSent = 0;
	protected readonly maxBuffered: number;
	protected closing = false;
	protected alive = true;
	private closeTimer: ReturnType<typeof setTimeout> | undefined;
	private onClosed?: (conn: HubConnection) => void;

	constructor(
		protected socket: SocketLike,
		init: ConnectionInit
	) {
		this.connectionId = init.connectionId;
		this.hub = init.hub;
		this.account = init.account;
		this.slotKey = init.slotKey;
		this.session = init.session;
		this.flow = init.flow;
		this.maxBuffered = init.maxBufferedBytes ?? DEFAULT_MAX_BUFFERED_BYTES;
		this.onClosed = init.onClosed;
	}

	get isOpen(): boolean {
		return !this.closing && this.socket.readyState === OPEN;
	}

	/** Does the fan-out hand this connection its groups' frames (reliable: also while resumable)? */
	get receiving(): boolean {
		return this.isOpen;
	}

	/**
	 * One group data frame (the envelope shared by every member) from the fan-out. The plain
	 * protocol sends it as it is; the reliable one numbers and keeps it (./reliable.ts).
	 */
	deliver(envelope: string): boolean {
		return this.send(envelope);
	}

	/**
	 * Queues one text frame. Returns false when the connection is closed or was just closed
	 * because its send buffer is over the bound.
	 */
	send(text: string): boolean {
		if (!this.isOpen) return false;
		if (this.socket.bufferedAmount + text.length > this.maxBuffered) {
			this.close(
				`Send buffer over ${this.maxBuffered} bytes: client is not reading fast enough`,
				POLICY_CLOSE,
				false
			);
			return false;
		}
		this.socket.send(text);
		this.bytesSent += text.length;
		this.framesSent++;
		return true;
	}

	/**
	 * Tells the client why with a `disconnected` system message, then closes. The system message
	 * is skipped (`notify` false) when the buffer is the problem: it would queue behind what the
	 * client cannot read, and the close frame's reason carries the text anyway. A handshake that
	 * does not complete within a few seconds is cut.
	 */
	close(reason: string, code = POLICY_CLOSE, notify = true): void {
		if (this.closing) return;
		this.closing = true;
		if (this.socket.readyState === OPEN) {
			const notice = JSON.stringify(disconnectedMessage(reason));
			if (notify && this.socket.bufferedAmount + notice.length <= this.maxBuffered) {
				this.socket.send(notice);
			}
			this.socket.close(code, closeReason(reason));
			this.closeTimer = setTimeout(() => this.socket.terminate(), CLOSE_GRACE_MS);
			this.closeTimer.unref?.();
		}
		this.released();
	}

	/** The socket is gone (closed by either side). */
	released(): void {
		this.closing = true;
		if (this.closeTimer && this.socket.readyState === 3) clearTimeout(this.closeTimer);
		// Run once: the socket's 'close' event after our own close() finds nothing to do.
		const cb = this.onClosed;
		this.onClosed = undefined;
		cb?.(this);
	}

	/** A pong (or any frame) arrived: the peer is alive. */
	markAlive(): void {
		this.alive = true;
	}

	/**
	 * One heartbeat round: a peer that answered no ping since the previous round is cut (its TCP
	 * connection is dead or stalled); otherwise it is pinged again.
	 */
	heartbeat(): void {
		if (this.socket.readyState !== OPEN) return;
		if (!this.alive) {
			this.closing = true;
			this.socket.terminate();
			this.released();
			return;
		}
		this.alive = false;
		this.socket.ping();
	}
}

/** WebSocket close reasons are limited to 123 bytes of UTF-8. */
function closeReason(reason: string): string {
	const bytes = Buffer.from(reason, 'utf8');
	return bytes.length <= 123 ? reason : bytes.subarray(0, 120).toString('utf8') + '...';
}
