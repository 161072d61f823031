/**
 * Alert firings for every open tab through one /alerts/events stream per browser, not one per tab.
 *
 * An EventSource is a long HTTP request, and HTTP/1.1 lets a browser hold six connections per
 * host: with one stream per tab the seventh tab of the dashboard stalled, its page and API
 * requests queued behind six idle streams. Here the tabs elect one holder with the Web Locks API
 * (the lock passes to a waiting tab when the holder closes or navigates away); the holder keeps
 * the one EventSource and posts each firing on a BroadcastChannel that every other tab of the
 * origin hears. A browser without either API falls back to a stream per tab.
 */
import type { AlertFiring } from '$lib/alerts/firing';

/** Wait before opening the firing stream again after the server refused it (503 when full). */
const RETRY_MS = 30_000;
const LOCK_NAME = 'gexdeck-alert-events';
const CHANNEL_NAME = 'gexdeck-alert-firings';

function parseFiring(data: unknown): AlertFiring | undefined {
	if (typeof data !== 'string') return undefined;
	try {
		const f = JSON.parse(data) as AlertFiring;
		return typeof f?.id === 'string' ? f : undefined;
	} catch {
		return undefined;
	}
}

/**
 * Opens the firing stream at `url` and hands each firing to `onFiring`; a refusal closes the
 * EventSource for good, so it is opened again after RETRY_MS (other drops reconnect by
 * themselves). Returns the function that closes it.
 */
function openStream(url: string, onFiring: (f: AlertFiring, raw: string) => void): () => void {
	let source: EventSource | undefined;
	let retry: ReturnType<typeof setTimeout> | undefined;
	const open = () => {
		const s = new EventSource(url);
		source = s;
		s.addEventListener('firing', (e) => {
			const raw = (e as MessageEvent<string>).data;
			const f = parseFiring(raw);
			if (f) onFiring(f, raw);
		});
		s.addEventListener('error', () => {
			if (s.readyState === EventSource.CLOSED && !retry) {
				retry = setTimeout(() => {
					retry = undefined;
					open();
				}, RETRY_MS);
			}
		});
	};
	open();
	return () => {
		clearTimeout(retry);
		source?.close();
	};
}

/**
 * Calls `onFiring` for each alert firing while subscribed, in this tab, whichever tab holds
 * the stream. Returns the unsubscribe function (it releases the stream to another tab).
 */
export function subscribeFirings(url: string, onFiring: (f: AlertFiring) => void): () => void {
	const locks = typeof navigator !== 'undefined' ? navigator.locks : undefined;
	if (!locks || typeof BroadcastChannel === 'undefined') return openStream(url, onFiring);

	const channel = new BroadcastChannel(CHANNEL_NAME);
	channel.onmessage = (e: MessageEvent) => {
		const f = parseFiring(e.data);
		if (f) onFiring(f);
	};
	const abandon = new AbortController();
	let release: (() => void) | undefined;
	let closed = false;
	locks
		.request(LOCK_NAME, { signal: abandon.signal }, () => {
			if (closed) return undefined;
			const close = openStream(url, (f, raw) => {
				onFiring(f);
				channel.postMessage(raw); // every other tab; a channel never hears itself
			});
			// Held until this tab unsubscribes (or goes away, which frees the lock by itself).
			return new Promise<void>((resolve) => {
				release = () => {
					close();
					resolve();
				};
			});
		})
		.catch(() => undefined); // aborted while waiting: another tab held the stream
	return () => {
		closed = true;
		abandon.abort();
		release?.();
		channel.close();
	};
}
