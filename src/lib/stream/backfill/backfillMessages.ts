/**
 * The messages between a page's backfill client (./backfillClient.ts) and its short-lived decode
 * worker (./backfillWorker.ts): one request; any number of progress messages carrying the
 * updates decoded so far (each a short task on the page, typed arrays transferred), then one
 * reply with the rest, all matched by id. Their own module so the two sides share the types
 * without importing each other.
 */
import type { HistoryPending } from '../../contract/historyPending';
import type { StreamUpdate } from '../transport/updates';

export interface BackfillRequest {
	id: number;
	url: string;
}

/** How far a backfill is: what a page shows while the day loads. */
export interface BackfillProgress {
	/** Records decoded (or counted corrupt) so far. */
	records: number;
	/** Records the server is sending (its x-gexdeck-records header); undefined when unknown. */
	total?: number;
	/** Body bytes received so far, and the body's size when the server said it. */
	bytes: number;
	totalBytes?: number;
}

/** A batch of decoded updates, sent while the rest of the body is still arriving or decoding. */
export interface BackfillBatch {
	id: number;
	batch: true;
	updates: StreamUpdate[];
	progress: BackfillProgress;
}

export type BackfillReply =
	| {
			id: number;
			ok: true;
			updates: StreamUpdate[];
			corrupt: number;
			lastError?: string;
			bytes: number;
			fetchMs: number;
			decodeMs: number;
			day?: string;
			/** The day is still being recorded (its view follows what arrives). */
			recording?: boolean;
	  }
	| {
			id: number;
			ok: false;
			status: number;
			error: string;
			/** A day the service is still generating (a 504 that says where it stands). */
			pending?: HistoryPending;
			/** The answer's Retry-After, in seconds. */
			retryAfter?: number;
	  };

export type BackfillWorkerMessage = BackfillReply | BackfillBatch;
