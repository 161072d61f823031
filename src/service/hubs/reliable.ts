/**
 * The reliable JSON subprotocol (`json.reliable.webpubsub.azure.v1`, the Azure SDKs' default) on
 * the hubs: every data message a connection receives is numbered (`sequenceId`, +1 per message),
 * kept until the client acknowledges it (`sequenceAck`, cumulative), and a connection whose
 * socket drops stays alive for the recovery window: a client that reconnects to its hub URL with
 * `awps_connection_id` and `awps_reconnection_token` gets the same connection back (groups,
 * slot, sequence) and every message after its last ack, in order.
 *
 * Memory: the resend buffer holds references to the per-tick envelopes the fan-out shares among
 * all members of a group, bounded per connection (`maxResendBytes`). A client that never acks
 * keeps streaming; its oldest messages are dropped from the buffer, and a later recovery that
 * would need them is refused (close 1008: the client negotiates anew), as is a recovery after the
 * window. A dropped connection's buffer past the bound ends the connection at once, and so does
 * a client's own close (any close frame): only a drop is recovered.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import {
	connectedMessage,
	RECOVERY_CONNECTION_PARAM,
	RECOVERY_TOKEN_PARAM,
	SUPPORTED_SUBPROTOCOLS,
	withSequenceId
} from '../../lib/contract/pubsub';
import { HubConnection, POLICY_CLOSE, type ConnectionInit, type SocketLike } from './connection';

/** How long a dropped reliable connection may be resumed (the SDKs retry for 30 s). */
export const RECOVERY_WINDOW_MS = 30_000;
/**
 * Default bound of one connection's resend buffer. At 150 memberships the feed is a few hundred
 * KB a second; the SDKs ack every second, so a live client holds about one second of it and a
 * dropped one several seconds of the feed before it can no longer be resumed.
 */
export const DEFAULT_MAX_RESEND_BYTES = 8 * 1024 * 1024;

const OPEN = 1;

export interface ReliableInit extends ConnectionInit {
	registry: ReliableRegistry;
	maxResendBytes?: number;
	recoveryWindowMs?: number;
}

interface Held {
	sequenceId: number;
	/** The fan-out's envelope (shared by every member of the group this tick). */
	envelope: string;
}

export class ReliableConnection extends HubConnection {
	reconnectionToken = newToken();
	/** Messages numbered so far (the last sequenceId handed out). */
	sequenceId = 0;
	/** Highest sequenceId the client acknowledged. */
	acked = 0;
	/** Bytes of envelopes referenced by the resend buffer. */
	heldBytes = 0;
	/** Resumptions served (tests and bench read it). */
	resumes = 0;
	private held: Held[] = [];
	private head = 0;
	/** Every sequenceId <= floor is gone from the buffer (acked, or dropped by the bound). */
	private floor = 0;
	private suspended = false;
	/** Close code of the current socket's close frame from the client, when one came. */
	private peerCloseCode: number | undefined;
	private policyClosed = false;
	private finished = false;
	private expiry: ReturnType<typeof setTimeout> | undefined;
	private readonly registry: ReliableRegistry;
	private readonly maxResend: number;
	private readonly windowMs: number;

	constructor(socket: SocketLike, init: ReliableInit) {
		super(socket, init);
		this.registry = init.registry;
		this.maxResend = init.maxResendBytes ?? DEFAULT_MAX_RESEND_BYTES;
		this.windowMs = init.recoveryWindowMs ?? RECOVERY_WINDOW_MS;
		this.registry.add(this);
		this.watch(socket);
	}

	/**
	 * Notes how the client closed: a close frame (1000, 1001, or 1005 without a status: the SDK's
	 * stop()) is a goodbye and ends the connection; no close frame (1006) is a drop to recover
	 * from.
	 */
	private watch(socket: SocketLike): void {
		const emitter = socket as SocketLike & {
			on?: (event: 'close', fn: (code: number) => void) => unknown;
		};
		emitter.on?.('close', (code: number) => {
			if (socket === this.socket) this.peerCloseCode = code;
		});
	}

	/** The first frame on every (re)connect: carries the token of the next recovery. */
	connectedText(): string {
		return JSON.stringify(
			connectedMessage(this.connectionId, this.account, this.reconnectionToken)
		);
	}

	/** Messages kept for resending. */
	get heldCount(): number {
		return this.held.length - this.head;
	}

	/** Dropped, and still resumable. */
	get isSuspended(): boolean {
		return this.suspended && !this.finished;
	}

	override get receiving(): boolean {
		return !this.finished && (this.isOpen || this.suspended);
	}

	override deliver(envelope: string): boolean {
		if (this.finished) return false;
		const sequenceId = ++this.sequenceId;
		this.held.push({ sequenceId, envelope });
		this.heldBytes += envelope.length;
		this.trim();
		if (this.finished) return false;
		// While dropped the message waits in the buffer for the recovery.
		if (this.suspended) return true;
		return this.send(withSequenceId(envelope, sequenceId));
	}

	/** A cumulative `sequenceAck`: everything up to `sequenceId` arrived. */
	ack(sequenceId: number): void {
		const upTo = Math.min(sequenceId, this.sequenceId);
		if (upTo <= this.acked) return;
		this.acked = upTo;
		while (this.head < this.held.length && this.held[this.head].sequenceId <= upTo) {
			this.heldBytes -= this.held[this.head].envelope.length;
			this.head++;
		}
		this.floor = Math.max(this.floor, upTo);
		this.compact();
	}

	/** Can a recovery continue this connection without a gap? */
	get resumable(): boolean {
		return !this.finished && !this.policyClosed && this.floor <= this.acked;
	}

	/**
	 * Adopts the socket of a recovery: the `connected` message again (same connectionId, a new
	 * token), then every kept message in order. A socket of ours that still looks open (the
	 * client noticed the drop first) is cut.
	 */
	resume(socket: SocketLike): void {
		const old = this.socket;
		clearTimeout(this.expiry);
		this.expiry = undefined;
		this.socket = socket;
		this.peerCloseCode = undefined;
		this.watch(socket);
		this.suspended = false;
		this.closing = false;
		this.alive = true;
		this.resumes++;
		if (old !== socket && old.readyState <= OPEN) old.terminate();
		this.reconnectionToken = newToken();
		this.send(this.connectedText());
		for (let i = this.head; i < this.held.length && this.isOpen; i++) {
			const m = this.held[i];
			this.send(withSequenceId(m.envelope, m.sequenceId));
		}
	}

	override close(reason: string, code = POLICY_CLOSE, notify = true): void {
		this.policyClosed = true;
		if (this.suspended) {
			this.finish();
			return;
		}
		super.close(reason, code, notify);
	}

	/**
	 * The socket is gone. Our own close (session replaced, slow reader, shutdown) ends the
	 * connection; a drop suspends it for the recovery window. The close event of a socket that a
	 * recovery already replaced finds the new socket open and changes nothing.
	 */
	override released(): void {
		if (this.finished) return;
		// Any code but 1006 (no close frame) means the client closed on purpose.
		const goodbye = this.peerCloseCode !== undefined && this.peerCloseCode !== 1006;
		if (this.policyClosed || goodbye) {
			this.finish();
			return;
		}
		if (!this.closing && this.socket.readyState === OPEN) return;
		this.suspend();
	}

	private suspend(): void {
		if (this.suspended) return;
		this.suspended = true;
		this.closing = true;
		if (!this.resumable) {
			this.finish();
			return;
		}
		this.expiry = setTimeout(() => this.finish(), this.windowMs);
		this.expiry.unref?.();
	}

	/** The connection is over for good: it leaves its slot and the recovery registry. */
	private finish(): void {
		if (this.finished) return;
		this.finished = true;
		this.suspended = false;
		clearTimeout(this.expiry);
		this.expiry = undefined;
		this.held = [];
		this.head = 0;
		this.heldBytes = 0;
		this.registry.remove(this);
		super.released();
	}

	/** Drops the oldest messages past the byte bound (their recovery is then impossible). */
	private trim(): void {
		while (this.heldBytes > this.maxResend && this.head < this.held.length - 1) {
			const dropped = this.held[this.head++];
			this.heldBytes -= dropped.envelope.length;
			this.floor = dropped.sequenceId;
		}
		this.compact();
		if (this.suspended && !this.resumable) this.finish();
	}

	/** Keeps the array from growing at its head: shift in bulk once half of it is consumed. */
	private compact(): void {
		if (this.head > 64 && this.head * 2 > this.held.length) {
			this.held = this.held.slice(this.head);
			this.head = 0;
		}
	}

	/** Constant-time check of a presented reconnection token. */
	tokenMatches(token: string): boolean {
		const a = Buffer.from(token);
		const b = Buffer.from(this.reconnectionToken);
		return a.length === b.length && timingSafeEqual(a, b);
	}
}

export type RecoveryClaim = { ok: true; conn: ReliableConnection } | { ok: false; reason: string };

/** Live and suspended reliable connections by connectionId, for recoveries. */
export class ReliableRegistry {
	private readonly byId = new Map<string, ReliableConnection>();

	add(conn: ReliableConnection): void {
		this.byId.set(conn.connectionId, conn);
	}

	remove(conn: ReliableConnection): void {
		if (this.byId.get(conn.connectionId) === conn) this.byId.delete(conn.connectionId);
	}

	get size(): number {
		return this.byId.size;
	}

	connections(): IterableIterator<ReliableConnection> {
		return this.byId.values();
	}

	/** The connection a recovery on `hub` may continue, or why not (sent as the 1008 reason). */
	claim(connectionId: string, token: string, hub: string): RecoveryClaim {
		const conn = this.byId.get(connectionId);
		if (!conn || conn.hub !== hub || !conn.tokenMatches(token)) {
			return { ok: false, reason: 'Connection cannot be recovered: negotiate again.' };
		}
		if (!conn.resumable) {
			return {
				ok: false,
				reason: 'Connection cannot be recovered: unacknowledged messages were dropped.'
			};
		}
		return { ok: true, conn };
	}
}

/** The recovery parameters of an upgrade URL, when both are present. */
export function recoveryParams(url: URL): { connectionId: string; token: string } | undefined {
	const connectionId = url.searchParams.get(RECOVERY_CONNECTION_PARAM);
	const token = url.searchParams.get(RECOVERY_TOKEN_PARAM);
	return connectionId && token ? { connectionId, token } : undefined;
}

/** The 400 text for an offer of subprotocols none of which the hubs speak. */
export function subprotocolRefusal(offered: readonly string[]): string {
	const named = offered.filter((p) => p !== '');
	return (
		`${named.length > 0 ? `Subprotocol ${named.join(', ')} is not supported` : 'No subprotocol was requested'}: ` +
		`use one of ${SUPPORTED_SUBPROTOCOLS.join(', ')}.`
	);
}

function newToken(): string {
	return randomBytes(24).toString('base64url');
}
