/**
 * GET /history/<ticker>/<stream>?day=YYYY-MM-DD&from=<unix s>&to=<unix s>&with=spot&step=N: one
 * recorded stream of a day (the whole session so far by default) as a backfill body
 * (src/lib/relay/backfillBody.ts). `with=spot` merges the ticker's spot frames in arrival order, so a
 * view gets exactly the sequence a viewer connected from the start received. Framework-free so
 * the SvelteKit route and the integration tests' server use the same code.
 *
 * A whole day is 100+ MB: the query is checked and the headers taken from the recordings'
 * indexes (after a file's first answer since it was opened has read it once with async reads, so
 * a corrupt record is known and not counted), and the body is a ReadableStream that reads, merges and encodes about 256 KB
 * per pull with async reads (RecordSpan), so serving days never stalls the event loop that
 * relays live frames, answers /api and records. The body format has no leading count or length
 * (entries simply follow each other), so the chunks concatenate to exactly the bytes
 * encodeBackfill makes of all the records at once.
 */
import type { ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import type { ReadableStream as NodeWebStream } from 'node:stream/web';
import { promisify } from 'node:util';
import { gunzip } from 'node:zlib';
import {
	BACKFILL_FRAME,
	BACKFILL_SNAPSHOT,
	encodeBackfill,
	type BackfillEntry
} from '../../relay/backfillBody';
import { groupOfStream } from '../../contract/feeds';
import { TurnQueue } from '../turnQueue';
import { RecordKind, SPAN_CHUNK_BYTES, type RecordSpan, type StoredRecord } from './recordFile';
import {
	isRecordedDay,
	isRecordedTicker,
	isStreamName,
	type SessionRecorder
} from './sessionRecorder';

const gunzipAsync = promisify(gunzip);
const chunkTurns = new TurnQueue();

export interface BackfillAnswer {
	status: number;
	headers: Record<string, string>;
	/** Errors and JSON answers are strings; a backfill streams (read it or cancel it). */
	body: ReadableStream<Uint8Array> | string;
}

function problem(status: number, error: string): BackfillAnswer {
	return {
		status,
		headers: { 'content-type': 'application/json', 'cache-control': 'no-store' },
		body: JSON.stringify({ error })
	};
}

function bound(raw: string | null, name: string): number | undefined | Error {
	if (raw === null || raw === '') return undefined;
	const n = Number(raw);
	return Number.isFinite(n) ? n : new Error(`${name} must be unix seconds, got ${raw}`);
}

export async function backfillResponse(
	recorder: SessionRecorder,
	ticker: string,
	stream: string,
	query: URLSearchParams
): Promise<BackfillAnswer> {
	if (!isRecordedTicker(ticker)) return problem(400, `Not a ticker: ${ticker}`);
	if (!isStreamName(stream)) return problem(400, `Not a stream name: ${stream}`);
	// Unknown values are errors, not silently the default: a typo would read the wrong thing.
	const source = query.get('source');
	if (source !== null && source !== 'service') {
		return problem(
			400,
			`source must be "service" (the service's history) or absent, got ${source}`
		);
	}
	const also = query.get('with');
	if (also !== null && also !== 'spot') return problem(400, `with must be "spot", got ${also}`);
	const from = bound(query.get('from'), 'from');
	const to = bound(query.get('to'), 'to');
	if (from instanceof Error) return problem(400, from.message);
	if (to instanceof Error) return problem(400, to.message);
	const days = recorder.daysOf(ticker, stream);
	const day = query.get('day') ?? days.at(-1);
	if (day === undefined) return problem(404, `Nothing recorded for ${ticker} ${stream} yet.`);
	if (!isRecordedDay(day)) return problem(400, `day must be YYYY-MM-DD, got ${day}`);
	if (!recorder.has(day, ticker, stream)) {
		return problem(404, `${ticker} ${stream} was not recorded on ${day}.`);
	}
	// step=N: the first record of every N-second bucket (a day overview needs no more columns
	// than a screen is wide; spot frames are thinned alike), picked from the recording's index.
	const step = bound(query.get('step'), 'step');
	if (step instanceof Error || (step !== undefined && !(step >= 1 && step <= 3600))) {
		return problem(400, 'step must be 1-3600 seconds');
	}
	// Records no read has checked since the file was opened are read first (once per open file),
	// so x-gexdeck-records counts what the body carries even when a byte went bad on disk.
	await recorder.check(day, ticker, stream);
	if (also === 'spot' && stream !== 'spot') await recorder.check(day, ticker, 'spot');
	const sources: Source[] = [];
	const main = recorder.span(day, ticker, stream, from, to, step);
	if (main) sources.push({ group: groupOfStream(ticker, stream), span: main });
	if (also === 'spot' && stream !== 'spot') {
		const spot = recorder.span(day, ticker, 'spot', from, to, step);
		if (spot) sources.push({ group: groupOfStream(ticker, 'spot'), span: spot });
	}
	const records = sources.reduce((n, s) => n + s.span.plan.count, 0);
	const { first, last } = ends(sources);
	return {
		status: 200,
		headers: {
			'content-type': 'application/octet-stream',
			'cache-control': 'no-store',
			'x-gexdeck-day': day,
			'x-gexdeck-records': String(records),
			// The day is still being recorded: a view of it asks again for what follows `last`.
			...(recorder.recordingDay() === day ? { 'x-gexdeck-recording': '1' } : {}),
			...(first !== undefined ? { 'x-gexdeck-first': String(first) } : {}),
			...(last !== undefined ? { 'x-gexdeck-last': String(last) } : {})
		},
		body: backfillBody(sources)
	};
}

/** One recorded stream of the answer: its relay group and its records. */
interface Source {
	group: string;
	span: RecordSpan;
}

/**
 * Data times of the answer's first and last record, from the indexes and (to merge by arrival)
 * the four records' headers: of two streams, the first record is the earlier arrival (the
 * requested stream's on a tie), the last the later one (spot's on a tie), as the merge orders.
 */
function ends(sources: readonly Source[]): { first?: number; last?: number } {
	const live = sources.filter((s) => s.span.plan.count > 0);
	if (live.length === 0) return {};
	const [a, b] = live.map(({ span }) => span);
	if (!b) return { first: a.timeAt(a.plan.first), last: a.timeAt(a.plan.last) };
	const arrival = (s: RecordSpan, i: number) => s.arrivalAt(i) ?? Number.NaN;
	const firstOfA = !(arrival(b, b.plan.first) < arrival(a, a.plan.first));
	const lastOfA = arrival(a, a.plan.last) > arrival(b, b.plan.last);
	return {
		first: firstOfA ? a.timeAt(a.plan.first) : b.timeAt(b.plan.first),
		last: lastOfA ? a.timeAt(a.plan.last) : b.timeAt(b.plan.last)
	};
}

/** A source's records one at a time, read a chunk ahead at most. */
class Cursor {
	private chunk: StoredRecord[] = [];
	private at = 0;
	private readonly chunks: AsyncGenerator<StoredRecord[]>;

	constructor(
		readonly group: string,
		span: RecordSpan
	) {
		this.chunks = span.chunks();
	}

	/** The next record without taking it; undefined once the source is done. */
	async peek(): Promise<StoredRecord | undefined> {
		while (this.at >= this.chunk.length) {
			const next = await this.chunks.next();
			if (next.done) return undefined;
			this.chunk = next.value;
			this.at = 0;
		}
		return this.chunk[this.at];
	}

	take(): StoredRecord {
		return this.chunk[this.at++];
	}

	/** Stops reading (closes the source's file once its pending read is done). */
	async stop(): Promise<void> {
		await this.chunks.return(undefined);
	}
}

/**
 * The body: the sources merged by arrival (each is in arrival order already: the recorder
 * stamps arrivals strictly increasing), about SPAN_CHUNK_BYTES of entries per pull. The
 * requested stream goes first on equal stamps, as the stable sort of the synchronous answer
 * did. Cancelling (a client gone) stops the reads and closes the files.
 */
function backfillBody(sources: readonly Source[]): ReadableStream<Uint8Array> {
	const cursors = sources.map((s) => new Cursor(s.group, s.span));
	const stopAll = () => Promise.all(cursors.map((c) => c.stop()));
	let cancelled = false;
	return new ReadableStream<Uint8Array>(
		{
			// One chunk of one answer per event-loop turn over every answer (turnQueue.ts).
			pull: (controller) => chunkTurns.run(() => fill(controller)),
			async cancel() {
				cancelled = true;
				await stopAll();
			}
		},
		// Nothing is read before the client asks for it: no read ahead, one chunk in flight.
		{ highWaterMark: 0 }
	);

	async function fill(controller: ReadableStreamDefaultController<Uint8Array>): Promise<void> {
		const entries: BackfillEntry[] = [];
		let bytes = 0;
		let done = false;
		try {
			while (bytes < SPAN_CHUNK_BYTES && !cancelled) {
				let next: Cursor | undefined;
				let nextAt = Infinity;
				for (const c of cursors) {
					const r = await c.peek();
					if (r && (next === undefined || r.receivedAt < nextAt)) {
						next = c;
						nextAt = r.receivedAt;
					}
				}
				if (!next) {
					done = true;
					break;
				}
				const r = next.take();
				const entry: BackfillEntry =
					r.kind === RecordKind.StreamAny
						? { kind: BACKFILL_FRAME, group: next.group, bytes: r.payload }
						: {
								kind: BACKFILL_SNAPSHOT,
								group: next.group,
								bytes: await gunzipAsync(r.payload)
							};
				entries.push(entry);
				bytes += entry.bytes.length;
			}
		} catch (err) {
			await stopAll();
			throw err;
		}
		if (cancelled) return;
		if (entries.length > 0) controller.enqueue(encodeBackfill(entries));
		if (done) controller.close();
	}
}

/** The whole body of an answer at once (tests and benches; a server streams it instead). */
export async function answerBytes(answer: BackfillAnswer): Promise<Uint8Array> {
	return new Uint8Array(await new Response(answer.body).arrayBuffer());
}

/**
 * Writes an answer to a plain node:http response (the integration tests' and benches' servers;
 * SvelteKit takes `new Response(answer.body, ...)`). A client that goes away cancels the body.
 */
export function sendAnswer(answer: BackfillAnswer, res: ServerResponse): void {
	res.writeHead(answer.status, answer.headers);
	if (typeof answer.body === 'string') return void res.end(answer.body);
	const body = Readable.fromWeb(answer.body as NodeWebStream<Uint8Array>);
	body.pipe(res);
	// A closed socket does not end a pipe's source: destroying it cancels the web stream.
	res.on('close', () => body.destroy());
	body.on('error', () => res.destroy());
}

/** GET /history/<ticker>: the recorded days and their streams, newest day first. */
export function recordedDaysResponse(recorder: SessionRecorder, ticker: string): BackfillAnswer {
	if (!isRecordedTicker(ticker)) return problem(400, `Not a ticker: ${ticker}`);
	const days = recorder
		.days()
		.reverse()
		.map((day) => ({ day, streams: recorder.streams(day, ticker) }))
		.filter((d) => d.streams.length > 0);
	return {
		status: 200,
		headers: { 'content-type': 'application/json', 'cache-control': 'no-store' },
		body: JSON.stringify({ ticker, days, recording: recorder.recordingDay() ?? null })
	};
}
