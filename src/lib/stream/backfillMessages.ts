/**
 * The messages between a page's backfill client (./backfillClient.ts) and its short-lived decode
 * worker (./backfillWorker.ts): one request, one reply matched by id. Their own module so the
 * two sides share the types without importing each other.
 */
import type { HistoryPending } from '../contract/historyPending';
import type { StreamUpdate } from './updates';

export interface BackfillRequest {
	id: number;
	url: string;
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
