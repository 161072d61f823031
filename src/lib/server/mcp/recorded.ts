/**
 * Levels from the recording (the recorder's files on the data folder): the levels at a past
 * moment, and a day's open/now/high/low of spot, zero gamma and the majors. Reads only what the
 * recorder already wrote: no upstream call. Pure over a SessionRecorder, so tests can run it on
 * any recordings folder.
 */
import { gunzipSync } from 'node:zlib';
import { feedOf, feedStream } from '../../contract/feeds';
import type { CanonicalCategory } from '../../contract/categories';
import { classicChainSchema, type ClassicChain } from '../../contract/schemas';
import { safeParse } from '../../contract/validate';
import { buildLevels, etText, STALE_AFTER_S, type LevelsDocument } from '../../levels/document';
import { decodeFrame } from '../../wire/decode';
import { RecordKind, type StoredRecord } from '../recorder/recordFile';
import type { SessionRecorder } from '../recorder/sessionRecorder';

/** day_summary reads the first record of every bucket this long (a day is ~2,300 reads). */
export const SUMMARY_STEP_S = 10;
/** at() looks this far back for the last record at or before the moment asked. */
export const AT_LOOKBACK_S = 15 * 60;

export const SUMMARY_SERIES = [
	'spot',
	'zero_gamma_vol',
	'major_pos_vol',
	'major_pos_oi',
	'major_neg_vol',
	'major_neg_oi'
] as const;

export interface SeriesSummary {
	open: number | null;
	now: number | null;
	high: number | null;
	low: number | null;
	high_at: string | null;
	low_at: string | null;
}

export interface DaySummary {
	ticker: string;
	category: string;
	day: string;
	source: 'recording';
	first: { unix_ms: number; et: string };
	last: { unix_ms: number; et: string };
	/** Records read: the first of every `sample_seconds` bucket of the day. */
	samples: number;
	sample_seconds: number;
	series: Record<(typeof SUMMARY_SERIES)[number], SeriesSummary>;
}

export type Recorded<T> = { ok: true; value: T } | { ok: false; error: string };

export function chainOfRecord(r: StoredRecord): ClassicChain | null {
	try {
		if (r.kind === RecordKind.StreamAny) {
			const frame = decodeFrame(r.payload);
			return frame.kind === 'gex' ? frame.value : null;
		}
		const parsed = safeParse(classicChainSchema, JSON.parse(gunzipSync(r.payload).toString()));
		return parsed.ok ? parsed.value : null;
	} catch {
		return null;
	}
}

function streamOf(ticker: string, category: string): string {
	return feedStream(feedOf(ticker, 'classic', category as CanonicalCategory));
}

function nothing(rec: SessionRecorder, ticker: string, category: string, day: string): string {
	const days = rec.daysOf(ticker, streamOf(ticker, category));
	const known = days.length > 0 ? `recorded days: ${days.slice(-5).join(', ')}` : 'no day at all';
	return `nothing recorded for ${ticker} ${category} on ${day} (${known})`;
}

/** The newest recorded day of the ticker's feed, if any. */
export function latestDay(rec: SessionRecorder, ticker: string, category: string): string | null {
	return rec.daysOf(ticker, streamOf(ticker, category)).at(-1) ?? null;
}

/** The levels of the last record at or before `unixS` on `day` (source 'recording'). */
export function levelsAt(
	rec: SessionRecorder,
	ticker: string,
	category: string,
	day: string,
	unixS: number
): Recorded<LevelsDocument> {
	const stream = streamOf(ticker, category);
	if (!rec.has(day, ticker, stream))
		return { ok: false, error: nothing(rec, ticker, category, day) };
	const records = rec.read(day, ticker, stream, unixS - AT_LOOKBACK_S, unixS);
	for (let i = records.length - 1; i >= 0; i--) {
		const chain = chainOfRecord(records[i]);
		if (!chain) continue;
		return {
			ok: true,
			value: buildLevels({
				chain,
				category,
				receivedAt: records[i].receivedAt,
				now: records[i].receivedAt,
				source: 'recording',
				staleAfterSeconds: STALE_AFTER_S
			})
		};
	}
	return {
		ok: false,
		error: `nothing recorded for ${ticker} ${category} in the ${AT_LOOKBACK_S / 60} minutes up to ${etText(unixS * 1000)}`
	};
}

function emptySeries(): SeriesSummary {
	return { open: null, now: null, high: null, low: null, high_at: null, low_at: null };
}

/** Open/now/high/low of spot, zero gamma and the majors through a recorded day. */
export function daySummary(
	rec: SessionRecorder,
	ticker: string,
	category: string,
	day: string
): Recorded<DaySummary> {
	const stream = streamOf(ticker, category);
	if (!rec.has(day, ticker, stream))
		return { ok: false, error: nothing(rec, ticker, category, day) };
	const series = Object.fromEntries(
		SUMMARY_SERIES.map((k) => [k, emptySeries()])
	) as DaySummary['series'];
	let first: number | undefined;
	let last: number | undefined;
	let samples = 0;
	for (const r of rec.read(day, ticker, stream, undefined, undefined, SUMMARY_STEP_S)) {
		const chain = chainOfRecord(r);
		if (!chain) continue;
		samples++;
		const ms = Math.round(chain.timestamp * 1000);
		first ??= ms;
		last = ms;
		const doc = buildLevels({
			chain,
			category,
			receivedAt: r.receivedAt,
			now: r.receivedAt,
			source: 'recording',
			staleAfterSeconds: STALE_AFTER_S
		});
		const values: Record<string, number | null> = { spot: doc.spot };
		for (const l of doc.levels) values[l.id] = l.price;
		for (const key of SUMMARY_SERIES) {
			const v = values[key];
			if (v === null || v === undefined) continue;
			const s = series[key];
			s.open ??= v;
			s.now = v;
			if (s.high === null || v > s.high) [s.high, s.high_at] = [v, etText(ms)];
			if (s.low === null || v < s.low) [s.low, s.low_at] = [v, etText(ms)];
		}
	}
	if (first === undefined || last === undefined) {
		return { ok: false, error: `no readable levels recorded for ${ticker} ${category} on ${day}` };
	}
	return {
		ok: true,
		value: {
			ticker,
			category,
			day,
			source: 'recording',
			first: { unix_ms: first, et: etText(first) },
			last: { unix_ms: last, et: etText(last) },
			samples,
			sample_seconds: SUMMARY_STEP_S,
			series
		}
	};
}
