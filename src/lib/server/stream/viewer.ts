/**
 * One viewer (a tab or device) connected to `/stream`: its socket, and a bounded, latest-only
 * queue per group. While the socket's send buffer is above the high-water mark, a new frame of
 * a group replaces the one waiting for that group (the older is dropped and counted), so a slow
 * viewer costs at most one pending frame per group, never unbounded memory. Replies to its
 * control messages respect the same mark: past it, the viewer is closed.
 */
import type { RelayMessage } from '../../relay/protocol';

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

export class Viewer {
	/** Frames waiting for the buffer to drain: group -> latest frame. */
	private readonly pending = new Map<string, Uint8Array>();
	sent = 0;
	/** Frames replaced by a newer one of the same group before they could be sent. */
	dropped = 0;

	constructor(
		readonly id: number,
		private readonly socket: ViewerSocket,
		/** Who the viewer is, for logs and status (e.g. the session or the remote address). */
		readonly label: string,
		private readonly highWater = DEFAULT_VIEWER_HIGH_WATER
	) {}

	get isOpen(): boolean {
		return this.socket.readyState === OPEN;
	}

	get pendingCount(): number {
		return this.pending.size;
	}

	/** Queues or sends one relay frame of `group`. */
	deliver(group: string, frame: Uint8Array): void {
		if (!this.isOpen) return;
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
