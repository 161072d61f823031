/**
 * ResumableHub: one upstream hub connection that survives a short network blip. It offers the
 * reliable JSON subprotocol first (the plain one as fallback): when the upstream takes it, every
 * group message carries a sequenceId, the hub acknowledges them (cumulative `sequenceAck` about
 * once a second), and after a drop it reconnects to the same URL with `awps_connection_id` and
 * `awps_reconnection_token`: the upstream continues the same connection and resends what was not
 * acknowledged, so the relay sees every frame once, in order, with no new negotiation.
 *
 * Only when recovery is impossible (plain protocol, close code 1008, the slot taken, a refused
 * upgrade, or the recovery window over) does the relay hear `onEnd`, exactly as from a
 * HubSocket; it then reconnects or negotiates as before.
 */
import {
	RECOVERY_CONNECTION_PARAM,
	RECOVERY_TOKEN_PARAM,
	WEBPUBSUB_RELIABLE_SUBPROTOCOL,
	WEBPUBSUB_SUBPROTOCOL
} from '../../contract/pubsub';
import { HubSocket, type HubEnd, type HubSocketHandlers } from './hubSocket';

/** A ResumableHub's handlers: a HubSocket's, plus what the relay tells its viewers meanwhile. */
export interface ResumableHandlers extends HubSocketHandlers {
	/** Dropped and being recovered (called at the drop and after each failed attempt). */
	onRecovering?(end: HubEnd): void;
	/** Recovered: the same upstream connection continues on a new socket. */
	onResumed?(): void;
}

export interface ResumableOptions {
	userAgent: string;
	handshakeTimeoutMs?: number;
	pingIntervalMs?: number;
	/** How long recovery is attempted after a drop (the service keeps a connection 30 s). */
	recoveryWindowMs?: number;
	/** Delay between recovery attempts (the SDKs use 1 s). */
	retryDelayMs?: number;
	/** Interval of sequence acks (the SDKs ack once a second). */
	ackIntervalMs?: number;
	/** Offer the reliable protocol (default true). */
	reliable?: boolean;
}

/** Close code with which the upstream says a connection cannot be recovered. */
const NOT_RECOVERABLE = 1008;

export class ResumableHub {
	/** Resolves at the first `connected` message; rejects if the first connection ends before. */
	readonly ready: Promise<void>;
	/** Successful recoveries (the same upstream connection on a new socket). */
	resumes = 0;
	/** Resent messages that had arrived before the drop, skipped by sequenceId. */
	duplicates = 0;
	private current: HubSocket;
	private connectionId: string | undefined;
	private token: string | undefined;
	/** The upstream greeted on the reliable subprotocol (a failed recovery attempt has none). */
	private reliableProtocol = false;
	private lastSequenceId = 0;
	private ackedSequenceId = 0;
	private recovering = false;
	private recoveryDeadline = 0;
	/** How the connection dropped (what the relay hears should recovery fail). */
	private dropEnd: HubEnd | undefined;
	private retryTimer: ReturnType<typeof setTimeout> | undefined;
	private readonly ackTimer: ReturnType<typeof setInterval>;
	private closed = false;
	private ended = false;

	constructor(
		readonly hub: string,
		private readonly url: string,
		private readonly handlers: ResumableHandlers,
		private readonly options: ResumableOptions
	) {
		this.current = this.open(url);
		this.ready = this.current.ready;
		this.ackTimer = setInterval(() => this.ack(), options.ackIntervalMs ?? 1000);
		this.ackTimer.unref?.();
	}

	/** Open, or dropped and being recovered (the upstream still holds the connection). */
	get isOpen(): boolean {
		return !this.ended && (this.current.isOpen || this.recovering);
	}

	/** Whether the upstream took the reliable subprotocol (only then is a drop recovered). */
	get reliable(): boolean {
		return this.reliableProtocol;
	}

	get skipped(): number {
		return this.current.skipped;
	}

	/** Our own close: no onEnd callback. */
	close(): void {
		this.closed = true;
		this.stop();
		this.current.close();
	}

	/** A hard cut of the current socket (tests). */
	terminate(): void {
		this.current.terminate();
	}

	private open(url: string): HubSocket {
		const socket: HubSocket = new HubSocket(
			this.hub,
			url,
			{
				onGroupData: (group, any, sequenceId) => {
					if (sequenceId !== undefined) {
						// A resent message that arrived before the drop: seen already.
						if (sequenceId <= this.lastSequenceId) {
							this.duplicates++;
							return;
						}
						this.lastSequenceId = sequenceId;
					}
					this.handlers.onGroupData(group, any, sequenceId);
				},
				onConnected: (m) => {
					this.reliableProtocol = socket.protocol === WEBPUBSUB_RELIABLE_SUBPROTOCOL;
					this.connectionId = m.connectionId;
					this.token = m.reconnectionToken;
					if (this.recovering) {
						this.recovering = false;
						this.dropEnd = undefined;
						this.resumes++;
						// The upstream resends from our last ack: tell it what we have at once.
						this.ackedSequenceId = 0;
						this.ack();
						this.handlers.onResumed?.();
					}
				},
				onEnd: (end) => {
					if (socket !== this.current || this.closed) return;
					this.onSocketEnd(end);
				}
			},
			{
				userAgent: this.options.userAgent,
				handshakeTimeoutMs: this.options.handshakeTimeoutMs,
				pingIntervalMs: this.options.pingIntervalMs,
				protocols:
					this.options.reliable === false
						? [WEBPUBSUB_SUBPROTOCOL]
						: [WEBPUBSUB_RELIABLE_SUBPROTOCOL, WEBPUBSUB_SUBPROTOCOL]
			}
		);
		return socket;
	}

	private onSocketEnd(end: HubEnd): void {
		const recoverable =
			this.reliableProtocol &&
			this.token !== undefined &&
			this.connectionId !== undefined &&
			!end.slotTaken &&
			end.code !== NOT_RECOVERABLE &&
			// A refused upgrade (401: superseded, ...) will not get better by retrying.
			end.refusedStatus === undefined;
		if (!recoverable) {
			this.finish(
				this.dropEnd ? { ...this.dropEnd, reason: `${this.dropEnd.reason}; ${end.reason}` } : end
			);
			return;
		}
		const now = Date.now();
		if (!this.recovering || now < this.recoveryDeadline) this.handlers.onRecovering?.(end);
		if (!this.recovering) {
			this.recovering = true;
			this.dropEnd = end;
			this.recoveryDeadline = now + (this.options.recoveryWindowMs ?? 25_000);
			// The first attempt at once: most drops are one dead TCP connection.
			this.retryTimer = setTimeout(() => this.attempt(end), 0);
		} else if (now >= this.recoveryDeadline) {
			this.finish(this.dropEnd!);
		} else {
			this.retryTimer = setTimeout(
				() => this.attempt(this.dropEnd!),
				this.options.retryDelayMs ?? 1000
			);
		}
		this.retryTimer?.unref?.();
	}

	private attempt(lastEnd: HubEnd): void {
		this.retryTimer = undefined;
		if (this.closed || this.ended) return;
		if (Date.now() >= this.recoveryDeadline) {
			this.finish(lastEnd);
			return;
		}
		const url = new URL(this.url);
		url.searchParams.set(RECOVERY_CONNECTION_PARAM, this.connectionId!);
		url.searchParams.set(RECOVERY_TOKEN_PARAM, this.token!);
		this.current = this.open(url.toString());
	}

	private ack(): void {
		if (this.lastSequenceId <= this.ackedSequenceId || !this.current.isOpen) return;
		if (this.current.send(`{"type":"sequenceAck","sequenceId":${this.lastSequenceId}}`)) {
			this.ackedSequenceId = this.lastSequenceId;
		}
	}

	private finish(end: HubEnd): void {
		if (this.ended) return;
		this.stop();
		this.ended = true;
		this.recovering = false;
		// The relay hears it as a drop of an open hub when the first connection had greeted.
		this.handlers.onEnd({ ...end, wasOpen: end.wasOpen || this.connectionId !== undefined });
	}

	private stop(): void {
		clearInterval(this.ackTimer);
		clearTimeout(this.retryTimer);
		this.retryTimer = undefined;
	}
}
