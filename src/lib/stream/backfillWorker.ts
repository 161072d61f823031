/// <reference lib="webworker" />
/**
 * A short-lived module worker that fetches one backfill (`/history/<ticker>/<stream>`) and
 * decodes it with the live decode path (./backfill -> decodeRelayMessage), posting the updates
 * with their typed arrays as transferables. Separate from the stream worker so polling tiers,
 * past days and the heatmap use it without holding a `/stream` socket.
 */
import { parseHistoryPending, parseRetryAfter } from '../contract/historyPending';
import { decodeBackfill } from './backfill';
import type { BackfillReply, BackfillRequest } from './backfillMessages';
import { updateTransferables } from './updates';

const scope = self as unknown as DedicatedWorkerGlobalScope;

scope.onmessage = async (ev: MessageEvent<BackfillRequest>) => {
	const { id, url } = ev.data;
	const post = (reply: BackfillReply, transfer: ArrayBuffer[] = []) =>
		scope.postMessage(reply, transfer);
	try {
		const started = performance.now();
		const res = await fetch(url, { credentials: 'same-origin' });
		if (!res.ok) {
			let error = `${res.status} ${res.statusText}`;
			let body: unknown;
			try {
				body = await res.json();
				error = (body as { error?: string }).error ?? error;
			} catch {
				// not JSON: keep the status line
			}
			post({
				id,
				ok: false,
				status: res.status,
				error,
				pending: res.status === 504 ? parseHistoryPending(body) : undefined,
				retryAfter: parseRetryAfter(res.headers.get('retry-after'), Date.now())
			});
			return;
		}
		const body = new Uint8Array(await res.arrayBuffer());
		const fetched = performance.now();
		const decoded = decodeBackfill(body);
		const decodeMs = performance.now() - fetched;
		post(
			{
				id,
				ok: true,
				updates: decoded.updates,
				corrupt: decoded.corrupt,
				lastError: decoded.lastError,
				bytes: body.length,
				fetchMs: fetched - started,
				decodeMs,
				day: res.headers.get('x-gexdeck-day') ?? undefined,
				recording: res.headers.get('x-gexdeck-recording') === '1'
			},
			decoded.updates.flatMap(updateTransferables)
		);
	} catch (e) {
		post({ id, ok: false, status: 0, error: e instanceof Error ? e.message : String(e) });
	}
};
