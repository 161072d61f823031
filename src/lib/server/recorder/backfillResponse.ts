/**
 * GET /history/<ticker>/<stream>?day=YYYY-MM-DD&from=<unix s>&to=<unix s>&with=spot&step=N: one
 * recorded stream of a day (the whole session so far by default) as a backfill body
 * (src/lib/relay/backfillBody.ts). `with=spot` merges the ticker's spot frames in arrival order, so a
 * view gets exactly the sequence a viewer connected from the start received. Framework-free so
 * the SvelteKit route and the integration tests' server use the same code.
 */
import { gunzipSync } from 'node:zlib';
import {
	BACKFILL_FRAME,
	BACKFILL_SNAPSHOT,
	encodeBackfill,
	type BackfillEntry
} from '../../relay/backfillBody';
import { RecordKind, type StoredRecord } from './recordFile';
import {
	isRecordedDay,
	isRecordedTicker,
	isStreamName,
	type SessionRecorder
} from './sessionRecorder';

export interface BackfillAnswer {
	status: number;
	headers: Record<string, string>;
	body: Uint8Array | string;
}

function problem(status: number, error: string): BackfillAnswer {
	return {
		status,
		headers: { 'content-type': 'application/json', 'cache-control': 'no-store' },
		body: JSON.stringify({ error })
	};
}

function bound(raw: string | null, name: string): number | undefined | Error {
	if (raw === null || raw === '') return undefined;
	const n = Number(raw);
	return Number.isFinite(n) ? n : new Error(`${name} must be unix seconds, got ${raw}`);
}

export function backfillResponse(
	recorder: SessionRecorder,
	ticker: string,
	stream: string,
	query: URLSearchParams
): BackfillAnswer {
	if (!isRecordedTicker(ticker)) return problem(400, `Not a ticker: ${ticker}`);
	if (!isStreamName(stream)) return problem(400, `Not a stream name: ${stream}`);
	// Unknown values are errors, not silently the default: a typo would read the wrong thing.
	const source = query.get('source');
	if (source !== null && source !== 'service') {
		return problem(
			400,
			`source must be "service" (the service's history) or absent, got ${source}`
		);
	}
	const also = query.get('with');
	if (also !== null && also !== 'spot') return problem(400, `with must be "spot", got ${also}`);
	const from = bound(query.get('from'), 'from');
	const to = bound(query.get('to'), 'to');
	if (from instanceof Error) return problem(400, from.message);
	if (to instanceof Error) return problem(400, to.message);
	const days = recorder.daysOf(ticker, stream);
	const day = query.get('day') ?? days.at(-1);
	if (day === undefined) return problem(404, `Nothing recorded for ${ticker} ${stream} yet.`);
	if (!isRecordedDay(day)) return problem(400, `day must be YYYY-MM-DD, got ${day}`);
	if (!recorder.has(day, ticker, stream)) {
		return problem(404, `${ticker} ${stream} was not recorded on ${day}.`);
	}
	// step=N: the first record of every N-second bucket (a day overview needs no more columns
	// than a screen is wide; spot frames are thinned alike), picked from the recording's index.
	const step = bound(query.get('step'), 'step');
	if (step instanceof Error || (step !== undefined && !(step >= 1 && step <= 3600))) {
		return problem(400, 'step must be 1-3600 seconds');
	}
	let records: { group: string; r: StoredRecord }[] = recorder
		.read(day, ticker, stream, from, to, step)
		.map((r) => ({ group: `${ticker}_${stream}`, r }));
	const withSpot = query.get('with') === 'spot' && stream !== 'spot';
	if (withSpot) {
		const spot = recorder
			.read(day, ticker, 'spot', from, to, step)
			.map((r) => ({ group: `${ticker}_spot`, r }));
		// Arrival order is the order the live viewer saw; the sort is stable for equal stamps.
		records = records.concat(spot).sort((a, b) => a.r.receivedAt - b.r.receivedAt);
	}
	const entries: BackfillEntry[] = records.map(({ group, r }) =>
		r.kind === RecordKind.StreamAny
			? { kind: BACKFILL_FRAME, group, bytes: r.payload }
			: { kind: BACKFILL_SNAPSHOT, group, bytes: gunzipSync(r.payload) }
	);
	const first = records[0]?.r.timestamp;
	const last = records.at(-1)?.r.timestamp;
	return {
		status: 200,
		headers: {
			'content-type': 'application/octet-stream',
			'cache-control': 'no-store',
			'x-gexdeck-day': day,
			'x-gexdeck-records': String(entries.length),
			// The day is still being recorded: a view of it asks again for what follows `last`.
			...(recorder.recordingDay() === day ? { 'x-gexdeck-recording': '1' } : {}),
			...(first !== undefined ? { 'x-gexdeck-first': String(first) } : {}),
			...(last !== undefined ? { 'x-gexdeck-last': String(last) } : {})
		},
		body: encodeBackfill(entries)
	};
}

/** GET /history/<ticker>: the recorded days and their streams, newest day first. */
export function recordedDaysResponse(recorder: SessionRecorder, ticker: string): BackfillAnswer {
	if (!isRecordedTicker(ticker)) return problem(400, `Not a ticker: ${ticker}`);
	const days = recorder
		.days()
		.reverse()
		.map((day) => ({ day, streams: recorder.streams(day, ticker) }))
		.filter((d) => d.streams.length > 0);
	return {
		status: 200,
		headers: { 'content-type': 'application/json', 'cache-control': 'no-store' },
		body: JSON.stringify({ ticker, days, recording: recorder.recordingDay() ?? null })
	};
}
