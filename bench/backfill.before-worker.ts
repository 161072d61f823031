/**
 * The backfill worker as it was before the streamed decode (the "before" of
 * bench/backfill.bench.ts), built from the codec functions that path called: fetch the whole
 * body, split it, decode every frame to REST-shaped rows (decodeFrame) and then to columns
 * (columnarGex), and post every update in one message with its typed arrays transferred.
 */
import { splitBackfill } from '../src/lib/relay/backfillBody';
import { parseRelayFrame } from '../src/lib/relay/relayFrame';
import { columnarGex } from '../src/lib/wire/columnar';
import { decodeFrame } from '../src/lib/wire/decode';
import { updateTransferables, type StreamUpdate } from '../src/lib/stream/transport/updates';

self.onmessage = async (ev: MessageEvent<{ url: string }>) => {
	const res = await fetch(ev.data.url);
	const body = new Uint8Array(await res.arrayBuffer());
	const t = performance.now();
	const updates: StreamUpdate[] = [];
	for (const { frame } of splitBackfill(body)) {
		const parsed = parseRelayFrame(frame);
		if (!parsed.ok) continue;
		const { group, any } = parsed.frame;
		const f = decodeFrame(any);
		const base = { group, ticker: '', timestamp: 0 };
		if (f.kind === 'gex') {
			const value = columnarGex(f.value);
			updates.push({
				...base,
				kind: 'gex',
				ticker: value.ticker,
				timestamp: value.timestamp,
				value
			});
		} else if (f.kind === 'orderflow') {
			updates.push({
				...base,
				kind: 'orderflow',
				ticker: f.value.ticker,
				timestamp: f.value.timestamp,
				value: f.value
			});
		}
	}
	const decodeMs = performance.now() - t;
	postMessage({ updates, decodeMs }, { transfer: updates.flatMap(updateTransferables) });
};
