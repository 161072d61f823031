/**
 * The heatmap's data: the day's overview from the dashboard server (one small answer, a column
 * per 10 s step, overviewClient.ts), else, for a day it has no overview of (a past day fetched
 * from the service now), the recorded session (one backfill, decoded in a worker); then, for
 * today, every new calculation the stream or the poller delivers appended as a column. A past
 * day is read once and stays still; a picked day that is still being recorded (today) follows
 * its new records.
 */
import { nextTask } from '$lib/stream/nextTask';
import { etDay } from '$lib/contract/newYorkTime';
import {
	HeatmapGrid,
	columnOfGex,
	type HeatColumn,
	type HeatMetric
} from '$lib/charts/heatmap/heatmapGrid';
import {
	BackfillError,
	fetchBackfill,
	fetchSessionDay,
	followRecordingDay,
	isAbort,
	sessionQuery
} from '$lib/stream/backfill/backfillClient';
import {
	fetchOverview,
	followFrom,
	type OverviewResult
} from '$lib/stream/backfill/overviewClient';
import type { DayPendingNote } from '$lib/stream/backfill/dayPending';
import type { StreamUpdate } from '$lib/stream/transport/updates';
import type { ColumnarGex } from '$lib/wire/columnar';

export const OVERVIEW_STEP_SECONDS = 5;

export class HeatmapSession {
	grid: HeatmapGrid = $state.raw(new HeatmapGrid());
	revision = $state(0);
	/** 'loading' until the backfill answered; 'empty' when nothing was recorded for the day. */
	phase: 'loading' | 'ready' | 'empty' | 'error' = $state('loading');
	error: string | null = $state(null);
	/** The service's last word on a past day it is still generating (null otherwise). */
	pending: DayPendingNote | null = $state(null);
	/** A picked day still being recorded whose new records this view follows. */
	following = $state(false);
	/** The day shown (ET); for live, the day of the recording or of the first live column. */
	day: string | null = $state(null);
	loadedBytes = $state(0);
	/** Live columns that arrived while the day was loading, in arrival order. */
	private arrived: HeatColumn[] = [];
	decodeMs = $state(0);

	constructor(
		readonly ticker: string,
		readonly category: string,
		readonly metric: HeatMetric,
		readonly requestedDay: string | null,
		/** Reads the server's recording (default: the decode worker; tests pass a fake server). */
		private readonly read: typeof fetchBackfill = fetchBackfill,
		/** Reads the day's overview (default: the server's; tests pass a fake server). */
		private readonly overview: typeof fetchOverview = fetchOverview
	) {}

	get stream(): string {
		return `classic_${this.category}`;
	}

	/**
	 * Reads the day; `signal` stops waiting for a day the service is still generating. The grid
	 * is drawn as it fills, batch by batch from the open, while the rest of the day decodes;
	 * live columns that arrive meanwhile wait (`arrived`) and join after the recorded ones.
	 */
	async load(signal?: AbortSignal): Promise<void> {
		if (await this.loadOverview(signal)) return;
		const grid = new HeatmapGrid();
		const take = (updates: readonly StreamUpdate[]) => {
			for (const u of updates) {
				if (u.kind === 'gex') grid.append(columnOfGex(u.value, this.metric));
			}
		};
		try {
			// One calculation per 5 s: 4,680 columns for a full day, more than a screen is wide, and
			// a fifth of the decode; live columns then append every second.
			// A past day this server did not record comes from the service's 90 days (Quant).
			const query = sessionQuery(this.requestedDay, OVERVIEW_STEP_SECONDS);
			const result = await fetchSessionDay(this.ticker, this.stream, query, {
				read: this.read,
				signal,
				onpending: (note) => (this.pending = note),
				onBatch: (updates) => {
					this.pending = null;
					take(updates);
					if (grid.length === 0) return;
					this.day ??= this.requestedDay ?? etDay(grid.times[0]);
					this.grid = grid;
					this.revision++;
				},
				// A picked day still being recorded (today) grows as the server records it.
				follow:
					this.requestedDay !== null && signal ? (updates) => this.addRecorded(updates) : undefined,
				onfollowing: (on) => (this.following = on)
			});
			this.pending = null;
			take(result.updates);
			this.settle(grid);
			this.day = result.day ?? this.day ?? this.requestedDay;
			this.loadedBytes = result.bytes;
			this.decodeMs = result.decodeMs;
			this.phase = grid.length > 0 ? 'ready' : 'empty';
		} catch (err) {
			if (isAbort(err)) return;
			this.pending = null;
			// What a read that failed midway delivered is kept, with the live columns after it.
			this.settle(grid);
			if (err instanceof BackfillError && err.status === 404) {
				this.phase = grid.length > 0 ? 'ready' : 'empty';
				this.day ??= this.requestedDay;
			} else {
				this.phase = 'error';
				this.error = (err as Error).message;
			}
		}
		this.revision++;
	}

	/**
	 * The whole day from its overview, drawn at once; false (nothing changed) when the server has
	 * none for the day or it failed, and the day is read the raw way instead.
	 */
	private async loadOverview(signal?: AbortSignal): Promise<boolean> {
		let overview: OverviewResult | undefined;
		try {
			overview = await this.overview(
				this.ticker,
				this.stream,
				this.requestedDay,
				this.metric,
				signal
			);
		} catch (err) {
			if (isAbort(err) || signal?.aborted) return true;
			return false;
		}
		if (!overview || overview.header.columns === 0 || signal?.aborted) return !!signal?.aborted;
		// The decoded cells become the grid's (a column at a time was a 147 ms task for a full day).
		const grid = HeatmapGrid.fromBlock({
			...overview,
			strikes: overview.header.strikes,
			handOver: true
		});
		// The grid is built in this task, drawn in the next: one task doing both ran over 50 ms.
		await nextTask();
		if (signal?.aborted) return true;
		this.settle(grid);
		this.day = overview.header.day;
		this.loadedBytes = overview.bytes;
		this.phase = 'ready';
		this.revision++;
		// A picked day still being recorded (today) grows with the raw records after the overview.
		if (this.requestedDay !== null && signal) {
			void followRecordingDay(
				this.ticker,
				this.stream,
				sessionQuery(this.requestedDay),
				followFrom(overview),
				(r) => this.addRecorded(r.updates),
				{ signal, read: this.read, onfollowing: (on) => (this.following = on) }
			);
		}
		return true;
	}

	/** The loaded grid, with the live columns that arrived while it loaded appended after it. */
	private settle(grid: HeatmapGrid): void {
		for (const column of this.arrived) grid.append(column);
		this.arrived = [];
		this.grid = grid;
	}

	/** Records of a followed day that arrived after the first load, as new columns. */
	private addRecorded(updates: readonly StreamUpdate[]): void {
		for (const u of updates) {
			if (u.kind === 'gex') this.grid.append(columnOfGex(u.value, this.metric));
		}
		if (this.grid.length > 0) this.phase = 'ready';
		this.revision++;
	}

	/** A live chain (streamed or polled): appended when it belongs to the day shown. */
	addLive(chain: ColumnarGex): void {
		if (this.requestedDay !== null) return;
		const day = etDay(chain.timestamp);
		if (this.day !== null && day !== this.day) {
			if (day < this.day) return;
			// A new session began: start a fresh grid for it.
			this.grid = new HeatmapGrid();
		}
		this.day = day;
		const column = columnOfGex(chain, this.metric);
		// While the day loads, live columns wait to join after the recorded ones.
		if (this.phase === 'loading') {
			this.arrived.push(column);
			return;
		}
		if (this.grid.append(column) === 'older') return;
		this.phase = 'ready';
		this.revision++;
	}
}
