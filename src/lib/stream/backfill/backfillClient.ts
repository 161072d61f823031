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
import type { StreamUpdate } from '../transport/updates';
import type { HistoryPending } from '../../contract/historyPending';
import { GIVE_UP_MS, retryDelayMs, type DayPendingNote } from './dayPending';

export type BackfillResult = Extract<BackfillReply, { ok: true }> & {
	/**
	 * Timestamp of the newest update delivered, in the result or through `onBatch` (whose
	 * result's `updates` is empty): where a view following the day asks on from.
	 */
	last?: number;
};

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

/**
 * The days the server recorded this stream on, newest first (empty when it cannot say), and the
 * day it is recording now (null when none).
 */
export async function recordedDays(
	ticker: string,
	stream: string
): Promise<{ days: string[]; recording: string | null }> {
	const res = await fetch(`/history/${encodeURIComponent(ticker)}`).catch(() => undefined);
	if (!res?.ok) return { days: [], recording: null };
	const body = (await res.json()) as {
		days: { day: string; streams: string[] }[];
		recording?: string | null;
	};
	return {
		days: body.days.filter((d) => d.streams.includes(stream)).map((d) => d.day),
		recording: body.recording ?? null
	};
}

export class BackfillError extends Error {
	constructor(
		readonly status: number,
		message: string,
		/** The service is still generating the day: where it stands (a 504 with progress). */
		readonly pending?: HistoryPending,
		/** The answer's Retry-After, in seconds. */
		readonly retryAfter?: number
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
 * Starts the decode worker ahead of its first request (a no-op once started): a view that will
 * soon read a record (Classic's moment after its overview lines) overlaps the worker's start-up,
 * ~100-400 ms on a loaded machine, with the answers it waits for first.
 */
export function warmBackfillWorker(): void {
	if (typeof Worker !== 'undefined') backfillWorker();
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
		let last: number | undefined;
		waiting.set(id, {
			take: (updates, progress) => {
				for (const u of updates) last = Math.max(last ?? u.timestamp, u.timestamp);
				if (!options.onBatch) held.push(updates);
				else if (updates.length > 0) options.onBatch(updates);
				if (progress) {
					backfillActivity.progress(id, progress);
					options.onProgress?.(progress);
				}
			},
			finish: (reply) => {
				backfillActivity.end(id);
				if (reply.ok) resolve({ ...reply, updates: held.flat(), last });
				else reject(new BackfillError(reply.status, reply.error, reply.pending, reply.retryAfter));
			}
		});
		backfillWorker().postMessage({ id, url } satisfies BackfillRequest);
	});
}

export interface SessionDayOptions {
	/** Stops waiting (another day or Today picked): the promise rejects with an AbortError. */
	signal?: AbortSignal;
	/** Each answer that says the day is still being generated, as it arrives. */
	onpending?: (note: DayPendingNote) => void;
	/** The backfill reader (default: the decode worker; tests pass a fake server). */
	read?: typeof fetchBackfill;
	/** Unix ms (tests). */
	now?: () => number;
	/**
	 * Takes the day batch by batch as it decodes (fetchBackfill's onBatch): the view fills in
	 * from the open while the rest arrives. Only the answer asked again (a day the service is
	 * still generating) delivers no batches, so each record arrives once; a read that fails
	 * midway leaves the view what it took, and the promise rejects.
	 */
	onBatch?: (updates: StreamUpdate[]) => void;
	/**
	 * A view of a picked day: when the day is still being recorded (a picked today), what the
	 * server records after it is handed here every FOLLOW_MS (followRecordingDay) until the
	 * recording ends or the signal aborts. Without it the day is read once.
	 */
	follow?: (updates: StreamUpdate[]) => void;
	/** Whether the day is being followed (with `follow`): at the start, and false at its end. */
	onfollowing?: (following: boolean) => void;
}

function aborted(): DOMException {
	return new DOMException('The day is no longer wanted.', 'AbortError');
}

function pause(ms: number, signal?: AbortSignal): Promise<void> {
	return new Promise((resolve, reject) => {
		if (signal?.aborted) return reject(aborted());
		const timer = setTimeout(done, ms);
		function done() {
			signal?.removeEventListener('abort', onAbort);
			resolve();
		}
		function onAbort() {
			clearTimeout(timer);
			reject(aborted());
		}
		signal?.addEventListener('abort', onAbort, { once: true });
	});
}

/** True for the rejection of a session day whose signal was aborted. */
export function isAbort(err: unknown): boolean {
	return err instanceof DOMException && err.name === 'AbortError';
}

/**
 * One session of a stream as every time-aware view loads it (fetchBackfill of sessionQuery),
 * waiting out a past day the service is still generating: each such answer is reported through
 * `onpending` and asked again after its Retry-After (retryDelayMs), until the day arrives, a
 * final error (BackfillError), GIVE_UP_MS, or the signal.
 */
export async function fetchSessionDay(
	ticker: string,
	stream: string,
	query: BackfillQuery,
	options: SessionDayOptions = {}
): Promise<BackfillResult> {
	const { signal, read = fetchBackfill, now = Date.now, onBatch, follow, onfollowing } = options;
	const started = now();
	for (let attempt = 0; ; attempt++) {
		if (signal?.aborted) throw aborted();
		try {
			const result = await read(
				ticker,
				stream,
				query,
				onBatch ? { onBatch: (u) => void (signal?.aborted || onBatch(u)) } : {}
			);
			if (signal?.aborted) throw aborted();
			if (follow) {
				void followRecordingDay(ticker, stream, query, result, (r) => follow(r.updates), {
					signal: signal ?? new AbortController().signal,
					read,
					onfollowing
				});
			}
			return result;
		} catch (err) {
			if (signal?.aborted) throw aborted();
			if (!(err instanceof BackfillError) || !err.pending) throw err;
			if (now() - started >= GIVE_UP_MS) {
				throw new BackfillError(
					504,
					`the service was still generating ${query.day ?? 'the day'} after ${GIVE_UP_MS / 60_000} minutes (${err.message}); pick the day again to keep waiting`
				);
			}
			options.onpending?.({ pending: err.pending, at: now() });
			await pause(retryDelayMs(err.retryAfter, attempt), signal);
		}
	}
}

/** How often a view of a day still being recorded asks for what arrived since. */
export const FOLLOW_MS = 5_000;

/**
 * A day still being recorded (a picked "today", `result.recording`) keeps growing in its view:
 * every FOLLOW_MS this asks the server for the records after the last one it has and hands
 * each non-empty batch to `onupdates`, until the server no longer records the day or the signal
 * aborts. A failed ask is tried again at the next turn (the view keeps what it has).
 */
export async function followRecordingDay(
	ticker: string,
	stream: string,
	query: BackfillQuery,
	first: BackfillResult,
	onupdates: (result: BackfillResult) => void,
	options: {
		signal: AbortSignal;
		read?: typeof fetchBackfill;
		everyMs?: number;
		/** Whether the day is being followed: at the start, and false once its recording ends. */
		onfollowing?: (following: boolean) => void;
	}
): Promise<void> {
	const { signal, read = fetchBackfill, everyMs = FOLLOW_MS } = options;
	let recording = first.recording === true;
	let last = first.last ?? first.updates.at(-1)?.timestamp ?? query.from ?? 0;
	options.onfollowing?.(recording);
	if (!recording) return;
	await follow();
	if (!signal.aborted) options.onfollowing?.(false);

	async function follow(): Promise<void> {
		while (recording) {
			try {
				await pause(everyMs, signal);
				const next = await read(ticker, stream, { ...query, from: Math.floor(last) + 1 });
				if (signal.aborted) return;
				recording = next.recording === true;
				if (next.updates.length === 0) continue;
				last = next.last ?? next.updates.at(-1)!.timestamp;
				onupdates(next);
			} catch (err) {
				if (isAbort(err) || signal.aborted) return;
				// 404 (nothing yet) or a blip: ask again next turn.
			}
		}
	}
}
