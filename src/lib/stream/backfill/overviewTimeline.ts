/**
 * Classic's replay timeline drawn from the day overview (issue 26): the day's moments are the
 * overview's 10 s steps (its lines only, `cells=none`: a full day is a few tens of KB where the
 * raw frames were ~24 MB), followed by the snapshots the browser holds after the overview's last
 * step (today's ring, a followed day's new records). A step's chain is not in the overview: it
 * is one record read at that moment through the recording's index (momentReader.ts), unless the
 * browser already holds a snapshot at that exact time. Pure: no fetch, no runes.
 */
import type { OverviewResult } from './overviewClient';
import { sessionFrames, type RecordedFrame } from './replayTimeline';

/** The day's lines by metric, as the price chart and the timeline read them. */
export interface DayLines {
	/** The recorded day (ET) the overview is of. */
	day: string;
	times: Float64Array;
	spot: Float32Array;
	zeroGamma: Float32Array;
	majorPos: { vol: Float32Array; oi: Float32Array };
	majorNeg: { vol: Float32Array; oi: Float32Array };
	/** The day is still being recorded: a view of a picked day follows its raw records. */
	recording: boolean;
	/** Bytes of the overview answers (inflated). */
	bytes: number;
}

/** One moment of the timeline. */
export interface ReplayPoint {
	timestamp: number;
	/** A snapshot the browser holds at this time; absent: the chain is read from the server. */
	frame?: RecordedFrame;
	/** The overview column of this moment, or -1 for a snapshot after the overview's end. */
	column: number;
}

/**
 * The day's lines of two overview answers of the same day (by volume, by OI), or undefined when
 * either is missing, empty or of another day or step count (then the raw way is used).
 */
export function dayLinesOf(
	vol: OverviewResult | undefined,
	oi: OverviewResult | undefined
): DayLines | undefined {
	if (!vol || !oi || vol.header.columns === 0) return undefined;
	if (vol.header.day !== oi.header.day || vol.times.length !== oi.times.length) return undefined;
	return {
		day: vol.header.day,
		times: vol.times,
		spot: vol.spot,
		zeroGamma: vol.zeroGamma,
		majorPos: { vol: vol.majorPos, oi: oi.majorPos },
		majorNeg: { vol: vol.majorNeg, oi: oi.majorNeg },
		recording: vol.recording,
		bytes: vol.bytes + oi.bytes
	};
}

/**
 * The timeline's moments, oldest first, of one session: every overview step (with the browser's
 * snapshot of the same time when it has one), then the held snapshots newer than the overview's
 * last step. `frames` are sorted (framesOf). Only the session of the newest moment is kept, as
 * the ring-only timeline did (a new day's ring after yesterday's overview starts afresh).
 */
export function replayPoints(
	lines: DayLines | undefined,
	frames: readonly RecordedFrame[]
): ReplayPoint[] {
	const points: ReplayPoint[] = [];
	let end = -Infinity;
	if (lines && lines.times.length > 0) {
		const held = new Map<number, RecordedFrame>();
		for (const f of frames) held.set(f.timestamp, f);
		for (let i = 0; i < lines.times.length; i++) {
			const timestamp = lines.times[i];
			points.push({ timestamp, frame: held.get(timestamp), column: i });
		}
		end = lines.times[lines.times.length - 1];
	}
	for (const f of frames) {
		if (f.timestamp > end) points.push({ timestamp: f.timestamp, frame: f, column: -1 });
	}
	return sessionFrames(points);
}

/** The moment whose chain must be read from the server (no snapshot held), or undefined. */
export function momentToRead(point: ReplayPoint | undefined): number | undefined {
	return point && !point.frame ? point.timestamp : undefined;
}
