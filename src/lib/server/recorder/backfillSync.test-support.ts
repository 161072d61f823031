/**
 * The /history answer as it was built before it streamed: every record of the range read at
 * once with RecordFile.read, the two streams concatenated and stably sorted by arrival,
 * snapshots gunzipped, and encodeBackfill of all of them in one buffer, on the event loop. The
 * reference the streamed answer is checked against byte for byte (backfillStream.test.ts) and
 * the "before" side of bench/backfillServer.bench.ts. Success answers only: the query is
 * assumed valid (backfillResponse checks it).
 */
import { gunzipSync } from 'node:zlib';
import { BACKFILL_FRAME, BACKFILL_SNAPSHOT, encodeBackfill } from '../../relay/backfillBody';
import { RecordKind, type StoredRecord } from './recordFile';
import type { SessionRecorder } from './sessionRecorder';

export function synchronousBackfill(
	rec: SessionRecorder,
	day: string,
	ticker: string,
	stream: string,
	q: URLSearchParams
): { body: Uint8Array; records: string; first: string | null; last: string | null } {
	const n = (k: string) => (q.get(k) === null ? undefined : Number(q.get(k)));
	const [from, to, step] = [n('from'), n('to'), n('step')];
	let records: { group: string; r: StoredRecord }[] = rec
		.read(day, ticker, stream, from, to, step)
		.map((r) => ({ group: `${ticker}_${stream}`, r }));
	if (q.get('with') === 'spot' && stream !== 'spot') {
		const spot = rec.read(day, ticker, 'spot', from, to, step);
		records = records
			.concat(spot.map((r) => ({ group: `${ticker}_spot`, r })))
			.sort((a, b) => a.r.receivedAt - b.r.receivedAt);
	}
	const body = encodeBackfill(
		records.map(({ group, r }) =>
			r.kind === RecordKind.StreamAny
				? { kind: BACKFILL_FRAME, group, bytes: r.payload }
				: { kind: BACKFILL_SNAPSHOT, group, bytes: gunzipSync(r.payload) }
		)
	);
	return {
		body,
		records: String(records.length),
		first: records[0] ? String(records[0].r.timestamp) : null,
		last: records.at(-1) ? String(records.at(-1)!.r.timestamp) : null
	};
}
