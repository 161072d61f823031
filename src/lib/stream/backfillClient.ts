/**
 * The page's side of a backfill: asks a decode worker for one recorded stream of a day (the
 * whole session so far by default) and resolves with its updates, decoded off the main thread.
 * Browser only.
 */
import type { BackfillReply, BackfillRequest } from './backfillMessages';

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

let worker: Worker | undefined;
let nextId = 1;
const waiting = new Map<number, (reply: BackfillReply) => void>();

function backfillWorker(): Worker {
	if (!worker) {
		worker = new Worker(new URL('./backfillWorker.ts', import.meta.url), { type: 'module' });
		worker.onmessage = (ev: MessageEvent<BackfillReply>) => {
			const resolve = waiting.get(ev.data.id);
			waiting.delete(ev.data.id);
			resolve?.(ev.data);
		};
		worker.onerror = (ev) => {
			ev.preventDefault?.();
			for (const [id, resolve] of waiting) {
				resolve({ id, ok: false, status: 0, error: 'backfill worker failed' });
			}
			waiting.clear();
			worker?.terminate();
			worker = undefined;
		};
	}
	return worker;
}

/** Fetches and decodes a backfill in the worker; rejects with BackfillError (404 = none yet). */
export function fetchBackfill(
	ticker: string,
	stream: string,
	query: BackfillQuery = {}
): Promise<BackfillResult> {
	const id = nextId++;
	const url = new URL(backfillUrl(ticker, stream, query), location.href).href;
	return new Promise((resolve, reject) => {
		waiting.set(id, (reply) => {
			if (reply.ok) resolve(reply);
			else reject(new BackfillError(reply.status, reply.error));
		});
		backfillWorker().postMessage({ id, url } satisfies BackfillRequest);
	});
}
