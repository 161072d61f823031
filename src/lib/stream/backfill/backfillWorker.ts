/// <reference lib="webworker" />
/**
 * A short-lived module worker that fetches one backfill (`/history/<ticker>/<stream>`) and
 * decodes it with the live decode path while it streams in (./backfill: streamBackfill), posting
 * the updates in batches with the progress so far: the page shows how far the day has loaded,
 * and no single message is large enough to hold its main thread up. Separate from the stream
 * worker so polling tiers, past days and the heatmap use it without holding a `/stream` socket.
 */
import { streamBackfill } from './backfill';
import type { BackfillRequest } from './backfillMessages';

const scope = self as unknown as DedicatedWorkerGlobalScope;

scope.onmessage = (ev: MessageEvent<BackfillRequest>) => {
	const { id, url } = ev.data;
	void streamBackfill(
		id,
		() => fetch(url, { credentials: 'same-origin' }),
		(message, transfer) => scope.postMessage(message, transfer)
	);
};
