/**
 * A past day from the service's history (`/v2/hist/{ticker}/{package}/{category}/{date}`, Quant)
 * stored in the recorder's format, so every view reads it like a recorded day and it is fetched
 * once. The request goes through the REST proxy (the allowlist, the key, the quota ledger's
 * api_history_cache pool and its 429 backoff); the proxy hands the pre-signed download link back
 * as data, and this module downloads it server-side (no key is sent to the link, like an
 * object-store URL) and files each snapshot as a compressed record.
 */
import { isPackage, resolveCategory } from '../../contract/categories';
import {
	parseHistoryPending,
	parseRetryAfter,
	type HistoryPending
} from '../../contract/historyPending';
import type { IncomingMessage } from 'node:http';
import { createGunzip } from 'node:zlib';
import { openGet } from '../httpClient';
import type { UpstreamProxy } from '../proxy';
import {
	ImportAbandonedError,
	ImportQueueFullError,
	importQueue,
	type ImportStatus
} from './importQueue';
import type { SessionRecorder } from './sessionRecorder';
import { loopTurns, SnapshotFiler, SnapshotTooLargeError } from './snapshotRecords';

export class HistoryImportError extends Error {
	constructor(
		readonly status: number,
		message: string,
		/** The service is still generating the day (its 504): where it stands. */
		readonly pending?: HistoryPending,
		/** The service's Retry-After, in seconds. */
		readonly retryAfter?: number
	) {
		super(message);
	}
}

export interface HistoryImportDeps {
	recorder: SessionRecorder;
	proxy: Pick<UpstreamProxy, 'handle'>;
	userAgent: string;
	/** Most JSON one day of one stream may hold (default DEFAULT_IMPORT_MAX_BYTES). */
	maxBytes?: number;
}

/** The default cap of one imported day of one stream, as JSON (a full SPX day is ~300 MB). */
export const DEFAULT_IMPORT_MAX_BYTES = 1024 ** 3;
const DOWNLOAD_TIMEOUT_MS = 300_000;

const inFlight = new Map<string, Promise<number>>();

/** `classic_gex_full` -> its package and canonical category, or undefined. */
export function routeOfStream(stream: string): { pkg: string; category: string } | undefined {
	const m = /^(classic|state|orderflow)_([a-z0-9_]+)$/.exec(stream);
	if (!m || !isPackage(m[1])) return undefined;
	const category = resolveCategory(m[1], m[2]);
	return category ? { pkg: m[1], category } : undefined;
}

/**
 * Makes sure `day` of `ticker`'s `stream` is on disk, fetching it from the service when it is
 * not. Resolves with the records now stored for the day; concurrent calls share one download.
 */
export function importHistoryDay(
	deps: HistoryImportDeps,
	ticker: string,
	stream: string,
	day: string
): Promise<number> {
	const key = `${ticker}/${stream}/${day}`;
	let running = inFlight.get(key);
	if (!running) {
		// Timed from the first ask for a day not on disk (a stored day is no sample).
		if (!askedAt.has(key) && deps.recorder.count(day, ticker, stream) === 0) {
			askedAt.set(key, Date.now());
			while (askedAt.size > PENDING_NOTES_MAX)
				askedAt.delete(askedAt.keys().next().value as string);
		}
		running = run(deps, ticker, stream, day).then(
			(records) => {
				inFlight.delete(key);
				pendingNotes.delete(key);
				noteReady(key);
				return records;
			},
			(err: unknown) => {
				inFlight.delete(key);
				if (err instanceof HistoryImportError && err.pending) notePending(key, err);
				else {
					pendingNotes.delete(key);
					askedAt.delete(key);
				}
				throw err;
			}
		);
		inFlight.set(key, running);
	}
	return running;
}

/** What the service last said about a day it is generating, and when it may be asked again. */
interface PendingNote {
	pending: HistoryPending;
	at: number;
	retryAt: number;
}
const pendingNotes = new Map<string, PendingNote>();
/** Notes of days nobody asked for again (the viewer left) are dropped, oldest first. */
const PENDING_NOTES_MAX = 256;
/** How long a page's request waits for the day before it is answered with where it stands. */
export const HISTORY_HOLD_MS = 3_000;
/** The page asks again this soon while the service's first answer is still awaited. */
const REQUESTING_RETRY_S = 2;

/**
 * When each day still on its way was first asked for, and how long the last days took from that
 * first ask to on disk: while the service has not answered yet (it may hold a request for a
 * minute), the page is told how long ago it was asked and, from those days, about how long is
 * left (issue 25 item 10).
 */
const askedAt = new Map<string, number>();
const readySeconds: number[] = [];
const READY_SECONDS_KEPT = 8;

function noteReady(key: string): void {
	const at = askedAt.get(key);
	askedAt.delete(key);
	if (at === undefined) return;
	readySeconds.push(Math.max(0, (Date.now() - at) / 1000));
	if (readySeconds.length > READY_SECONDS_KEPT) readySeconds.shift();
}

/** The median time (s) the last days took from the first ask to on disk; null before any. */
export function typicalDaySeconds(): number | null {
	if (readySeconds.length === 0) return null;
	const sorted = [...readySeconds].sort((a, b) => a - b);
	return Math.round(sorted[Math.floor((sorted.length - 1) / 2)]);
}

/** The note while the service's first answer is awaited: how long ago, and the estimate. */
function requestingNote(key: string, what: string, now: number): HistoryPending {
	const elapsed = Math.max(0, Math.round((now - (askedAt.get(key) ?? now)) / 1000));
	const typical = typicalDaySeconds();
	return {
		state: 'requesting',
		position: 0,
		progress: 0,
		etaSeconds: typical === null ? null : Math.max(0, typical - elapsed),
		message:
			`Asked the service for ${what} ${elapsed} s ago` +
			(typical === null ? '.' : `; the last days took about ${typical} s.`)
	};
}

function notePending(key: string, err: HistoryImportError): void {
	const at = Date.now();
	const wait = err.retryAfter ?? err.pending?.etaSeconds ?? REQUESTING_RETRY_S;
	pendingNotes.delete(key);
	pendingNotes.set(key, { pending: err.pending!, at, retryAt: at + Math.max(1, wait) * 1000 });
	while (pendingNotes.size > PENDING_NOTES_MAX)
		pendingNotes.delete(pendingNotes.keys().next().value as string);
}

/** A note's state now: its wait shortened by the time since the service said it. */
function aged(note: PendingNote, now: number): HistoryPending {
	const eta = note.pending.etaSeconds;
	const elapsed = Math.floor((now - note.at) / 1000);
	return { ...note.pending, etaSeconds: eta === null ? null : Math.max(0, eta - elapsed) };
}

export type HistoryDayStatus =
	{ ready: true } | { ready: false; pending: HistoryPending; /** seconds */ retryAfter: number };

/**
 * Where a day of the service's history stands for a page asking for it: ready (on disk), or
 * still being generated (the service's queue position, progress and wait, as last answered),
 * with when to ask again. The page is never held longer than `holdMs`: the service may hold
 * a request for a minute before it says anything. The service is asked again only once its
 * Retry-After has passed, however many pages poll; a page that stops asking (another day picked)
 * leaves nothing running but the one request already sent. Any other failure rejects with the
 * HistoryImportError.
 */
export async function historyDayStatus(
	deps: HistoryImportDeps,
	ticker: string,
	stream: string,
	day: string,
	holdMs = HISTORY_HOLD_MS
): Promise<HistoryDayStatus> {
	const key = `${ticker}/${stream}/${day}`;
	const note = pendingNotes.get(key);
	const now = Date.now();
	if (note && !inFlight.has(key) && now < note.retryAt) {
		return {
			ready: false,
			pending: aged(note, now),
			retryAfter: Math.max(1, Math.ceil((note.retryAt - now) / 1000))
		};
	}
	let timer: ReturnType<typeof setTimeout> | undefined;
	const held = new Promise<'held'>(
		(resolve) => (timer = setTimeout(() => resolve('held'), holdMs))
	);
	try {
		const outcome = await Promise.race([importHistoryDay(deps, ticker, stream, day), held]);
		if (outcome !== 'held') return { ready: true };
	} catch (err) {
		const latest = pendingNotes.get(key);
		if (!(err instanceof HistoryImportError && err.pending && latest)) throw err;
		const at = Date.now();
		return {
			ready: false,
			pending: aged(latest, at),
			retryAfter: Math.max(1, Math.ceil((latest.retryAt - at) / 1000))
		};
	} finally {
		clearTimeout(timer);
	}
	// Waiting for this server's import slot, or downloading: where it stands.
	const slot = importQueue().status(key);
	if (slot) return { ready: false, pending: slotPending(slot), retryAfter: REQUESTING_RETRY_S };
	// Still waiting for the service's answer: what it said last time, else that it was asked.
	const latest = pendingNotes.get(key);
	return {
		ready: false,
		pending: latest
			? aged(latest, Date.now())
			: requestingNote(key, `${ticker} ${stream} on ${day}`, Date.now()),
		retryAfter: REQUESTING_RETRY_S
	};
}

async function run(
	deps: HistoryImportDeps,
	ticker: string,
	stream: string,
	day: string
): Promise<number> {
	const existing = deps.recorder.count(day, ticker, stream);
	if (existing > 0) return existing;
	const route = routeOfStream(stream);
	if (!route) throw new HistoryImportError(400, `The service keeps no history of ${stream}.`);
	const answer = await deps.proxy.handle(
		'GET',
		`hist/${ticker}/${route.pkg}/${route.category}/${day}`,
		new URLSearchParams()
	);
	const text = typeof answer.body === 'string' ? answer.body : Buffer.from(answer.body).toString();
	if (answer.status !== 200) {
		let message = `the service answered ${answer.status}`;
		let body: unknown;
		try {
			body = JSON.parse(text);
			message = (body as { error?: string }).error ?? message;
		} catch {
			// not JSON
		}
		const pending = answer.status === 504 ? parseHistoryPending(body) : undefined;
		throw new HistoryImportError(
			answer.status,
			message,
			pending,
			parseRetryAfter(answer.headers['retry-after'], Date.now())
		);
	}
	const { url } = JSON.parse(text) as { url?: string };
	if (!url || !/^https?:\/\//.test(url)) {
		throw new HistoryImportError(502, 'The service gave no download link.');
	}
	// The service has the day: the download waits for a free import slot (importQueue).
	try {
		return await importQueue().run(`${ticker}/${stream}/${day}`, (progress) =>
			download(deps, new URL(url), { ticker, stream, day }, progress)
		);
	} catch (e) {
		if (e instanceof ImportQueueFullError || e instanceof ImportAbandonedError) {
			throw new HistoryImportError(503, `This server is busy importing: ${e.message}.`);
		}
		throw e;
	}
}

/** The page's progress note of an import waiting for, or holding, this server's slot. */
function slotPending(slot: ImportStatus): HistoryPending {
	return slot.state === 'queued'
		? {
				state: 'import-queued',
				position: slot.position,
				progress: 0,
				etaSeconds: null,
				message: `Waiting for ${slot.position} import${slot.position === 1 ? '' : 's'} ahead on this server.`
			}
		: {
				state: 'importing',
				position: 0,
				progress: slot.progress,
				etaSeconds: null,
				message: `Downloading the day from the service: ${Math.floor(slot.progress * 100)}%.`
			};
}

/**
 * Downloads the day file (gzip-encoded when the server offers it) and files it as it arrives,
 * aside until complete (DayImport): a failure or a file over the cap leaves nothing behind.
 */
async function download(
	deps: HistoryImportDeps,
	url: URL,
	{ ticker, stream, day }: { ticker: string; stream: string; day: string },
	progress: (fraction: number) => void
): Promise<number> {
	const draft = deps.recorder.beginImport(day, ticker, stream);
	if (!draft) return deps.recorder.count(day, ticker, stream);
	let res: IncomingMessage | undefined;
	try {
		res = await openGet(
			url,
			{ 'user-agent': deps.userAgent, accept: 'application/json', 'accept-encoding': 'gzip' },
			DOWNLOAD_TIMEOUT_MS
		);
		if (res.statusCode !== 200) {
			throw new HistoryImportError(502, `The history download answered ${res.statusCode}.`);
		}
		const total = Number(res.headers['content-length']) || 0;
		const gzipped = /^\s*gzip\s*$/i.test(res.headers['content-encoding'] ?? '');
		const filer = new SnapshotFiler(draft, deps.maxBytes ?? DEFAULT_IMPORT_MAX_BYTES);
		let received = 0;
		const count = (n: number) => {
			received += n;
			if (total > 0) progress(received / total);
		};
		const source = gzipped ? gunzipped(res, count) : res;
		const turn = loopTurns();
		for await (const piece of source) {
			if (!gzipped) count((piece as Buffer).length);
			filer.push(piece as Buffer);
			await turn();
		}
		if (!res.complete) throw new Error('the download was cut short');
		const records = filer.end();
		if (records === 0)
			throw new HistoryImportError(404, `The service has no ${stream} for ${day}.`);
		deps.recorder.commitImport(day, draft);
		return deps.recorder.count(day, ticker, stream);
	} catch (e) {
		draft.abort();
		if (e instanceof HistoryImportError) throw e;
		if (e instanceof SnapshotTooLargeError) throw new HistoryImportError(413, e.message);
		if (e instanceof SyntaxError)
			throw new HistoryImportError(502, `The history file is not a JSON list: ${e.message}`);
		throw new HistoryImportError(502, `The history download failed: ${(e as Error).message}`);
	} finally {
		res?.destroy();
	}
}

/** The response's body gunzipped, counting the bytes received; a broken response ends it. */
function gunzipped(res: IncomingMessage, count: (n: number) => void): AsyncIterable<unknown> {
	const gunzip = createGunzip();
	res.on('data', (c: Buffer) => count(c.length));
	res.on('error', (err) => gunzip.destroy(err));
	res.on('close', () => {
		if (!res.complete) gunzip.destroy(new Error('the download was cut short'));
	});
	return res.pipe(gunzip);
}
