/**
 * The session recorder: subscribes to the update tap and writes every frame the relay receives
 * and every snapshot the proxy fetches to disk, per ET day, ticker and stream, as it arrives:
 *
 *   <root>/<YYYY-MM-DD>/<TICKER>/<stream>.rec   (+ .idx), see ./recordFile
 *
 * `stream` is the group without its ticker (`classic_gex_full`, `state_delta_zero`,
 * `orderflow_orderflow`, `spot`, an expiry group's `classic_gex_20260717`); polled snapshots use
 * the same names, so a view reads one stream whatever the tier. The day is the data's own ET day
 * (frame timestamp), not the server's clock, so a simulated or replayed session files correctly.
 *
 * Retention keeps the newest `retentionDays` recorded days and at most `maxBytes` in total,
 * whichever is reached first; the day being written is never removed.
 */
import { existsSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { etDay } from '../../contract/newYorkTime';
import { streamOfGroup } from '../../contract/feeds';
import type { ReceivedUpdate, UpdateTap } from '../updates/tap';
import { frameTimestamp } from './frameStamp';
import { DayImport, preparePrivateRoot } from './dayImport';
import { RecordFile, RecordKind, type RecordSpan, type StoredRecord } from './recordFile';
import { daySizes, daysToRemove, diskUsageOf, type DiskUsage } from './retention';
import { DayOverviews } from '../overview/dayOverviews';
import { flowOverview, type FlowRow } from '../overview/flowOverviewRow';

export interface SessionRecorderOptions {
	/** Folder of the recordings (created on first write). */
	root: string;
	/** Recorded days kept (default 20 trading days). */
	retentionDays?: number;
	/** Total bytes kept (default 5 GB). */
	maxBytes?: number;
	/** Files not written for this long are closed (default 5 minutes). */
	idleCloseMs?: number;
	/** Retention is also enforced this often once attached (default 10 minutes). */
	retentionEveryMs?: number;
	log?: (message: string) => void;
}

export const DEFAULT_RETENTION_DAYS = 20;
export const DEFAULT_MAX_BYTES = 5 * 1024 ** 3;

const DAY = /^\d{4}-\d{2}-\d{2}$/;
const TICKER = /^[A-Z0-9_]{1,16}$/;
const STREAM = /^[a-z0-9_]{1,48}$/;

export function isRecordedDay(value: string): boolean {
	return DAY.test(value);
}

export function isStreamName(value: string): boolean {
	return STREAM.test(value);
}

export function isRecordedTicker(value: string): boolean {
	return TICKER.test(value);
}

/** Timestamp of a polled snapshot body (`"timestamp": <unix s>` leads every snapshot). */
function snapshotTimestamp(json: string): number | undefined {
	const m = /"timestamp"\s*:\s*(\d+(?:\.\d+)?)/.exec(json.slice(0, 512));
	return m ? Number(m[1]) : undefined;
}

export type { DiskUsage } from './retention';

export interface RecorderCounters {
	records: number;
	bytes: number;
	/** Updates skipped: group not understood, no timestamp, repeated snapshot, older frame. */
	skipped: number;
	/** Writes that failed (disk full, permissions): counted and logged, never thrown. */
	failures: number;
	lastError?: string;
}

export class SessionRecorder {
	readonly counters: RecorderCounters = { records: 0, bytes: 0, skipped: 0, failures: 0 };
	private readonly files = new Map<string, RecordFile>();
	/** Last data time per ticker: the fallback stamp of a frame without one. */
	private readonly lastTime = new Map<string, number>();
	private unsubscribe: (() => void) | undefined;
	private sweepTimer: ReturnType<typeof setInterval> | undefined;
	private retentionTimer: ReturnType<typeof setInterval> | undefined;
	private rootChecked = false;
	private currentDay: string | undefined;
	private lastArrival = 0;
	private readonly log: (message: string) => void;

	private retention: { retentionDays?: number; maxBytes?: number };

	constructor(private readonly options: SessionRecorderOptions) {
		this.log = options.log ?? (() => undefined);
		this.retention = { retentionDays: options.retentionDays, maxBytes: options.maxBytes };
		const raw = (d: string, t: string, s: string) =>
			this.has(d, t, s) ? this.file(d, t, s) : undefined;
		this.overviews = new DayOverviews(options.root, raw, this.log);
		this.flowOverviews = new DayOverviews(options.root, raw, this.log, flowOverview);
	}

	/** Each chain stream's day overview, written beside it as it is recorded (../overview). */
	readonly overviews: DayOverviews;
	/** Each orderflow stream's day overview: the flow series per step (../overview). */
	readonly flowOverviews: DayOverviews<FlowRow>;
	private allOverviews = () => [this.overviews, this.flowOverviews];

	/**
	 * New retention limits, applied now. The recorder itself goes on: its open day files, its tap
	 * and its counters (the Account page's "since start") are kept.
	 */
	retain(limits: { retentionDays: number; maxBytes: number }): string[] {
		this.retention = { ...limits };
		return this.enforceRetention();
	}

	get root(): string {
		return this.options.root;
	}

	/** Starts recording what the tap publishes; also starts the idle-file sweep. */
	attach(tap: UpdateTap): void {
		this.unsubscribe?.();
		this.unsubscribe = tap.subscribe((u) => this.record(u));
		this.sweepTimer ??= setInterval(() => this.sweep(), 60_000);
		this.sweepTimer.unref?.();
		// Days also arrive by import and a day change may be hours away: the limits hold on a
		// clock too, not only when the recorded day changes.
		this.retentionTimer ??= setInterval(
			() => this.enforceRetentionSafely(),
			this.options.retentionEveryMs ?? 10 * 60_000
		);
		this.retentionTimer.unref?.();
	}

	private enforceRetentionSafely(keep?: string): void {
		try {
			this.enforceRetention(keep);
		} catch (e) {
			this.log(`recorder: retention failed: ${e instanceof Error ? e.message : String(e)}`);
		}
	}

	private ensureRoot(): void {
		if (this.rootChecked) return;
		preparePrivateRoot(this.options.root);
		this.rootChecked = true;
	}

	/** Writes one update. Never throws (a failing disk is counted, the relay goes on). */
	record(u: ReceivedUpdate): void {
		try {
			if (u.source === 'stream') {
				const s = streamOfGroup(u.group);
				if (!s) {
					this.counters.skipped++;
					return;
				}
				const ts =
					frameTimestamp(u.any) ?? this.lastTime.get(s.ticker) ?? Math.floor(u.receivedAt / 1000);
				// A frame older than the stream's newest recorded one is not kept: the recording
				// stays in time order for the views that backfill from it. The embedded service
				// replays the session after the close (its clock jumps back to the open), and a
				// feed may deliver a late frame; frames of the same second are all kept.
				const file = this.file(etDay(ts), s.ticker, s.stream);
				if ((file.lastTimestamp ?? -Infinity) > ts) {
					this.counters.skipped++;
					return;
				}
				this.write(s.ticker, s.stream, RecordKind.StreamAny, ts, u.receivedAt, u.any);
			} else {
				const ts = snapshotTimestamp(u.json);
				if (ts === undefined || !TICKER.test(u.ticker) || !STREAM.test(u.stream)) {
					this.counters.skipped++;
					return;
				}
				const file = this.file(etDay(ts), u.ticker, u.stream);
				// Polls within one calculation return the same snapshot: keep it once.
				if ((file.lastTimestamp ?? -Infinity) >= ts) {
					this.counters.skipped++;
					return;
				}
				this.write(
					u.ticker,
					u.stream,
					RecordKind.SnapshotGzipJson,
					ts,
					u.receivedAt,
					gzipSync(u.json, { level: 6 })
				);
			}
		} catch (e) {
			this.counters.failures++;
			this.counters.lastError = e instanceof Error ? e.message : String(e);
			if (this.counters.failures === 1 || this.counters.failures % 1000 === 0) {
				this.log(`recorder: write failed (${this.counters.failures}): ${this.counters.lastError}`);
			}
		}
	}

	private write(
		ticker: string,
		stream: string,
		kind: RecordKind,
		ts: number,
		receivedAt: number,
		payload: Uint8Array
	): void {
		const day = etDay(ts);
		if (day !== this.currentDay) {
			const first = this.currentDay === undefined;
			this.currentDay = day;
			// A new day: the previous days' files are done, and retention may free space.
			if (!first) this.closeDays((d) => d < day);
			this.enforceRetention();
		}
		this.lastTime.set(ticker, ts);
		// Strictly increasing arrival stamps (a microsecond apart at least): merging two streams
		// by them restores the exact order the relay received (and delivered) the frames.
		this.lastArrival = Math.max(receivedAt, this.lastArrival + 0.001);
		this.file(day, ticker, stream).append(kind, ts, this.lastArrival, payload);
		for (const o of this.allOverviews()) o.recorded(day, ticker, stream, kind, ts, payload);
		this.counters.records++;
		this.counters.bytes += payload.length + 44;
	}

	private pathOf(day: string, ticker: string, stream: string): string {
		return join(this.options.root, day, ticker, `${stream}.rec`);
	}

	private file(day: string, ticker: string, stream: string): RecordFile {
		const key = `${day}/${ticker}/${stream}`;
		let f = this.files.get(key);
		if (!f) {
			this.ensureRoot();
			f = RecordFile.open(this.pathOf(day, ticker, stream));
			if (f.recovery.truncatedBytes > 0) {
				this.log(
					`recorder: ${key}: cut a torn tail of ${f.recovery.truncatedBytes} bytes; ${f.recovery.records} records intact`
				);
			}
			this.files.set(key, f);
		}
		return f;
	}

	/**
	 * Opens every recorded file of the folder once, so torn tails left by a crash are repaired
	 * at start rather than at the first read. Returns what was repaired.
	 */
	recoverAll(): { files: number; truncatedBytes: number } {
		this.ensureRoot();
		let files = 0;
		let truncatedBytes = 0;
		for (const day of this.days()) {
			for (const ticker of this.tickers(day)) {
				for (const stream of this.streams(day, ticker)) {
					const f = this.file(day, ticker, stream);
					files++;
					truncatedBytes += f.recovery.truncatedBytes;
				}
			}
		}
		return { files, truncatedBytes };
	}

	/**
	 * The day being written now (a record in the last two minutes), else undefined: a view of
	 * that day follows its new records (issue: a picked "today" must not freeze at load).
	 */
	recordingDay(now = Date.now()): string | undefined {
		return this.currentDay !== undefined && now - this.lastArrival < 120_000
			? this.currentDay
			: undefined;
	}

	/** Recorded days, oldest first. */
	days(): string[] {
		if (!existsSync(this.options.root)) return [];
		return readdirSync(this.options.root)
			.filter((d) => DAY.test(d))
			.sort();
	}

	tickers(day: string): string[] {
		if (!DAY.test(day)) return [];
		const dir = join(this.options.root, day);
		if (!existsSync(dir)) return [];
		return readdirSync(dir)
			.filter((t) => TICKER.test(t))
			.sort();
	}

	streams(day: string, ticker: string): string[] {
		if (!DAY.test(day) || !TICKER.test(ticker)) return [];
		const dir = join(this.options.root, day, ticker);
		if (!existsSync(dir)) return [];
		return readdirSync(dir)
			.filter((f) => f.endsWith('.rec'))
			.map((f) => f.slice(0, -4))
			.filter((s) => STREAM.test(s))
			.sort();
	}

	/** Days on which `ticker`'s `stream` was recorded, oldest first. */
	daysOf(ticker: string, stream: string): string[] {
		return this.days().filter((d) => existsSync(this.pathOf(d, ticker, stream)));
	}

	has(day: string, ticker: string, stream: string): boolean {
		return (
			DAY.test(day) &&
			TICKER.test(ticker) &&
			STREAM.test(stream) &&
			existsSync(this.pathOf(day, ticker, stream))
		);
	}

	/** How many records one stream and day holds, from its index (no record is read). */
	count(day: string, ticker: string, stream: string): number {
		return this.has(day, ticker, stream) ? this.file(day, ticker, stream).records : 0;
	}

	/**
	 * Records of one stream and day within [from, to] (unix s), in arrival order; with `step`,
	 * the first of every step-second bucket only (RecordFile.read).
	 */
	read(
		day: string,
		ticker: string,
		stream: string,
		from?: number,
		to?: number,
		step?: number
	): StoredRecord[] {
		if (!this.has(day, ticker, stream)) return [];
		return this.file(day, ticker, stream).read(from, to, step);
	}

	/** Reads what open() left unchecked of a recorded file (RecordFile.check) before a span. */
	async check(day: string, ticker: string, stream: string): Promise<void> {
		if (this.has(day, ticker, stream)) await this.file(day, ticker, stream).check();
	}

	/** The same records as read(), fixed now and read later in chunks (RecordFile.span). */
	span(
		day: string,
		ticker: string,
		stream: string,
		from?: number,
		to?: number,
		step?: number
	): RecordSpan | undefined {
		if (!this.has(day, ticker, stream)) return undefined;
		return this.file(day, ticker, stream).span(from, to, step);
	}

	/**
	 * Starts writing one day's stream fetched from elsewhere (a history download, an EOD report),
	 * so the day is fetched once: written aside and moved into place when complete (DayImport).
	 * Undefined when the stream already has records (never overwritten).
	 */
	beginImport(day: string, ticker: string, stream: string): DayImport | undefined {
		if (!DAY.test(day) || !TICKER.test(ticker) || !STREAM.test(stream)) {
			throw new RangeError(`not a recordable stream: ${day}/${ticker}/${stream}`);
		}
		if (this.count(day, ticker, stream) > 0) return undefined;
		this.ensureRoot();
		return DayImport.begin(this.options.root, this.pathOf(day, ticker, stream));
	}

	/**
	 * Moves a complete import into place (false when the stream was filed meanwhile), then holds
	 * the retention limits, keeping the imported day: a viewer is waiting for it.
	 */
	commitImport(day: string, draft: DayImport): boolean {
		const moved = draft.commit();
		this.enforceRetentionSafely(day);
		return moved;
	}

	diskUsage(): DiskUsage {
		return diskUsageOf(this.options.root, this.days());
	}

	/**
	 * Removes the oldest days beyond the retention; returns the removed days. The day being
	 * written is never removed, nor `keep` (a day just imported for a viewer).
	 */
	enforceRetention(keep?: string): string[] {
		const days = this.days();
		const kept = new Set<string>();
		if (this.currentDay !== undefined) kept.add(this.currentDay);
		if (keep !== undefined) kept.add(keep);
		// The day about to be written counts even before its folder exists.
		const extra = this.currentDay !== undefined && !days.includes(this.currentDay) ? 1 : 0;
		const removed = daysToRemove(
			daySizes(this.options.root, days),
			{
				keepDays: this.retention.retentionDays ?? DEFAULT_RETENTION_DAYS,
				maxBytes: this.retention.maxBytes ?? DEFAULT_MAX_BYTES
			},
			kept,
			extra
		);
		for (const day of removed) {
			this.closeDays((d) => d === day);
			rmSync(join(this.options.root, day), { recursive: true, force: true });
		}
		if (removed.length > 0) this.log(`recorder: retention removed ${removed.join(', ')}`);
		return removed;
	}

	/** Closes the open files of the days `which` picks (removed days, days before a new one). */
	private closeDays(which: (day: string) => boolean): void {
		for (const o of this.allOverviews()) o.close((key) => which(key.slice(0, 10)));
		for (const [key, f] of this.files) {
			if (which(key.slice(0, 10))) {
				f.close();
				this.files.delete(key);
			}
		}
	}

	/** Closes files idle for a while (past days read once by a viewer, finished streams). */
	private sweep(): void {
		const idle = this.options.idleCloseMs ?? 5 * 60_000;
		const now = Date.now();
		for (const [key, f] of this.files) {
			if (now - Math.max(f.lastWriteAt, f.lastReadAt) > idle) {
				f.close();
				this.files.delete(key);
			}
		}
		for (const o of this.allOverviews()) o.close((key) => !this.files.has(key));
	}

	close(): void {
		this.unsubscribe?.();
		this.unsubscribe = undefined;
		clearInterval(this.sweepTimer);
		this.sweepTimer = undefined;
		clearInterval(this.retentionTimer);
		this.retentionTimer = undefined;
		for (const f of this.files.values()) f.close();
		this.files.clear();
		for (const o of this.allOverviews()) o.close();
	}
}
