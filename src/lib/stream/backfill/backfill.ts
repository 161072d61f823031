/**
 * Decoding a backfill body (src/lib/relay/backfillBody.ts: what the dashboard server recorded of
 * one stream) into the same StreamUpdates as live frames, in the decode worker, piece by piece
 * as the answer streams in, posted to the page in batches.
 */
import type { ClassicChain, GreekProfile, OrderflowBody } from '../../contract/schemas';
import { parseGroup } from '../../contract/hubs';
import { parseHistoryPending, parseRetryAfter } from '../../contract/historyPending';
import { columnarGex, columnarGreekProfile } from '../../wire/columnar';
import { BACKFILL_FRAME, BackfillSplitter, type SplitEntry } from '../../relay/backfillBody';
import { parseRelayFrame } from '../../relay/relayFrame';
import { decodeRelayMessage } from '../transport/relayDecode';
import type { BackfillBatch, BackfillProgress, BackfillWorkerMessage } from './backfillMessages';
import { updateTransferables, type StreamUpdate } from '../transport/updates';

const utf8 = new TextDecoder();

/** A polled REST snapshot (the route's JSON) as the update a live frame of its group makes. */
export function snapshotUpdate(group: string, json: string): StreamUpdate | undefined {
	const parsed = parseGroup(group);
	if (!parsed.ok || parsed.group.kind === 'spot') return undefined;
	const body = JSON.parse(json) as { ticker: string; timestamp: number };
	const base = { group, ticker: body.ticker, timestamp: body.timestamp };
	switch (parsed.group.frame) {
		case 'gex':
			return { ...base, kind: 'gex', value: columnarGex(body as unknown as ClassicChain) };
		case 'greek':
			return {
				...base,
				kind: 'greek',
				value: columnarGreekProfile(body as unknown as GreekProfile)
			};
		case 'orderflow':
			return { ...base, kind: 'orderflow', value: body as unknown as OrderflowBody };
		default:
			return undefined;
	}
}

export interface BackfillDecode {
	updates: StreamUpdate[];
	/** Entries that did not decode (counted, skipped: the rest of the day still shows). */
	corrupt: number;
	lastError?: string;
}

/**
 * Decodes a backfill body as it arrives: feed it the pieces of a streamed fetch, take the
 * decoded updates whenever convenient (the worker posts them in batches), then end it. Frames go
 * through decodeRelayMessage, the live path, one by one. Never throws; a malformed body stops
 * the decode at the bad entry (counted corrupt) and keeps what came before.
 */
export class BackfillDecoder implements BackfillDecode {
	updates: StreamUpdate[] = [];
	corrupt = 0;
	lastError?: string;
	/** Entries decoded or counted so far. */
	entries = 0;
	private readonly splitter = new BackfillSplitter();
	private failed = false;

	/** Splits and decodes the next piece of the body. */
	push(piece: Uint8Array): void {
		if (this.failed) return;
		let entries: SplitEntry[];
		try {
			entries = this.splitter.push(piece);
		} catch (e) {
			this.fail((e as Error).message);
			return;
		}
		for (const { kind, frame } of entries) this.decodeEntry(kind, frame);
	}

	/** The body ended (a body cut inside an entry counts one corrupt entry). */
	end(): void {
		if (this.failed) return;
		try {
			this.splitter.end();
		} catch (e) {
			this.fail((e as Error).message);
		}
	}

	/** The updates decoded since the last take. */
	take(): StreamUpdate[] {
		const out = this.updates;
		this.updates = [];
		return out;
	}

	private fail(error: string): void {
		this.failed = true;
		this.corrupt++;
		this.lastError = error;
	}

	private decodeEntry(kind: number, frame: Uint8Array): void {
		this.entries++;
		if (kind === BACKFILL_FRAME) {
			const outcome = decodeRelayMessage(frame);
			if (outcome.ok) this.updates.push(outcome.update);
			else {
				this.corrupt++;
				this.lastError = outcome.error;
			}
			return;
		}
		const parsed = parseRelayFrame(frame);
		try {
			const update = parsed.ok
				? snapshotUpdate(parsed.frame.group, utf8.decode(parsed.frame.any))
				: undefined;
			if (update) this.updates.push(update);
			else {
				this.corrupt++;
				this.lastError = parsed.ok ? `snapshot of ${parsed.frame.group}` : parsed.error;
			}
		} catch (e) {
			this.corrupt++;
			this.lastError = (e as Error).message;
		}
	}
}

/** Decodes a whole backfill body into updates, in recorded order. Never throws. */
export function decodeBackfill(body: Uint8Array): BackfillDecode {
	const decoder = new BackfillDecoder();
	decoder.push(body);
	decoder.end();
	return { updates: decoder.updates, corrupt: decoder.corrupt, lastError: decoder.lastError };
}

/** Post a batch after this much decoding, or this many updates, whichever comes first. */
export const BATCH_MS = 30;
export const BATCH_UPDATES = 400;

function header(res: Response, name: string): number | undefined {
	const raw = res.headers.get(name);
	const n = raw === null ? Number.NaN : Number(raw);
	return Number.isFinite(n) && n >= 0 ? n : undefined;
}

/**
 * The worker's whole job for one request, as a function Node tests call with a real Response:
 * reads the answer as it streams in, decodes each piece as it lands, and posts the updates in
 * batches (each a short task for the page, typed arrays transferred) with the progress so far,
 * then one reply with the rest and the totals. Never throws: failures become a failed reply.
 */
export async function streamBackfill(
	id: number,
	response: () => Promise<Response>,
	post: (message: BackfillWorkerMessage, transfer: ArrayBuffer[]) => void,
	now: () => number = () => performance.now()
): Promise<void> {
	try {
		const started = now();
		const res = await response();
		if (!res.ok) {
			let error = `${res.status} ${res.statusText}`;
			let body: unknown;
			try {
				body = await res.json();
				error = (body as { error?: string }).error ?? error;
			} catch {
				// not JSON: keep the status line
			}
			post(
				{
					id,
					ok: false,
					status: res.status,
					error,
					// A day the service is still generating says where it stands.
					pending: res.status === 504 ? parseHistoryPending(body) : undefined,
					retryAfter: parseRetryAfter(res.headers.get('retry-after'), Date.now())
				},
				[]
			);
			return;
		}
		const decoder = new BackfillDecoder();
		const progress: BackfillProgress = {
			records: 0,
			total: header(res, 'x-gexdeck-records'),
			bytes: 0,
			totalBytes: header(res, 'content-length')
		};
		let decodeMs = 0;
		let sinceBatch = 0;
		const feed = (piece: Uint8Array) => {
			progress.bytes += piece.length;
			const t = now();
			decoder.push(piece);
			const spent = now() - t;
			decodeMs += spent;
			sinceBatch += spent;
			if (sinceBatch < BATCH_MS && decoder.updates.length < BATCH_UPDATES) return;
			sinceBatch = 0;
			const updates = decoder.take();
			progress.records = decoder.entries;
			const batch: BackfillBatch = { id, batch: true, updates, progress: { ...progress } };
			post(batch, updates.flatMap(updateTransferables));
		};
		if (res.body) {
			const reader = res.body.getReader();
			for (;;) {
				const { done, value } = await reader.read();
				if (done) break;
				feed(value);
			}
		} else feed(new Uint8Array(await res.arrayBuffer()));
		const fetched = now();
		decoder.end();
		const updates = decoder.take();
		post(
			{
				id,
				ok: true,
				updates,
				corrupt: decoder.corrupt,
				lastError: decoder.lastError,
				bytes: progress.bytes,
				fetchMs: fetched - started,
				decodeMs,
				day: res.headers.get('x-gexdeck-day') ?? undefined,
				recording: res.headers.get('x-gexdeck-recording') === '1'
			},
			updates.flatMap(updateTransferables)
		);
	} catch (e) {
		post({ id, ok: false, status: 0, error: e instanceof Error ? e.message : String(e) }, []);
	}
}
