/**
 * The page's handle on live streaming: starts the decode worker (in the browser only), relays
 * requests to it and matches the relay's replies by id, hands updates to listeners, and
 * restarts the worker if it dies (its subscriptions are re-sent to the new one).
 */
import type { PageToWorker, StreamStats, WorkerToPage, ConnectionState } from './messages';
import { STREAM_PATH, type RelayMessage, type StatusMessage } from '../../relay/protocol';
import type { StreamUpdate } from './updates';
import { latencyArrival, markPaintedFrame } from './latencyMarks';

export interface StreamClientOptions {
	/** `/stream` URL; default: same origin as the page (ws/wss by its scheme). */
	url?: string;
	/** Creates the worker; default the module worker beside this file (tests inject fakes). */
	createWorker?: () => Worker;
	/** Called with each batch of coalesced updates (at most one per group per batch). */
	onUpdates?: (updates: StreamUpdate[]) => void;
	/** Relay status (mode, slot state, memberships used out of the limit). */
	onStatus?: (status: StatusMessage) => void;
	onConnection?: (state: ConnectionState, detail?: string) => void;
	onStats?: (stats: StreamStats) => void;
	/** Messages the relay pushes on its own (revoked groups, errors). */
	onRelayMessage?: (message: RelayMessage) => void;
	/** Restart delay after a worker died (default 1 s, doubling to 30 s). */
	restartDelayMs?: number;
}

export interface StreamClient {
	subscribe(groups: string[]): Promise<RelayMessage>;
	unsubscribe(groups: string[]): Promise<RelayMessage>;
	status(): Promise<RelayMessage>;
	/** After another program took the slot: the user's explicit request to take it back. */
	takeBack(): Promise<RelayMessage>;
	/** Sends raw bytes through the worker's decode path as if the relay had (diagnostics). */
	inject(frame: ArrayBuffer): void;
	/** Worker restarts so far. */
	readonly restarts: number;
	close(): void;
}

/** A page-to-worker message the relay answers, before its id is assigned. */
type RelayRequest =
	Extract<PageToWorker, { id: number }> extends infer T
		? T extends unknown
			? Omit<T, 'id'>
			: never
		: never;

function defaultUrl(): string {
	const { protocol, host } = globalThis.location;
	return `${protocol === 'https:' ? 'wss:' : 'ws:'}//${host}${STREAM_PATH}`;
}

export function createStreamClient(options: StreamClientOptions = {}): StreamClient {
	if (typeof Worker === 'undefined' && !options.createWorker) {
		throw new Error('createStreamClient runs in the browser only (no Worker here)');
	}
	const url = options.url ?? defaultUrl();
	const create =
		options.createWorker ??
		(() => new Worker(new URL('./worker.ts', import.meta.url), { type: 'module' }));
	const wanted = new Set<string>();
	const waiting = new Map<number, (m: RelayMessage) => void>();
	let nextId = 1;
	let restarts = 0;
	let closed = false;
	let worker: Worker;
	let restartTimer: ReturnType<typeof setTimeout> | undefined;

	const onMessage = (ev: MessageEvent<WorkerToPage>) => {
		const m = ev.data;
		switch (m.type) {
			case 'updates': {
				const arrivedAt = latencyArrival();
				options.onUpdates?.(m.updates);
				markPaintedFrame(m, arrivedAt);
				return;
			}
			case 'relay': {
				const id = 'id' in m.message ? m.message.id : undefined;
				const resolve = id === undefined ? undefined : waiting.get(id);
				if (resolve) {
					waiting.delete(id!);
					resolve(m.message);
				}
				if (m.message.type === 'status') options.onStatus?.(m.message);
				else if (!resolve) options.onRelayMessage?.(m.message);
				return;
			}
			case 'connection':
				options.onConnection?.(m.state, m.detail);
				return;
			case 'stats':
				options.onStats?.(m.stats);
				return;
		}
	};

	const start = () => {
		worker = create();
		worker.onmessage = onMessage;
		worker.onerror = (ev) => {
			ev.preventDefault?.();
			died();
		};
		worker.onmessageerror = () => died();
		post({ type: 'connect', url });
		if (wanted.size > 0) post({ type: 'subscribe', id: nextId++, groups: [...wanted] });
	};

	const died = () => {
		if (closed || restartTimer) return;
		worker.terminate();
		const delay = Math.min(30_000, (options.restartDelayMs ?? 1000) * 2 ** Math.min(restarts, 5));
		restarts++;
		options.onConnection?.('closed', 'decode worker stopped; restarting');
		restartTimer = setTimeout(() => {
			restartTimer = undefined;
			start();
		}, delay);
	};

	const post = (m: PageToWorker, transfer: Transferable[] = []) => worker.postMessage(m, transfer);

	const request = (m: RelayRequest): Promise<RelayMessage> => {
		const id = nextId++;
		return new Promise((resolve) => {
			waiting.set(id, resolve);
			post({ ...m, id } as PageToWorker);
		});
	};

	start();

	return {
		subscribe(groups) {
			for (const g of groups) wanted.add(g);
			return request({ type: 'subscribe', groups });
		},
		unsubscribe(groups) {
			for (const g of groups) wanted.delete(g);
			return request({ type: 'unsubscribe', groups });
		},
		status: () => request({ type: 'status' }),
		takeBack: () => request({ type: 'takeBack' }),
		inject(frame) {
			post({ type: 'inject', frame }, [frame]);
		},
		get restarts() {
			return restarts;
		},
		close() {
			closed = true;
			clearTimeout(restartTimer);
			post({ type: 'close' });
			worker.terminate();
		}
	};
}
