/**
 * Messages between the page and the decode worker, as discriminated unions. Requests that the
 * relay answers carry an `id`; the relay's reply comes back with the same id.
 */
import type { RelayMessage } from '../../relay/protocol';
import type { StreamUpdate } from './updates';

export type PageToWorker =
	/** Open (or re-open) the `/stream` socket at `url` (ws:// or wss://). */
	| { type: 'connect'; url: string }
	| { type: 'subscribe'; id: number; groups: string[] }
	| { type: 'unsubscribe'; id: number; groups: string[] }
	| { type: 'status'; id: number }
	| { type: 'takeBack'; id: number }
	/** Treat `frame` as if it came from the relay (tests inject corrupt frames with it). */
	| { type: 'inject'; frame: ArrayBuffer }
	| { type: 'close' };

export interface StreamStats {
	/** Binary frames received from the relay. */
	frames: number;
	/** Frames that failed to decode (counted and skipped). */
	corrupt: number;
	/** Frames of a kind or version this code does not know (counted and skipped). */
	unknown: number;
	/** Updates replaced by newer ones before a flush. */
	superseded: number;
	/** Updates posted to the page. */
	posted: number;
	/** Total milliseconds spent decoding. */
	decodeMs: number;
	/** Text of the last decode failure, for the diagnostics panel. */
	lastError?: string;
}

export type ConnectionState = 'connecting' | 'open' | 'closed';

export type WorkerToPage =
	| {
			type: 'updates';
			updates: StreamUpdate[];
			/** Wall clock (ms) the first frame of this batch arrived in the worker, and it was posted. */
			receivedAt?: number;
			postedAt?: number;
	  }
	| { type: 'relay'; message: RelayMessage }
	| { type: 'connection'; state: ConnectionState; retryInMs?: number; detail?: string }
	| { type: 'stats'; stats: StreamStats };
