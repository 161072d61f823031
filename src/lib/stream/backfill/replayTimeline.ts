/**
 * The replay timeline's pure logic: which recorded moments of a GEX group can be shown (the
 * ring's rows that kept a strike ladder, every 5 s), the one nearest a time, the range of
 * today's session, readable ET labels, and a recorded row back as the chain the Classic view
 * draws. No IndexedDB and no runes here: the page's SessionReplay feeds it chunks.
 */
import type { ColumnarGex } from '../../wire/columnar';
import { chunkRow, type RingChunk } from '../ring/ringChunk';
import { etDay, etInstant, formatEtClock, formatEtMonthDay } from '../../contract/newYorkTime';
import { sessionName } from '../../contract/freshness';

/** One recorded snapshot: a row of a chunk that kept the strike ladder. */
export interface RecordedFrame {
	timestamp: number;
	chunk: RingChunk;
	row: number;
}

/**
 * The chunk list after a refresh: `fresh` chunks replace the held ones of the same span (a
 * checkpointed span grows), the rest are kept; sorted by span start.
 */
export function withFreshChunks(
	held: readonly RingChunk[],
	fresh: readonly RingChunk[]
): RingChunk[] {
	const byStart = new Map<number, RingChunk>();
	for (const c of held) byStart.set(c.start, c);
	for (const c of fresh) byStart.set(c.start, c);
	return [...byStart.values()].sort((a, b) => a.start - b.start);
}

/** The snapshots (rows with a ladder) of GEX chunks, oldest first, one per timestamp. */
export function framesOf(chunks: readonly RingChunk[]): RecordedFrame[] {
	const frames: RecordedFrame[] = [];
	for (const chunk of chunks) {
		if (chunk.kind !== 'gex') continue;
		for (let i = 0; i < chunk.count; i++) {
			if (chunk.ladderOffsets[i + 1] > chunk.ladderOffsets[i]) {
				frames.push({ timestamp: chunk.timestamps[i], chunk, row: i });
			}
		}
	}
	frames.sort((a, b) => a.timestamp - b.timestamp);
	return frames.filter((f, i) => i === 0 || f.timestamp !== frames[i - 1].timestamp);
}

/**
 * Today's session: the frames on the same New York day as the newest one. Frames are sorted, so
 * the day starts at the first frame at or after the newest one's ET midnight: one day lookup
 * and a binary search, not an ET conversion per frame (a full day's 4,680 frames took ~60 ms
 * that way, on every refresh of the timeline).
 */
export function sessionFrames<T extends { timestamp: number }>(frames: readonly T[]): T[] {
	const newest = frames.at(-1);
	if (!newest) return [];
	const midnight = etInstant(etDay(newest.timestamp), 0);
	let lo = 0;
	let hi = frames.length - 1;
	while (lo < hi) {
		const mid = (lo + hi) >> 1;
		if (frames[mid].timestamp < midnight) lo = mid + 1;
		else hi = mid;
	}
	return frames.slice(lo);
}

/**
 * Index of the frame nearest `timestamp` (the earlier one on a tie), or -1 without frames.
 * Frames are sorted by timestamp.
 */
export function nearestFrame(frames: readonly { timestamp: number }[], timestamp: number): number {
	if (frames.length === 0) return -1;
	let lo = 0;
	let hi = frames.length - 1;
	while (lo < hi) {
		const mid = (lo + hi) >> 1;
		if (frames[mid].timestamp < timestamp) lo = mid + 1;
		else hi = mid;
	}
	// lo: the first frame at or after `timestamp` (or the last frame).
	if (lo > 0 && timestamp - frames[lo - 1].timestamp <= frames[lo].timestamp - timestamp) {
		return lo - 1;
	}
	return lo;
}

export interface TimelineRange {
	from: number;
	to: number;
	count: number;
}

export function timelineRange(frames: readonly { timestamp: number }[]): TimelineRange | null {
	if (frames.length === 0) return null;
	return {
		from: frames[0].timestamp,
		to: frames[frames.length - 1].timestamp,
		count: frames.length
	};
}

/**
 * A timeline label in New York time: "14:31:05 ET", with the date ("Nov 22, 14:31:05 ET") when
 * it is not on the same New York day as `reference` (the live edge).
 */
export function formatReplayTime(unixSeconds: number, reference = unixSeconds): string {
	const clock = `${formatEtClock(unixSeconds)} ET`;
	return etDay(unixSeconds) === etDay(reference)
		? clock
		: `${formatEtMonthDay(unixSeconds)}, ${clock}`;
}

/** The session of the newest data (`edgeSeconds`), "today" or its day (contract/freshness.ts). */
export function recordedSession(edgeSeconds: number, nowMs: number): string {
	return sessionName(etDay(edgeSeconds), nowMs);
}

/** How far a replayed moment is behind live: "45s", "2m 05s", "1h 02m". */
export function formatBehind(seconds: number): string {
	const s = Math.max(0, Math.round(seconds));
	if (s < 60) return `${s}s`;
	const pad = (n: number) => String(n).padStart(2, '0');
	if (s < 3600) return `${Math.floor(s / 60)}m ${pad(s % 60)}s`;
	return `${Math.floor(s / 3600)}h ${pad(Math.floor((s % 3600) / 60))}m`;
}

/**
 * A recorded snapshot as the Classic view's columns. The ring keeps the levels, sums, spot and
 * the strike ladder (strike, GEX by volume, by OI); lookback priors, max change and the DTE are
 * not recorded: priors and max change come back empty, the DTE as NaN (the view shows a dash).
 */
export function frameChain(frame: RecordedFrame, ticker: string): ColumnarGex {
	const { scalars, ladder } = chunkRow(frame.chunk, frame.row);
	const cols = frame.chunk.ladderColumns;
	const width = cols.length;
	const [si, vi, oi] = ['strike', 'gexVol', 'gexOi'].map((c) => cols.indexOf(c));
	if (!ladder || si < 0 || vi < 0 || oi < 0) {
		throw new Error(`frameChain: ${frame.chunk.group}@${frame.timestamp} has no GEX ladder`);
	}
	const n = Math.ceil(ladder.length / width);
	const strikes = new Float64Array(n);
	const gexVol = new Float64Array(n);
	const gexOi = new Float64Array(n);
	for (let r = 0; r < n; r++) {
		const at = r * width;
		strikes[r] = ladder[at + si];
		gexVol[r] = ladder[at + vi];
		gexOi[r] = ladder[at + oi];
	}
	return {
		timestamp: frame.timestamp,
		ticker,
		minDte: Number.NaN,
		secMinDte: Number.NaN,
		spot: scalars.spot,
		zeroGamma: scalars.zeroGamma,
		majorPosVol: scalars.majorPosVol,
		majorPosOi: scalars.majorPosOi,
		majorNegVol: scalars.majorNegVol,
		majorNegOi: scalars.majorNegOi,
		sumGexVol: scalars.sumGexVol,
		sumGexOi: scalars.sumGexOi,
		deltaRiskReversal: scalars.deltaRiskReversal,
		strikes,
		gexVol,
		gexOi,
		priorCount: 0,
		priors: new Float64Array(0),
		maxPriors: new Float64Array(0)
	};
}
