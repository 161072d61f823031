/**
 * One LiveStream (one decode worker, one /stream socket) per browser tab, shared by the live
 * pages so moving between the Classic view, levels and the watchlist keeps the connection.
 */
import { LiveStream } from '$lib/stream';

let shared: LiveStream | undefined;

export function sharedLiveStream(): LiveStream {
	if (!shared) {
		shared = new LiveStream();
		// Diagnostics handle (e2e injects a corrupt frame through it; devtools can read stats).
		(globalThis as { gexdeckStream?: LiveStream }).gexdeckStream = shared;
	}
	return shared;
}
