/**
 * One viewer (a tab or device) connected to `/stream`: its socket, and a bounded, latest-only
 * queue per group. While the socket's send buffer is above the high-water mark, a new frame of
 * a group replaces the one waiting for that group (the older is dropped and counted), so a slow
 * viewer costs at most one pending frame per group, never unbounded memory. Replies to its
 * control messages respect the same mark: past it, the viewer is closed.
 *
 * In cluster mode frames carry a sequence (the Redis Stream id): a frame no later than the last
 * one sent is a duplicate and is dropped, and while the viewer resumes (its missed frames are
 * replayed from the stream) live frames wait in a bounded list and follow the replay.
 */
import type { RelayMessage } from '../../relay/protocol';
import { compareIds } from '../cluster/slotStream';

/** What the relay needs of a viewer's socket (`ws`'s WebSocket satisfies it). */
export interface ViewerSocket {
	readonly readyState: number;
	readonly bufferedAmount: number;
	send(data: Uint8Array | string, cb?: (err?: Error) => void): void;
	close(code?: number, reason?: string): void;
	/** Drops the connection at once (no close handshake waiting behind unread data). */
	terminate?(): void;
}

const OPEN = 1;
/** Close code for a viewer that lets replies pile up (1008: policy violation). */
export const NOT_READING_CLOSE_CODE = 1008;
/** Default bytes a viewer may have in flight before frames start to be coalesced. */
export const DEFAULT_VIEWER_HIGH_WATER = 1024 * 1024;
/** Live frames held back while a viewer's replay is read (past it, a reported gap). */
export const MAX_HELD_WHILE_RESUMING = 20_000;

interface Held {
	group: string;
	frame: Uint8Array;
	seq: string;
}

export class Viewer {
	/** Frames waiting for the buffer to drain: group -> latest frame. */
	private readonly pending = new Map<string, Uint8Array>();
	sent = 0;
	/** Frames replaced by a newer one of the same group before they could be sent. */
	dropped = 0;
	/** The sequence of the last frame sent (cluster mode). */
	lastSeq: string | undefined;
	/** Live frames waiting while a replay is read; undefined when not resuming. */
	private held: Held[] | undefined;
	/** Live frames that did not fit in `held` (the resume reports them as a gap). */
	overflowed = 0;

	constructor(
		readonly id: number,
		private readonly socket: ViewerSocket,
		/** Who the viewer is, for logs and status (e.g. the session or the remote address). */
		readonly label: string,
		private readonly highWater = DEFAULT_VIEWER_HIGH_WATER,
		/** Whose share of the slot it is: a user, or the dashboard itself (usage/callShares.ts). */
		readonly owner = 'gexdeck'
	) {}

	get isOpen(): boolean {
		return this.socket.readyState === OPEN;
	}

	get pendingCount(): number {
		return this.pending.size;
	}

	/**
	 * Queues or sends one relay frame of `group`; with a sequence, a duplicate (no later than the
	 * last sent) is dropped, and while resuming the frame waits for the replay.
	 */
	deliver(group: string, frame: Uint8Array, seq?: string): void {
		if (!this.isOpen) return;
		if (seq !== undefined) {
			if (this.held) {
				if (this.held.length < MAX_HELD_WHILE_RESUMING) this.held.push({ group, frame, seq });
				else this.overflowed++;
				return;
			}
			if (this.lastSeq !== undefined && compareIds(seq, this.lastSeq) <= 0) return;
			this.lastSeq = seq;
		}
		if (this.socket.bufferedAmount > this.highWater || this.pending.size > 0) {
			if (this.pending.has(group)) this.dropped++;
			// Re-insert so the map's order is the order of the newest frames.
			this.pending.delete(group);
			this.pending.set(group, frame);
			if (this.socket.bufferedAmount <= this.highWater) this.flush();
			return;
		}
		this.write(frame);
	}

	/**
	 * Sends a JSON reply within the high-water mark: a viewer whose buffer is already above it
	 * is not reading (a flood of requests it does not collect), so it is closed instead of having
	 * the reply buffered without bound. Returns whether the reply was sent.
	 */
	sendMessage(message: RelayMessage): boolean {
		if (!this.isOpen) return false;
		if (this.socket.bufferedAmount > this.highWater) {
			// A close frame would wait behind the unread data: drop the connection instead.
			this.pending.clear();
			if (this.socket.terminate) this.socket.terminate();
			else this.socket.close(NOT_READING_CLOSE_CODE, 'Not reading its replies');
			return false;
		}
		this.socket.send(JSON.stringify(message));
		return true;
	}

	/** Start a resume after `seq`: live frames wait until endResume. */
	beginResume(seq: string): void {
		this.lastSeq = seq;
		this.held = [];
		this.overflowed = 0;
	}

	/** A replayed frame: sent in order, past the held live ones. */
	replay(group: string, frame: Uint8Array, seq: string): void {
		const held = this.held;
		this.held = undefined;
		this.deliver(group, frame, seq);
		this.held = held;
	}

	/** The replay is done: the live frames held meanwhile follow (duplicates dropped). */
	endResume(): void {
		const held = this.held ?? [];
		this.held = undefined;
		for (const h of held) this.deliver(h.group, h.frame, h.seq);
	}

	/** Drops any pending frames of groups the viewer no longer holds. */
	forget(groups: Iterable<string>): void {
		for (const g of groups) this.pending.delete(g);
	}

	close(code: number, reason: string): void {
		this.pending.clear();
		if (this.isOpen) this.socket.close(code, reason);
	}

	private write(frame: Uint8Array): void {
		this.sent++;
		// The callback runs when ws has handed the frame to the OS: a chance to drain the queue.
		this.socket.send(frame, () => {
			if (this.pending.size > 0 && this.socket.bufferedAmount <= this.highWater) this.flush();
		});
	}

	private flush(): void {
		for (const [group, frame] of this.pending) {
			if (!this.isOpen) {
				this.pending.clear();
				return;
			}
			if (this.socket.bufferedAmount > this.highWater) return;
			this.pending.delete(group);
			this.write(frame);
		}
	}
}
