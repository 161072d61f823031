/**
 * A trading day's time series of the orderflow feed: the cumulative session flows (DEX, GEX and
 * convexity flow, 0DTE and next expiry) and spot, one point per data timestamp, kept in growable
 * typed arrays in time order. Points come from the stream or the 1 s poller in any order and
 * any number of times: a timestamp is stored once (the newest value wins), so a day holds at
 * most one point per second, 23,401 in a session. A point of a later ET day starts a new series.
 * The series and their order are the contract's (flowSeries.ts), shared with the day overview.
 */
import { etDay, etInstant } from '../../contract/newYorkTime';
import { FLOW_SERIES, SERIES_COUNT } from '../../contract/flowSeries';

export {
	FLOW_SERIES,
	SERIES_COUNT,
	flowValues,
	type FlowSeriesKey
} from '../../contract/flowSeries';

/** Points of one storage chunk: times and, per series of FLOW_SERIES, the values. */
export interface SeriesChunk {
	/** Unix seconds, strictly increasing. */
	times: Uint32Array;
	/** One array per series, each as long as `times`. */
	values: Float64Array[];
}

/** A storage chunk holds the points of this many seconds of the day (10 minutes). */
export const CHUNK_SECONDS = 600;

export class SeriesError extends Error {}

export function isSeriesTimestamp(t: number): boolean {
	return Number.isInteger(t) && t > 0 && t <= 0xffffffff;
}

export type AppendResult = 'appended' | 'replaced' | 'inserted' | 'rolled-over' | 'older-day';

/** Index of the first time >= t in times[0, length). */
export function lowerBound(times: Uint32Array, length: number, t: number): number {
	let lo = 0;
	let hi = length;
	while (lo < hi) {
		const mid = (lo + hi) >>> 1;
		if (times[mid] < t) lo = mid + 1;
		else hi = mid;
	}
	return lo;
}

export class DaySeries {
	/** ET day `YYYY-MM-DD` of the points, null before the first one. */
	day: string | null = null;
	length = 0;
	times = new Uint32Array(1024);
	values: Float64Array[] = FLOW_SERIES.map(() => new Float64Array(1024));
	/** Bumped on every change, so a view can redraw without comparing arrays. */
	revision = 0;
	private dayStart = 0;
	private dayEnd = 0;
	/** Chunk numbers changed since the last `takeDirty`. */
	private dirty = new Set<number>();

	/** Empties the series and makes it the series of `day`. */
	reset(day: string | null): void {
		this.day = day;
		this.length = 0;
		this.dirty.clear();
		this.revision++;
		if (day) {
			this.dayStart = etInstant(day, 0);
			this.dayEnd = etInstant(day, 24 * 3600);
		}
	}

	/** Adds one point; values in FLOW_SERIES order. */
	append(t: number, values: ArrayLike<number>): AppendResult {
		if (!isSeriesTimestamp(t)) throw new SeriesError(`timestamp must be a unix second, got ${t}`);
		if (values.length !== SERIES_COUNT) {
			throw new SeriesError(`expected ${SERIES_COUNT} values, got ${values.length}`);
		}
		let rolled = false;
		if (this.day === null || t < this.dayStart || t >= this.dayEnd) {
			const day = etDay(t);
			if (this.day !== null && day < this.day) return 'older-day';
			rolled = this.day !== null;
			this.reset(day);
		}
		const n = this.length;
		let result: AppendResult;
		let at: number;
		if (n === 0 || t > this.times[n - 1]) {
			this.grow(n + 1);
			at = n;
			this.length = n + 1;
			result = 'appended';
		} else {
			at = lowerBound(this.times, n, t);
			if (this.times[at] === t) {
				result = 'replaced';
			} else {
				this.grow(n + 1);
				this.times.copyWithin(at + 1, at, n);
				for (const v of this.values) v.copyWithin(at + 1, at, n);
				this.length = n + 1;
				result = 'inserted';
			}
		}
		this.times[at] = t;
		for (let s = 0; s < SERIES_COUNT; s++) this.values[s][at] = values[s];
		this.dirty.add(this.chunkOf(t));
		this.revision++;
		return rolled ? 'rolled-over' : result;
	}

	/** Adds a stored chunk's points; the points already held win on equal timestamps. */
	merge(chunk: SeriesChunk): void {
		for (let i = 0; i < chunk.times.length; i++) {
			const t = chunk.times[i];
			if (this.day !== null && (t < this.dayStart || t >= this.dayEnd)) continue;
			if (this.day !== null && this.indexOf(t) >= 0) continue;
			const row = chunk.values.map((v) => v[i]);
			this.append(t, row);
		}
	}

	/** Index of the point at exactly t, or -1. */
	indexOf(t: number): number {
		const i = lowerBound(this.times, this.length, t);
		return i < this.length && this.times[i] === t ? i : -1;
	}

	/** Chunk number of a timestamp of this day. */
	chunkOf(t: number): number {
		return Math.floor((t - this.dayStart) / CHUNK_SECONDS);
	}

	/** Copies of the points of chunk `k`. */
	chunk(k: number): SeriesChunk {
		const from = this.dayStart + k * CHUNK_SECONDS;
		const i0 = lowerBound(this.times, this.length, from);
		const i1 = lowerBound(this.times, this.length, from + CHUNK_SECONDS);
		return {
			times: this.times.slice(i0, i1),
			values: this.values.map((v) => v.slice(i0, i1))
		};
	}

	/** Marks chunks to write again (a failed save hands its chunks back). */
	markDirty(chunks: Iterable<number>): void {
		for (const k of chunks) this.dirty.add(k);
	}

	/** Chunk numbers changed since the last call (for the storage writer). */
	takeDirty(): number[] {
		const out = [...this.dirty].sort((a, b) => a - b);
		this.dirty.clear();
		return out;
	}

	private grow(needed: number): void {
		if (needed <= this.times.length) return;
		const cap = Math.max(needed, this.times.length * 2);
		const times = new Uint32Array(cap);
		times.set(this.times.subarray(0, this.length));
		this.times = times;
		this.values = this.values.map((v) => {
			const next = new Float64Array(cap);
			next.set(v.subarray(0, this.length));
			return next;
		});
	}
}

/**
 * Two sorted chunks as one (union by timestamp, `mine` winning on equal timestamps): what a tab
 * writes when another tab stored the same chunk, so neither tab's points are lost.
 */
export function mergeChunks(stored: SeriesChunk, mine: SeriesChunk): SeriesChunk {
	const a = stored.times;
	const b = mine.times;
	const times = new Uint32Array(a.length + b.length);
	const values = FLOW_SERIES.map(() => new Float64Array(a.length + b.length));
	let i = 0;
	let j = 0;
	let n = 0;
	while (i < a.length || j < b.length) {
		let fromMine: boolean;
		if (j >= b.length) fromMine = false;
		else if (i >= a.length) fromMine = true;
		else if (a[i] === b[j]) {
			i++; // the same second: keep mine
			fromMine = true;
		} else fromMine = b[j] < a[i];
		const src = fromMine ? mine : stored;
		const k = fromMine ? j++ : i++;
		times[n] = src.times[k];
		for (let s = 0; s < SERIES_COUNT; s++) values[s][n] = src.values[s]?.[k] ?? NaN;
		n++;
	}
	return { times: times.slice(0, n), values: values.map((v) => v.slice(0, n)) };
}
