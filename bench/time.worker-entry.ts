/**
 * Bundled into a worker by bench/time.bench.ts and run in Chromium: fetches a backfill body and
 * decodes it with the app's backfill path (splitBackfill -> decodeRelayMessage per frame), then
 * posts the updates with their typed arrays transferred, as src/lib/stream/backfill/backfillWorker does.
 */
import { decodeBackfill } from '../src/lib/stream/backfill/backfill';
import { updateTransferables } from '../src/lib/stream/transport/updates';

self.onmessage = async (ev: MessageEvent<{ url: string }>) => {
	const t0 = performance.now();
	const res = await fetch(ev.data.url);
	const body = new Uint8Array(await res.arrayBuffer());
	const t1 = performance.now();
	const decoded = decodeBackfill(body);
	const t2 = performance.now();
	postMessage(
		{ updates: decoded.updates, fetchMs: t1 - t0, decodeMs: t2 - t1, corrupt: decoded.corrupt },
		{ transfer: decoded.updates.flatMap(updateTransferables) }
	);
};
