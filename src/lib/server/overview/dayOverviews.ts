/**
 * The day overviews beside the recordings: for every recorded chain stream and day, one row per
 * OVERVIEW_STEP_SECONDS (the first calculation of each step, the rule RecordFile.read(step)
 * thins by), in `<day>/<TICKER>/<stream>.ovw` (+ `.ovw.idx`): the same framed, checksummed,
 * kill-safe record file as the raw stream (RecordFile), of RecordKind.OverviewRow records.
 *
 * Why 10 s: a session is 2,340 steps, more columns than any screen is wide, so a whole-day view
 * never needs more; a tenth of the calculations (one a second), and a fifth of the old 5 s
 * thinning's columns, which kept a 400-strike day over 1 MB even quantised.
 *
 * Written as the recorder writes: recorded() gets each raw record as it is appended and adds a
 * row when it opens a new step (no read of the day). Caught up from the raw file when an
 * overview is opened (missing, behind after a kill, or a day imported from the service or an
 * EOD report: the same rows from the same records); rebuilt whole from the raw file when it is
 * damaged (a record inside it fails its checksum).
 *
 * What a row holds is its kind's (OverviewKind): the chain streams' (overviewRow.ts, the
 * default) or the orderflow streams' (flowOverviewRow.ts), each its own DayOverviews.
 */
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { RecordFile } from '../recorder/recordFile';
import { RecordKind } from '../recorder/recordFormat';
import { chainOverview, type OverviewRow } from './overviewRow';

export const OVERVIEW_STEP_SECONDS = 10;
/** Raw records are read back this many seconds at a time when an overview is caught up. */
const CATCH_UP_WINDOW_S = 1800;

type RawOf = (day: string, ticker: string, stream: string) => RecordFile | undefined;

/** What one kind of overview keeps of a raw record, and its rows' bytes. */
export interface OverviewKind<R extends { timestamp: number }> {
	/** Whether a recorded stream gets this kind of overview. */
	has(ticker: string, stream: string): boolean;
	/** The row of a raw record (undefined: not this kind's payload, or it does not decode). */
	ofRecord(kind: RecordKind, timestamp: number, payload: Uint8Array): R | undefined;
	/** A row's bytes; `previous` is the row written just before it since the open, if any. */
	encode(row: R, previous: R | undefined): Buffer;
	/** The row of a payload (undefined: damaged or not this kind's); `previous` the row before. */
	decode(timestamp: number, payload: Buffer, previous: R | undefined): R | undefined;
}

interface OpenOverview<R> {
	file: RecordFile;
	/** Step of the newest raw record this overview has seen (a row or not). */
	seenStep: number;
	/** The last row written since the open (a chain row with its strikes stores none). */
	lastRow?: R;
	/** What answers made of the rows as they are now (made()), dropped when a row is added. */
	made?: Map<string, unknown>;
}

const stepOf = (t: number) => Math.floor(t / OVERVIEW_STEP_SECONDS);

export class DayOverviews<R extends { timestamp: number } = OverviewRow> {
	private readonly open = new Map<string, OpenOverview<R>>();

	constructor(
		private readonly root: string,
		/** The raw file of a recorded stream (the recorder's), undefined when not recorded. */
		private readonly rawOf: RawOf,
		private readonly log: (message: string) => void = () => undefined,
		private readonly kind: OverviewKind<R> = chainOverview as unknown as OverviewKind<R>
	) {}

	pathOf(day: string, ticker: string, stream: string): string {
		return join(this.root, day, ticker, `${stream}.ovw`);
	}

	/**
	 * Whether the day's overview is there to read (open, or its file written): asking for it then
	 * costs a read, not a build from the raw records, which takes seconds for a day recorded
	 * before overviews were.
	 */
	isBuilt(day: string, ticker: string, stream: string): boolean {
		return (
			this.open.has(`${day}/${ticker}/${stream}`) || existsSync(this.pathOf(day, ticker, stream))
		);
	}

	/**
	 * A raw record was just appended to day/ticker/stream: a row when it opens a new step. Never
	 * throws (the raw record is safe on disk; a missing row is caught up at the next open).
	 */
	recorded(
		day: string,
		ticker: string,
		stream: string,
		kind: RecordKind,
		timestamp: number,
		payload: Uint8Array
	): void {
		if (!this.kind.has(ticker, stream)) return;
		try {
			const key = `${day}/${ticker}/${stream}`;
			const o = this.open.get(key);
			// Opening catches up from the raw file, which already holds this record.
			if (!o) return void this.synced(day, ticker, stream);
			const step = stepOf(timestamp);
			if (step <= o.seenStep) return;
			o.seenStep = step;
			const row = this.kind.ofRecord(kind, timestamp, payload);
			if (row) this.append(o, [row]);
		} catch (e) {
			this.log(`overview: ${day}/${ticker}/${stream}: ${e instanceof Error ? e.message : e}`);
		}
	}

	/** The day's overview rows, caught up first (built when missing, rebuilt when damaged). */
	rows(day: string, ticker: string, stream: string): R[] | undefined {
		if (!this.kind.has(ticker, stream)) return undefined;
		let o = this.synced(day, ticker, stream);
		if (!o) return undefined;
		let rows = this.decoded(o.file);
		if (!rows) {
			o = this.rebuild(day, ticker, stream, 'a row is damaged or of an older format');
			rows = o && this.decoded(o.file);
		}
		return rows;
	}

	/**
	 * Something made of the day's rows (an answer's encoded gzip body), kept with the open
	 * overview under `variant` until a row is added (the day grows) or the overview is rebuilt
	 * or closed: a finished day is read, encoded and compressed once, however often it is asked.
	 * Undefined when the stream was not recorded that day.
	 */
	made<T>(
		day: string,
		ticker: string,
		stream: string,
		variant: string,
		make: (rows: R[]) => T
	): T | undefined {
		const kept = this.open.get(`${day}/${ticker}/${stream}`)?.made;
		if (kept?.has(variant)) return kept.get(variant) as T;
		const rows = this.rows(day, ticker, stream);
		if (!rows) return undefined;
		const value = make(rows);
		// Rows read (and caught up, rebuilt) just now: the open overview they are of.
		const o = this.open.get(`${day}/${ticker}/${stream}`);
		if (o) (o.made ??= new Map()).set(variant, value);
		return value;
	}

	private decoded(file: RecordFile): R[] | undefined {
		const records = file.read();
		const rows: R[] = [];
		for (const r of records) {
			const row =
				r.kind === RecordKind.OverviewRow
					? this.kind.decode(r.timestamp, r.payload, rows.at(-1))
					: undefined;
			if (!row) return undefined;
			rows.push(row);
		}
		return rows.length === file.records ? rows : undefined;
	}

	/** The open overview of a stream, caught up with its raw file; undefined when not recorded. */
	private synced(day: string, ticker: string, stream: string): OpenOverview<R> | undefined {
		const key = `${day}/${ticker}/${stream}`;
		const o = this.open.get(key);
		if (o) return o;
		const raw = this.rawOf(day, ticker, stream);
		if (!raw) return undefined;
		const file = RecordFile.open(this.pathOf(day, ticker, stream));
		if (file.recovery.skipped > 0) {
			file.close();
			return this.rebuild(day, ticker, stream, `${file.recovery.skipped} damaged rows`);
		}
		const opened: OpenOverview<R> = { file, seenStep: Number.NEGATIVE_INFINITY };
		this.catchUp(opened, raw);
		this.open.set(key, opened);
		return opened;
	}

	private rebuild(
		day: string,
		ticker: string,
		stream: string,
		why: string
	): OpenOverview<R> | undefined {
		this.log(`overview: ${day}/${ticker}/${stream}: ${why}; rebuilt from the raw records`);
		this.close((k) => k === `${day}/${ticker}/${stream}`);
		const path = this.pathOf(day, ticker, stream);
		rmSync(path, { force: true });
		rmSync(`${path}.idx`, { force: true });
		return this.synced(day, ticker, stream);
	}

	/** Rows for the raw records after the overview's last step, read an hour-half at a time. */
	private catchUp(o: OpenOverview<R>, raw: RecordFile): void {
		const last = o.file.lastTimestamp;
		const end = raw.lastTimestamp;
		if (end === undefined) return;
		let from =
			last === undefined ? (raw.firstTimestamp ?? end) : (stepOf(last) + 1) * OVERVIEW_STEP_SECONDS;
		// Windows start on a step boundary, so a step never straddles two reads.
		from = stepOf(from) * OVERVIEW_STEP_SECONDS;
		while (from <= end) {
			const to = from + CATCH_UP_WINDOW_S;
			const rows: R[] = [];
			for (const r of raw.read(from, to - 1e-6, OVERVIEW_STEP_SECONDS)) {
				const row = this.kind.ofRecord(r.kind, r.timestamp, r.payload);
				if (row) rows.push(row);
			}
			this.append(o, rows);
			from = to;
		}
		o.seenStep = Math.max(o.seenStep, stepOf(end));
	}

	private append(o: OpenOverview<R>, rows: readonly R[]): void {
		if (rows.length === 0) return;
		o.made = undefined;
		let previous = o.lastRow;
		const records = rows.map((row) => {
			const payload = this.kind.encode(row, previous);
			previous = row;
			return {
				kind: RecordKind.OverviewRow,
				timestamp: row.timestamp,
				receivedAt: Date.now(),
				payload
			};
		});
		// A failed write may have kept some of the rows: the next row then stores its strikes.
		o.lastRow = undefined;
		o.file.appendAll(records);
		o.lastRow = previous;
	}

	/** Closes the open overviews whose `day/ticker/stream` key `which` picks. */
	close(which: (key: string) => boolean = () => true): void {
		for (const [key, o] of this.open) {
			if (!which(key)) continue;
			o.file.close();
			this.open.delete(key);
		}
	}
}
