/**
 * The members of an EOD report zip, filed as the zip's bytes arrive: fflate's streaming Unzip
 * finds each member (`<TICKER>/<package>/<category>/<day>_....json.gz`), its streaming Gunzip
 * turns the member into JSON pieces, and a SnapshotFiler files them into a DayImport moved into
 * place when the member is complete. Everything runs synchronously per pushed piece, so the
 * download's own pace bounds the memory. The first failure is kept and thrown by the next push.
 */
import { Gunzip, Unzip, UnzipInflate, type UnzipFile } from 'fflate';
import { feedOfRoute, feedStream } from '../../contract/feeds';
import type { DayImport } from './dayImport';
import { isRecordedDay, type SessionRecorder } from './sessionRecorder';
import { SnapshotFiler, SnapshotTooLargeError } from './snapshotRecords';

export class EodError extends Error {
	constructor(
		readonly status: number,
		message: string
	) {
		super(message);
	}
}

export interface OpenedReport {
	day: string;
	/** Streams filed (`classic_gex_full`, ...), with their calculation counts. */
	streams: { stream: string; records: number }[];
}

/** `SPX/classic/gex_full/2026-11-18_....json.gz`: the feed's route, then its day. */
const MEMBER =
	/^([A-Z0-9_]+\/(?:classic|state|orderflow)\/[a-z0-9_]+)\/(\d{4}-\d{2}-\d{2})_[^/]+\.json\.gz$/;

export class ReportMembers {
	private readonly unzip = new Unzip();
	private readonly open = new Set<DayImport>();
	private readonly streams: OpenedReport['streams'] = [];
	private day: string | undefined;
	private failure: Error | undefined;

	constructor(
		private readonly recorder: SessionRecorder,
		private readonly ticker: string,
		private readonly maxBytes: number
	) {
		this.unzip.register(UnzipInflate);
		this.unzip.onfile = (file) => this.member(file);
	}

	/** The next piece of the zip (`final` after the last). */
	push(piece: Uint8Array, final: boolean): void {
		try {
			this.unzip.push(piece, final);
		} catch (e) {
			this.failure ??= new EodError(502, `The EOD report is not a zip: ${(e as Error).message}`);
		}
		if (this.failure) throw this.failure;
	}

	/** What was filed, once the whole zip was pushed. */
	opened(): OpenedReport {
		if (this.open.size > 0) throw new EodError(502, 'The EOD report ends inside a member.');
		if (!this.day) throw new EodError(502, 'The EOD report holds no member for this ticker.');
		return {
			day: this.day,
			streams: this.streams.sort((a, b) => a.stream.localeCompare(b.stream))
		};
	}

	/** Drops every member not complete (a failed or cut download). */
	abandon(): void {
		for (const draft of this.open) draft.abort();
		this.open.clear();
	}

	private member(file: UnzipFile): void {
		const m = MEMBER.exec(file.name);
		const feed = m ? feedOfRoute(m[1]) : undefined;
		// Not started: skipped.
		if (!m || !feed || feed.ticker !== this.ticker || !isRecordedDay(m[2])) return;
		const day = m[2];
		const stream = feedStream(feed);
		this.day = day;
		const draft = this.recorder.beginImport(day, this.ticker, stream);
		if (!draft) {
			this.streams.push({ stream, records: this.recorder.count(day, this.ticker, stream) });
			return;
		}
		this.open.add(draft);
		const filer = new SnapshotFiler(draft, this.maxBytes);
		const gunzip = new Gunzip((data) => filer.push(data));
		file.ondata = (err, data, final) => {
			if (this.failure) return;
			try {
				if (err) throw err;
				gunzip.push(data, final);
				if (!final) return;
				const records = filer.end();
				this.open.delete(draft);
				this.recorder.commitImport(day, draft);
				this.streams.push({ stream, records });
			} catch (e) {
				this.open.delete(draft);
				draft.abort();
				this.failure = memberError(stream, e);
			}
		};
		file.start();
	}
}

function memberError(stream: string, e: unknown): EodError {
	if (e instanceof SnapshotTooLargeError)
		return new EodError(413, `The report's ${stream}: ${e.message}.`);
	return new EodError(502, `The report's ${stream} is not a JSON list: ${(e as Error).message}`);
}
