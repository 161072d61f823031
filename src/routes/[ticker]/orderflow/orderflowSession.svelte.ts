/**
 * One ticker's orderflow session series on the page: restored from IndexedDB first (so a reload
 * paints the day at once), fed every orderflow payload the stream or the poller delivers, and
 * written back every couple of seconds (only the ten-minute chunks that changed) and when the
 * tab is hidden. A new trading day prunes the stored older days. Storage failures turn the
 * cache off with the layout's notice; the series keeps working in memory. A past day (`?day=`)
 * is read once from the server's recording and stays still (a picked day still being recorded
 * follows its new records).
 *
 * A day the server recorded arrives first as its flow overview (one point per 10 s step, ~0.2 MB
 * for a full day instead of the raw day's megabytes); the raw records are read only for the
 * live edge (after the overview's last step, today or a picked day still being recorded) and
 * for a zoomed window (detail()).
 */
import { cacheDatabase, cacheStatus, disableCache } from '$lib/cache/snapshotCache.svelte';
import { loadNewestDay, pruneDaysBefore, saveChunks } from '$lib/cache/seriesStore';
import {
	DaySeries,
	FLOW_SERIES,
	flowValues,
	type SeriesChunk
} from '$lib/stream/series/orderflowSeries';
import { etDay } from '$lib/contract/newYorkTime';
import { nextTask } from '$lib/stream/nextTask';
import type { OrderflowBody } from '$lib/contract/schemas';
import {
	BackfillError,
	fetchSessionDay,
	isAbort,
	sessionQuery
} from '$lib/stream/backfill/backfillClient';
import type { DayPendingNote } from '$lib/stream/backfill/dayPending';
import { fetchFlowOverview } from '$lib/stream/backfill/flowOverviewClient';
import type { StreamUpdate } from '$lib/stream/transport/updates';

export const FLUSH_INTERVAL_MS = 2_000;
const STREAM = 'orderflow_orderflow';
/** A zoomed window this short or shorter gets the raw records (1 s) where the overview has 10 s. */
export const DETAIL_MAX_SECONDS = 3_600;

export class OrderflowSession {
	readonly series = new DaySeries();
	/** Mirrors series.revision: views read this to redraw. */
	revision = $state(0);
	/** Points read back from IndexedDB; null while the read is pending. */
	restored: number | null = $state(null);
	/** Stored records that could not be read (skipped; the next save replaces them). */
	unreadable = $state(0);
	/** Points the dashboard server's recording supplied (the session from the open); null while pending. */
	backfilled: number | null = $state(null);
	/** Why the server's recording could not be read (none recorded yet is not an error). */
	backfillError: string | null = $state(null);
	/** The service's last word on a past day it is still generating (null otherwise). */
	pending: DayPendingNote | null = $state(null);
	/** A picked day still being recorded whose new records this view follows. */
	following = $state(false);
	/** Steps the day's flow overview supplied; null when the day was read the raw way. */
	overviewPoints: number | null = $state(null);
	/** Raw points read for zoomed windows. */
	detailPoints = $state(0);
	/** The span the overview covers (unix s), where a zoomed window reads raw detail. */
	private overviewSpan: { lo: number; hi: number } | null = null;
	/** Windows whose raw records were read (or are being read). */
	private readonly detailed: { lo: number; hi: number }[] = [];

	private writing: Promise<void> = Promise.resolve();
	/** Stops the backfill's wait for a day the service is still generating. */
	private readonly stop = new AbortController();
	private prunedBefore: string | null = null;

	/** `day`: a past session (ET YYYY-MM-DD), read once from the recording; null = today, live. */
	constructor(
		readonly ticker: string,
		readonly day: string | null = null
	) {}

	start(): () => void {
		// A past day is not in this browser's store (it keeps today) and gets no live points.
		if (this.day !== null) {
			void this.backfill();
			return () => this.stop.abort();
		}
		void this.restore().then(() => this.backfill());
		const timer = setInterval(() => void this.flush(), FLUSH_INTERVAL_MS);
		const onHidden = () => {
			if (document.visibilityState === 'hidden') void this.flush();
		};
		document.addEventListener('visibilitychange', onHidden);
		window.addEventListener('pagehide', onHidden);
		return () => {
			this.stop.abort();
			clearInterval(timer);
			document.removeEventListener('visibilitychange', onHidden);
			window.removeEventListener('pagehide', onHidden);
			void this.flush();
		};
	}

	/**
	 * Adds a payload of this ticker (another ticker's, or an older day's, is ignored). A past
	 * day's series takes that day's payloads only: the page's last live payload (today's) would
	 * otherwise start a new day over the replayed one.
	 */
	add(body: OrderflowBody): void {
		if (body.ticker !== this.ticker) return;
		if (this.day !== null && etDay(body.timestamp) !== this.day) return;
		if (this.series.append(body.timestamp, flowValues(body)) === 'older-day') return;
		this.revision = this.series.revision;
	}

	/** Reads the newest stored day of the ticker into the series (start() calls it). */
	async restore(): Promise<void> {
		let count = 0;
		try {
			if (!cacheStatus.available) return;
			const db = await cacheDatabase();
			const stored = db ? await loadNewestDay(db, this.ticker) : undefined;
			if (stored) {
				// Restored chunks are already stored: only what arrived meanwhile needs writing.
				const pending = this.series.takeDirty();
				for (const chunk of stored.chunks) {
					this.series.merge(chunk);
					count += chunk.times.length;
				}
				this.series.takeDirty();
				this.series.markDirty(pending);
				this.unreadable = stored.unreadable;
			}
		} catch (err) {
			disableCache(err);
		} finally {
			this.restored = count;
			this.revision = this.series.revision;
		}
	}

	/**
	 * Fills the series with the session the dashboard server recorded (from the open), so a tab
	 * opened mid-session shows the whole day; live payloads keep arriving meanwhile and merge.
	 */
	async backfill(): Promise<void> {
		if (typeof Worker === 'undefined') return;
		let edge: number | null | undefined;
		try {
			edge = await this.loadOverview();
		} catch (err) {
			if (isAbort(err) || this.stop.signal.aborted) return;
			// A failed overview: the day is read the raw way.
		}
		if (edge === null) return;
		try {
			// A past day this server did not record comes from the service's 90 days (Quant).
			// After an overview, only its live edge: the records after its last step.
			const query =
				edge === undefined ? sessionQuery(this.day) : { ...sessionQuery(this.day), from: edge };
			// The series fills from the open batch by batch while the rest of the day decodes,
			// each batch its own short task.
			let count = 0;
			const take = (updates: readonly StreamUpdate[]) => {
				for (const u of updates) {
					if (u.kind !== 'orderflow') continue;
					this.add(u.value);
					count++;
				}
			};
			const result = await fetchSessionDay(this.ticker, 'orderflow_orderflow', query, {
				signal: this.stop.signal,
				onpending: (note) => (this.pending = note),
				onBatch: (updates) => {
					this.pending = null;
					take(updates);
				},
				// A picked day still being recorded (today) grows as the server records it.
				follow: this.day === null ? undefined : take,
				onfollowing: (on) => (this.following = on)
			});
			this.pending = null;
			take(result.updates);
			this.backfilled = (this.overviewPoints ?? 0) + count;
		} catch (err) {
			if (isAbort(err)) return;
			this.pending = null;
			this.backfilled = this.overviewPoints ?? 0;
			if (!(err instanceof BackfillError && err.status === 404)) {
				this.backfillError = (err as Error).message;
			}
		}
	}

	/**
	 * The day's flow overview into the series: the unix second the raw records are needed
	 * from (the live edge), null when nothing more is (a finished past day), undefined
	 * when the server has no overview of the day (it is read the raw way).
	 */
	private async loadOverview(): Promise<number | null | undefined> {
		const o = await fetchFlowOverview(this.ticker, STREAM, this.day, this.stop.signal);
		if (!o || o.header.columns === 0 || this.stop.signal.aborted) return undefined;
		const series = o.header.series;
		const order = FLOW_SERIES.map((k) => series.indexOf(k));
		if (order.includes(-1)) return undefined;
		const row = new Float64Array(FLOW_SERIES.length);
		let taken = 0;
		for (let i = 0; i < o.times.length; i++) {
			for (let s = 0; s < row.length; s++) row[s] = o.values[order[s]][i];
			const before = this.series.revision;
			this.addPoint(o.times[i], row);
			if (this.series.revision !== before) taken++;
		}
		// The series is filled in this task, drawn in the next: one task doing both ran over 50 ms.
		// What the view reacts to (the points, the revision, the span a zoom reads detail in) is
		// set together after the yield, so an effect never sees the points without the span.
		await nextTask();
		if (this.stop.signal.aborted) return undefined;
		this.overviewPoints = taken;
		this.revision = this.series.revision;
		const last = o.last ?? o.times[o.times.length - 1];
		this.overviewSpan = { lo: o.times[0], hi: last + o.header.step };
		// Today, or a picked day still being recorded: the raw records from the last step on (its
		// own record again, the same point: a following read then asks on from the one after it).
		if (this.day === null || o.recording) return Math.floor(last);
		this.backfilled = taken;
		return null;
	}

	/** A point of this session's day (as add(), from numbers in FLOW_SERIES order). */
	private addPoint(t: number, values: ArrayLike<number>): void {
		if (this.day !== null && etDay(t) !== this.day) return;
		this.series.append(t, values);
	}

	/**
	 * A zoomed window (unix s): when it is DETAIL_MAX_SECONDS or shorter and inside the span the
	 * overview drew at 10 s steps, its raw records (every point) are read once and merged.
	 */
	async detail(lo: number, hi: number): Promise<void> {
		const span = this.overviewSpan;
		if (!span || typeof Worker === 'undefined' || hi - lo > DETAIL_MAX_SECONDS) return;
		const from = Math.max(Math.floor(lo), span.lo);
		const to = Math.min(Math.ceil(hi), span.hi);
		if (to <= from || this.detailed.some((w) => w.lo <= from && w.hi >= to)) return;
		this.detailed.push({ lo: from, hi: to });
		try {
			const query = { ...sessionQuery(this.day), from, to };
			const result = await fetchSessionDay(this.ticker, STREAM, query, {
				signal: this.stop.signal
			});
			let count = 0;
			for (const u of result.updates) {
				if (u.kind !== 'orderflow') continue;
				this.add(u.value);
				count++;
			}
			this.detailPoints += count;
		} catch (err) {
			if (isAbort(err)) return;
			// Asked again the next time the window is zoomed to.
			this.detailed.splice(
				this.detailed.findIndex((w) => w.lo === from && w.hi === to),
				1
			);
		}
	}

	/** Writes the changed chunks (one write at a time, in order). */
	flush(): Promise<void> {
		this.writing = this.writing.then(() => this.write());
		return this.writing;
	}

	private async write(): Promise<void> {
		const day = this.series.day;
		if (day === null || !cacheStatus.available) return;
		const dirty = this.series.takeDirty();
		if (dirty.length === 0) return;
		const chunks = dirty.map((k): [number, SeriesChunk] => [k, this.series.chunk(k)]);
		try {
			const db = await cacheDatabase();
			if (!db) return;
			await saveChunks(db, this.ticker, day, chunks);
			if (this.prunedBefore !== day) {
				this.prunedBefore = day;
				await pruneDaysBefore(db, day);
			}
		} catch (err) {
			// The points stay in memory; the chunks are written again with the next flush.
			if (this.series.day === day) this.series.markDirty(dirty);
			disableCache(err);
		}
	}
}
