/**
 * The decode worker's logic, independent of the worker global so Node tests drive it: it owns
 * the `/stream` socket (reconnecting with backoff, restoring the page's subscriptions after a
 * reconnect), decodes every binary frame, and posts columnar updates with their buffers as
 * transferables as soon as it has read what had arrived: the first frame of a batch schedules
 * a flush on a 0 ms timer, and every frame read before it runs joins that batch (newest per
 * group). No animation-frame wait here: the page paints in its own next frame anyway, and a
 * worker frame before it cost up to 16 ms more (tick-to-pixel, issue 26). Under load the batches
 * grow by themselves (frames queue while the worker decodes), so the page never gets more posts
 * than the worker has turns. A corrupt or unknown frame is counted and
 * skipped; nothing a frame contains can throw out of here. In cluster mode frames carry a
 * sequence: after a reconnect the worker asks to resume after the last one it had, so the
 * relay replays what it missed (and says where frames are missing).
 */
import { UpdateCoalescer } from './coalescer';
import { decodeRelayMessage } from './relayDecode';
import type { PageToWorker, StreamStats, WorkerToPage } from './messages';
import { parseRelayMessage, RESTARTING_CLOSE_CODE } from '../../relay/protocol';
import { relayFrameSeq } from '../../relay/relayFrame';
import { updateTransferables, type StreamUpdate } from './updates';

/** The part of a browser WebSocket the worker uses. */
export interface WorkerSocket {
	binaryType: string;
	readonly readyState: number;
	send(data: string): void;
	close(code?: number, reason?: string): void;
	onopen: ((ev: unknown) => void) | null;
	onmessage: ((ev: { data: unknown }) => void) | null;
	onclose: ((ev: { code?: number; reason?: string }) => void) | null;
	onerror: ((ev: unknown) => void) | null;
}

export interface WorkerCoreDeps {
	post(message: WorkerToPage, transfer?: ArrayBuffer[]): void;
	openSocket(url: string): WorkerSocket;
	now(): number;
	/** Wall clock in ms, sub-millisecond (the worker's timeOrigin + now): latency stamps. */
	wallClock?(): number;
	setTimer(fn: () => void, ms: number): unknown;
	clearTimer(handle: unknown): void;
	random?: () => number;
}

/** Where updates are recorded before they are transferred away (the IndexedDB ring). */
export interface UpdateSink {
	record(update: StreamUpdate): void;
}

const OPEN = 1;

export class StreamWorkerCore {
	readonly stats: StreamStats = {
		frames: 0,
		corrupt: 0,
		unknown: 0,
		superseded: 0,
		posted: 0,
		decodeMs: 0
	};
	private readonly coalescer = new UpdateCoalescer();
	/** What the page wants, re-sent after every reconnect. */
	private readonly wanted = new Set<string>();
	private socket: WorkerSocket | undefined;
	private url: string | undefined;
	private attempt = 0;
	private retry: unknown;
	private closed = false;
	/** Requests sent before the socket opened. */
	private readonly outbox: string[] = [];
	private recorder: UpdateSink | undefined;
	/** Wall clock of the first frame since the last flush (where a frame's latency goes). */
	private batchReceivedAt: number | undefined;
	/** A flush is scheduled (the first pending update of a batch asked for it). */
	private flushScheduled = false;
	/** The sequence of the last frame received (cluster mode): a reconnect resumes after it. */
	private lastSeq: string | undefined;

	constructor(private readonly deps: WorkerCoreDeps) {}

	handle(msg: PageToWorker): void {
		switch (msg.type) {
			case 'connect':
				this.closed = false;
				this.url = msg.url;
				this.attempt = 0;
				this.open();
				return;
			case 'subscribe':
				for (const g of msg.groups) this.wanted.add(g);
				this.send({ type: 'subscribe', id: msg.id, groups: msg.groups });
				return;
			case 'unsubscribe':
				for (const g of msg.groups) this.wanted.delete(g);
				this.coalescer.forget(msg.groups);
				this.send({ type: 'unsubscribe', id: msg.id, groups: msg.groups });
				return;
			case 'status':
			case 'takeBack':
				this.send({ type: msg.type, id: msg.id });
				return;
			case 'inject':
				this.onBinary(new Uint8Array(msg.frame));
				return;
			case 'close':
				this.closed = true;
				this.deps.clearTimer(this.retry);
				this.socket?.close(1000, 'page closed the stream');
				this.socket = undefined;
				return;
		}
	}

	/** Records every posted update from now on (the ring opens asynchronously). */
	setRecorder(recorder: UpdateSink | undefined): void {
		this.recorder = recorder;
	}

	/** Posts the coalesced updates (the scheduled flush; tests call it directly). */
	flush(): void {
		this.flushScheduled = false;
		const updates = this.coalescer.flush();
		this.stats.superseded = this.coalescer.superseded;
		if (updates.length === 0) return;
		if (this.recorder) {
			for (const u of updates) {
				try {
					this.recorder.record(u);
				} catch {
					// A failing ring must not stop the live view.
				}
			}
		}
		// After recording: transferring detaches the arrays' buffers here.
		const transfer = updates.flatMap(updateTransferables);
		this.stats.posted += updates.length;
		const receivedAt = this.batchReceivedAt;
		this.batchReceivedAt = undefined;
		const postedAt = this.deps.wallClock?.();
		this.deps.post({ type: 'updates', updates, receivedAt, postedAt }, transfer);
	}

	postStats(): void {
		this.deps.post({ type: 'stats', stats: { ...this.stats } });
	}

	/** One binary message from the relay. Never throws. */
	onBinary(bytes: Uint8Array): void {
		this.stats.frames++;
		this.lastSeq = relayFrameSeq(bytes) ?? this.lastSeq;
		this.batchReceivedAt ??= this.deps.wallClock?.();
		const started = this.deps.now();
		const outcome = decodeRelayMessage(bytes);
		this.stats.decodeMs += this.deps.now() - started;
		if (!outcome.ok) {
			if (outcome.reason === 'unknown') this.stats.unknown++;
			else this.stats.corrupt++;
			this.stats.lastError = outcome.error;
			return;
		}
		// Frames of groups the page dropped may still be in flight.
		const u = outcome.update;
		if (u.kind !== 'spot' && !this.wanted.has(u.group)) return;
		this.coalescer.push(u);
		if (!this.flushScheduled) {
			this.flushScheduled = true;
			this.deps.setTimer(() => this.flush(), 0);
		}
	}

	private send(request: object): void {
		const text = JSON.stringify(request);
		if (this.socket?.readyState === OPEN) this.socket.send(text);
		else if (this.outbox.length < 100) this.outbox.push(text);
	}

	private open(): void {
		if (!this.url || this.closed) return;
		this.deps.clearTimer(this.retry);
		this.socket?.close(1000, 'reconnecting');
		this.deps.post({ type: 'connection', state: 'connecting' });
		let socket: WorkerSocket;
		try {
			socket = this.deps.openSocket(this.url);
		} catch (e) {
			this.scheduleReconnect(String(e));
			return;
		}
		this.socket = socket;
		socket.binaryType = 'arraybuffer';
		socket.onopen = () => {
			this.attempt = 0;
			this.deps.post({ type: 'connection', state: 'open' });
			// A fresh relay connection knows nothing of this page: restore its groups first, and
			// resume after the last frame had (the relay replays the missed ones).
			if (this.wanted.size > 0) {
				const after = this.lastSeq === undefined ? {} : { after: this.lastSeq };
				socket.send(JSON.stringify({ type: 'subscribe', groups: [...this.wanted], ...after }));
			}
			// Queued requests go out as they were (a repeated subscribe changes nothing upstream,
			// and the page is waiting for their replies by id).
			for (const text of this.outbox.splice(0)) socket.send(text);
		};
		socket.onmessage = (ev) => {
			const data = ev.data;
			if (typeof data === 'string') {
				const parsed = parseRelayMessage(data);
				if (parsed.ok) this.deps.post({ type: 'relay', message: parsed.message });
				else {
					this.stats.unknown++;
					this.stats.lastError = parsed.error;
				}
			} else if (data instanceof ArrayBuffer) this.onBinary(new Uint8Array(data));
			else if (ArrayBuffer.isView(data)) {
				this.onBinary(new Uint8Array(data.buffer, data.byteOffset, data.byteLength));
			} else this.stats.unknown++;
		};
		socket.onclose = (ev) => {
			if (this.socket !== socket) return;
			this.socket = undefined;
			if (ev.code === RESTARTING_CLOSE_CODE) {
				// A graceful restart, not a failure: retry from the shortest delay, groups restored.
				this.attempt = 0;
				this.scheduleReconnect('dashboard restarting; reconnecting');
				return;
			}
			this.scheduleReconnect(ev.reason || `closed (${ev.code ?? '?'})`);
		};
		socket.onerror = () => undefined; // onclose follows and decides
	}

	private scheduleReconnect(detail: string): void {
		if (this.closed) return;
		const step = Math.min(30_000, 500 * 2 ** this.attempt++);
		const delay = step / 2 + ((this.deps.random ?? Math.random)() * step) / 2;
		this.deps.post({ type: 'connection', state: 'closed', retryInMs: Math.round(delay), detail });
		this.retry = this.deps.setTimer(() => this.open(), delay);
	}
}
