/// <reference lib="webworker" />
/**
 * The floor page's worker (bench/latency.bench.ts `--floor`): what every tab must do at least
 * for a streamed chain, and nothing else. It holds the tab's `/stream` socket, subscribes to
 * the watched group, decodes each frame with the app's own decoder (relayDecode.ts) and posts
 * the chain's net GEX column to the page, stamped like the app's worker (latencyMarks.ts).
 * No ring, no coalescing timer, no stats.
 */
import { decodeRelayMessage } from '../src/lib/stream/transport/relayDecode';

const scope = self as unknown as DedicatedWorkerGlobalScope;
const wall = () => performance.timeOrigin + performance.now();

scope.onmessage = (ev: MessageEvent<{ url: string; group: string }>) => {
	const { url, group } = ev.data;
	const socket = new WebSocket(url);
	socket.binaryType = 'arraybuffer';
	socket.onopen = () => socket.send(JSON.stringify({ type: 'subscribe', id: 1, groups: [group] }));
	socket.onmessage = (m) => {
		if (typeof m.data === 'string') return;
		const receivedAt = wall();
		const outcome = decodeRelayMessage(new Uint8Array(m.data as ArrayBuffer));
		if (!outcome.ok || outcome.update.kind !== 'gex' || outcome.update.group !== group) return;
		const { value } = outcome.update;
		scope.postMessage(
			{
				group,
				timestamp: value.timestamp,
				gexVol: value.gexVol,
				receivedAt,
				postedAt: wall()
			},
			[value.gexVol.buffer as ArrayBuffer]
		);
	};
};
