/**
 * The page's side of a backfill: asks a decode worker for one recorded stream of a day (the
 * whole session so far by default) and resolves with its updates, decoded off the main thread.
 * Browser only.
 */
import type {
	BackfillProgress,
	BackfillReply,
	BackfillRequest,
	BackfillWorkerMessage
} from './backfillMessages';
import { backfillActivity } from './backfillActivity.svelte';
import type { StreamUpdate } from './updates';

export type BackfillResult = Extract<BackfillReply, { ok: true }>;

export interface BackfillQuery {
	/** `YYYY-MM-DD` (ET); default the newest recorded day. */
	day?: string;
	/** Unix seconds bounds, inclusive. */
	from?: number;
	to?: number;
	/** Merge the ticker's spot frames in arrival order. */
	withSpot?: boolean;
	/** Keep one record per this many seconds (a day overview). */
	step?: number;
	/** A day this server did not record is fetched from the service's history (Quant). */
	fromService?: boolean;
}

/**
 * The query of one session of a stream, as every time-aware view asks it: today's recording so
 * far (`day` null), or a past day — the server's recording of it, else (Quant) the service's
 * history of it, fetched once and kept in the same recording. `step`: one record per that many
 * seconds.
 */
export function sessionQuery(day: string | null, step?: number): BackfillQuery {
	const q: BackfillQuery = step ? { step } : {};
	return day === null ? q : { ...q, day, fromService: true };
}

export function backfillUrl(ticker: string, stream: string, q: BackfillQuery = {}): string {
	const params = new URLSearchParams();
	if (q.day) params.set('day', q.day);
	if (q.from !== undefined) params.set('from', String(q.from));
	if (q.to !== undefined) params.set('to', String(q.to));
	if (q.withSpot) params.set('with', 'spot');
	if (q.step) params.set('step', String(q.step));
	if (q.fromService) params.set('source', 'service');
	const search = params.toString();
	return `/history/${encodeURIComponent(ticker)}/${encodeURIComponent(stream)}${search ? `?${search}` : ''}`;
}

/** The days the server recorded this stream on, newest first (empty when it cannot say). */
export async function recordedDays(ticker: string, stream: string): Promise<string[]> {
	const res = await fetch(`/history/${encodeURIComponent(ticker)}`).catch(() => undefined);
	if (!res?.ok) return [];
	const body = (await res.json()) as { days: { day: string; streams: string[] }[] };
	return body.days.filter((d) => d.streams.includes(stream)).map((d) => d.day);
}

export class BackfillError extends Error {
	constructor(
		readonly status: number,
		message: string
	) {
		super(message);
	}
}

export type { BackfillProgress } from './backfillMessages';

export interface BackfillOptions {
	/** Called as the body streams in and decodes (the page's progress bar). */
	onProgress?: (progress: BackfillProgress) => void;
	/**
	 * Takes the updates batch by batch as they decode, in recorded order, each batch its own short
	 * task (a view fills its series progressively and never holds the page up with the whole day);
	 * the result's `updates` is then empty. Without it they all come in the result.
	 */
	onBatch?: (updates: StreamUpdate[]) => void;
}

interface Waiting {
	/** A batch of updates, with the progress so far (none for the reply's remainder). */
	take: (updates: StreamUpdate[], progress?: BackfillProgress) => void;
	/** The reply, its updates already handed to `take`. */
	finish: (reply: BackfillReply) => void;
}

let worker: Worker | undefined;
let nextId = 1;
const waiting = new Map<number, Waiting>();

function backfillWorker(): Worker {
	if (!worker) {
		worker = new Worker(new URL('./backfillWorker.ts', import.meta.url), { type: 'module' });
		worker.onmessage = (ev: MessageEvent<BackfillWorkerMessage>) => {
			const message = ev.data;
			const w = waiting.get(message.id);
			if (!w) return;
			if ('batch' in message) return w.take(message.updates, message.progress);
			waiting.delete(message.id);
			if (message.ok) w.take(message.updates);
			w.finish(message);
		};
		worker.onerror = (ev) => {
			ev.preventDefault?.();
			for (const [id, w] of waiting) {
				w.finish({ id, ok: false, status: 0, error: 'backfill worker failed' });
			}
			waiting.clear();
			worker?.terminate();
			worker = undefined;
		};
	}
	return worker;
}

/**
 * Fetches and decodes a backfill in the worker; rejects with BackfillError (404 = none yet).
 * While it loads, `backfillActivity` (and `options.onProgress`) say how far it is.
 */
export function fetchBackfill(
	ticker: string,
	stream: string,
	query: BackfillQuery = {},
	options: BackfillOptions = {}
): Promise<BackfillResult> {
	const id = nextId++;
	const url = new URL(backfillUrl(ticker, stream, query), location.href).href;
	backfillActivity.begin(id, ticker, stream);
	return new Promise((resolve, reject) => {
		const held: StreamUpdate[][] = [];
		waiting.set(id, {
			take: (updates, progress) => {
				if (!options.onBatch) held.push(updates);
				else if (updates.length > 0) options.onBatch(updates);
				if (progress) {
					backfillActivity.progress(id, progress);
					options.onProgress?.(progress);
				}
			},
			finish: (reply) => {
				backfillActivity.end(id);
				if (reply.ok) resolve({ ...reply, updates: held.flat() });
				else reject(new BackfillError(reply.status, reply.error));
			}
		});
		backfillWorker().postMessage({ id, url } satisfies BackfillRequest);
	});
}
