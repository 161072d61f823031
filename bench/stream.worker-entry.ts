/**
 * Bundled into a worker by bench/stream.bench.ts and run in Chromium: times the decode worker's
 * path (decodeRelayMessage: relay frame -> fzstd -> static protobuf -> columnar typed arrays)
 * on the frames it is sent, in batches so the timer's resolution does not matter.
 */
import { decodeRelayMessage } from '../src/lib/stream/transport/relayDecode';

self.onmessage = (ev: MessageEvent<{ frame: ArrayBuffer; batches: number; batchSize: number }>) => {
	const bytes = new Uint8Array(ev.data.frame);
	for (let i = 0; i < 200; i++) decodeRelayMessage(bytes);
	const perFrame: number[] = [];
	for (let b = 0; b < ev.data.batches; b++) {
		const t = performance.now();
		for (let i = 0; i < ev.data.batchSize; i++) {
			const out = decodeRelayMessage(bytes);
			if (!out.ok) throw new Error(out.error);
		}
		perFrame.push((performance.now() - t) / ev.data.batchSize);
	}
	postMessage(perFrame);
};
