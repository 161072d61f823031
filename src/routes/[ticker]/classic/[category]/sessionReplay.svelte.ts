/**
 * Scrubbing back through today's recorded session of the Classic view's group, or through a
 * past day's. The decode worker records streamed chains into the IndexedDB ring
 * (src/lib/stream/ring/streamRing.ts); while the account polls REST, this records the polled chains
 * into the same ring, so the timeline is there in both modes. The ring is read when the group
 * opens (newest first, in slices), then its tail every few seconds, and the dashboard server's
 * recording of the day (from the open) is fetched once beside it. A past day (`day`) is only
 * the server's recording of it (or the service's history of it, Quant): the ring holds today.
 * The server's recording is its day overview when it has one (issue 26): the moments are the
 * overview's 10 s steps (its lines only, a few tens of KB for a full day) and the chain at a
 * moment is one record read then (MomentReader); a day without an overview (the service's) is
 * read whole the raw way, one snapshot per 5 s.
 * `at` is the replayed moment (null = live, or on a past day its last snapshot), kept as a time
 * so the timeline may grow or lose its oldest frames without moving what the user looks at.
 * Construct during component init: it registers its own effects.
 */
import { untrack } from 'svelte';
import { StreamRing, type RingChunk } from '$lib/stream';
import type { ColumnarGex } from '$lib/wire/columnar';
import {
	frameChain,
	formatReplayTime,
	framesOf,
	nearestFrame,
	timelineRange,
	withFreshChunks,
	type TimelineRange
} from '$lib/stream/backfill/replayTimeline';
import {
	BackfillError,
	fetchBackfill,
	warmBackfillWorker,
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
import {
	dayLinesOf,
	momentToRead,
	replayPoints,
	type DayLines,
	type ReplayPoint
} from '$lib/stream/backfill/overviewTimeline';
import { MomentReader } from '$lib/stream/backfill/momentReader';
import { fetchMoment } from '$lib/stream/backfill/momentClient';
import type { Moment } from '$lib/relay/momentBody';
import type { DayPendingNote } from '$lib/stream/backfill/dayPending';
import type { DaySeed } from '$lib/stream/backfill/daySeed';
import { BackfillChunker, chunksOf } from '$lib/stream/backfill/backfillChunker';

/** How often the ring's tail is read again (the recorder checkpoints every 5 s of data). */
export const REPLAY_REFRESH_MS = 3_000;
/** Seconds of ring read per request when a view opens. */
const RING_SLICE_S = 600;
/** One snapshot of the server's recording per this many seconds: the ring's ladder cadence. */
export const SNAPSHOT_STEP_S = 5;

export interface SessionReplayOptions {
	group: () => string;
	ticker: () => string;
	/** A chain the REST poller fetched (fresh, not a cached paint), to record; else undefined. */
	polled: () => ColumnarGex | undefined;
	/** The group's stream on the server (`classic_gex_full`): its recording backfills the ring. */
	stream?: () => string;
	/** A past day (ET YYYY-MM-DD) to replay instead of today; null or absent = today, live. */
	day?: () => string | null;
	/** Opens the ring (tests pass one on fake-indexeddb). */
	open?: () => Promise<StreamRing>;
	/** Reads the server's recording (default: the decode worker; tests pass a fake server). */
	backfill?: typeof fetchBackfill;
	/**
	 * Reads the day's overview (default: the server's, unless `backfill` is given without it:
	 * tests of the raw way).
	 */
	overview?: typeof fetchOverview;
	/**
	 * Reads a past day's first moment as JSON on the page (default: the server's, with the real
	 * overview and decode worker; tests of a fake server pass their own or none).
	 */
	moment?: typeof fetchMoment;
	/**
	 * A past day's lines and first moment read with the page (daySeed.ts): drawn from the first
	 * render (the server's HTML, and the hydration that keeps it), nothing fetched for them.
	 */
	seed?: () => DaySeed | undefined;
	refreshMs?: number;
}

export class SessionReplay {
	recorder: StreamRing | undefined = $state.raw(undefined);
	/** Snapshots the server's recording added to the ring (null while loading or without one). */
	backfilled: number | null = $state(null);
	/** Why the server's recording could not be read (none recorded is not an error). */
	backfillError: string | null = $state(null);
	/** The service's last word on a past day it is still generating (null otherwise). */
	pending: DayPendingNote | null = $state(null);
	/** A picked day still being recorded whose new records this view follows. */
	following = $state(false);
	/** The past day replayed, or null for today. */
	readonly day: string | null;
	/** 'unavailable': IndexedDB refused (private mode, quota); the view says replay is off. */
	status: 'opening' | 'loading' | 'ready' | 'unavailable' = $state('opening');
	chunks: RingChunk[] = $state.raw([]);
	/** The session as the dashboard server recorded it (from the open), as ring chunks. */
	serverChunks: RingChunk[] = $state.raw([]);
	/** The day's overview lines (its moments, spot and levels), when the server has one. */
	lines: DayLines | undefined = $state.raw(undefined);
	/** The chain last read at an overview moment (held while the next one is read). */
	moment: ColumnarGex | undefined = $state.raw(undefined);
	/** Why the chain at the moment could not be read (null when it was). */
	momentError: string | null = $state(null);
	/** The timeline's moments: the overview's steps, then the snapshots held after them. */
	readonly frames: ReplayPoint[] = $derived(
		replayPoints(this.lines, framesOf([...this.serverChunks, ...this.chunks]))
	);
	readonly range: TimelineRange | null = $derived(timelineRange(this.frames));
	/** The replayed moment (unix s), or null at the live edge (a past day: its last snapshot). */
	at: number | null = $state(null);
	readonly index: number;
	readonly frame: ReplayPoint | undefined;
	private reader: MomentReader | undefined = $state.raw(undefined);
	/** The chain to draw while replaying; undefined at the live edge. */
	readonly chain: ColumnarGex | undefined;
	readonly replaying: boolean;
	private shownGroup: string | undefined;

	constructor(options: SessionReplayOptions) {
		const pastDay = options.day ?? (() => null);
		this.day = $derived(pastDay());
		this.index = $derived(
			this.at !== null
				? nearestFrame(this.frames, this.at)
				: this.day !== null
					? this.frames.length - 1
					: -1
		);
		this.frame = $derived(this.index >= 0 ? this.frames[this.index] : undefined);
		this.replaying = $derived(this.frame !== undefined);
		this.chain = $derived(
			!this.frame
				? undefined
				: this.frame.frame
					? frameChain(this.frame.frame, options.ticker())
					: this.moment
		);
		// What the page was rendered with is there before any effect runs (the server runs none).
		const seeded = this.seedFor(options, pastDay());
		if (seeded) {
			this.lines = dayLinesOf(seeded.vol, seeded.oi);
			this.moment = seeded.moment.chain;
			// A shared moment (the server runs no effect: the view's `at` is applied by one).
			this.at = seeded.at;
			this.backfilled = this.lines?.times.length ?? null;
		}
		// An overview moment without a snapshot held: its chain is one record read by the index.
		$effect(() => {
			const at = momentToRead(this.frame);
			if (at !== undefined) this.reader?.want(at);
		});
		$effect(() => {
			let closed = false;
			let opened: StreamRing | undefined;
			(options.open ?? (() => StreamRing.open()))().then(
				(r) => {
					if (closed) return void r.close();
					opened = r;
					this.recorder = r;
				},
				() => (this.status = 'unavailable')
			);
			return () => {
				closed = true;
				this.recorder = undefined;
				void opened?.close();
			};
		});

		// The server's recording of the day: its overview's lines when it has one (the moments;
		// a moment's chain is read when shown), else one request gives the session from the open
		// (one snapshot per 5 s, the ring's ladder cadence), held beside the browser's own ring; a
		// past day this server did not record comes from the service's history (Quant).
		$effect(() => {
			const group = options.group();
			const day = this.day;
			const ticker = options.ticker();
			const stream = options.stream?.();
			this.serverChunks = [];
			this.lines = undefined;
			this.moment = undefined;
			this.momentError = null;
			this.reader = undefined;
			this.backfilled = null;
			this.backfillError = null;
			this.pending = null;
			this.following = false;
			const read = options.backfill ?? (typeof Worker === 'undefined' ? undefined : fetchBackfill);
			if (stream === undefined || !read) return;
			// Another day (or group) stops the wait for a day the service is still generating.
			const stop = new AbortController();
			const overview = options.overview ?? (options.backfill ? undefined : fetchOverview);
			const moment = options.moment ?? (options.backfill ? undefined : fetchMoment);
			const raw = () => this.readRaw(group, day, ticker, stream, read, stop.signal);
			const seed = untrack(() => this.seedFor(options, day));
			if (seed) {
				if (read === fetchBackfill) warmBackfillWorker();
				// Set again in this run (no render between): the page stays as it was drawn.
				const first = Promise.resolve(seed.moment);
				this.useOverview(group, ticker, stream, day, [seed.vol, seed.oi], read, stop.signal, first);
				this.moment = seed.moment.chain;
			} else if (!overview) raw();
			else {
				// The moment's record is read in the worker once the lines arrive: it starts now.
				if (read === fetchBackfill) warmBackfillWorker();
				// A past day opened at its end: its last step's chain comes as JSON, asked with the
				// page (a preload), drawn without waiting for the worker to start.
				const first =
					day !== null && moment && untrack(() => this.at) === null
						? moment(ticker, stream, day, stop.signal).catch(() => undefined)
						: undefined;
				void this.readOverview(group, ticker, stream, day, overview, read, stop.signal, first).then(
					(found) => found || stop.signal.aborted || raw()
				);
			}
			return () => {
				stop.abort();
				this.reader?.close();
			};
		});

		// The group's ring (today only): all of it once, then the tail.
		$effect(() => {
			const recorder = this.recorder;
			const group = options.group();
			const day = this.day;
			// Another group or day starts live; the first one keeps a linked moment (`?at=`).
			const shown = `${group}@${day ?? ''}`;
			if (this.shownGroup !== undefined && this.shownGroup !== shown) this.at = null;
			this.shownGroup = shown;
			this.chunks = [];
			if (day !== null) return;
			if (!recorder) return;
			this.status = 'loading';
			let stopped = false;
			let loaded = false;
			let held: RingChunk[] = [];
			const take = (fresh: RingChunk[]) => {
				held = withFreshChunks(held, fresh);
				this.chunks = held;
			};
			// A 2-hour ring of a 400-strike group is ~7 MB: read it newest first in 10-minute
			// slices, each its own task, so opening the view never blocks the page for long and
			// the recent past is scrubbable first.
			const loadRing = async () => {
				const extent = await recorder.extent(group);
				for (let to = extent?.last ?? -1; extent && to >= extent.first; to -= RING_SLICE_S) {
					const fresh = await recorder.read(group, to - RING_SLICE_S + 1, to);
					if (stopped) return;
					take(fresh);
					this.status = 'ready';
				}
				if (stopped) return;
				this.status = 'ready';
				loaded = true;
			};
			const loadTail = async () => {
				const fresh = await recorder.read(group, held.at(-1)?.start ?? 0);
				if (!stopped) take(fresh);
			};
			void loadRing().catch(() => (this.status = 'unavailable'));
			const timer = setInterval(() => {
				if (!loaded || (typeof document !== 'undefined' && document.hidden)) return;
				void loadTail().catch(() => undefined);
			}, options.refreshMs ?? REPLAY_REFRESH_MS);
			return () => {
				stopped = true;
				clearInterval(timer);
			};
		});

		// REST mode: the polled chains go into the same ring the worker fills when streaming.
		$effect(() => {
			const chain = options.polled();
			const recorder = this.recorder;
			if (!chain || !recorder) return;
			recorder.record({
				kind: 'gex',
				group: options.group(),
				ticker: chain.ticker,
				timestamp: chain.timestamp,
				value: chain
			});
		});
	}

	/**
	 * The day from the server's overview: its lines are the timeline's moments and the price
	 * chart's samples; a moment's chain is read when shown. False when the server has none for
	 * the day (or it failed): the day is then read the raw way. A picked day still being
	 * recorded (today) grows with the raw snapshots after the overview's last step.
	 */
	private async readOverview(
		group: string,
		ticker: string,
		stream: string,
		day: string | null,
		overview: typeof fetchOverview,
		read: typeof fetchBackfill,
		signal: AbortSignal,
		first?: Promise<Moment | undefined>
	): Promise<boolean> {
		// Both metrics' lines (the price chart's majors follow the view's metric): two small
		// answers side by side, no strikes in either.
		const ask = (metric: 'vol' | 'oi') =>
			overview(ticker, stream, day, metric, signal, { cells: false });
		let found: [OverviewResult | undefined, OverviewResult | undefined];
		try {
			found = await Promise.all([ask('vol'), ask('oi')]);
		} catch (err) {
			return isAbort(err) || signal.aborted;
		}
		if (signal.aborted) return true;
		return this.useOverview(group, ticker, stream, day, found, read, signal, first);
	}

	/** The page's seed when it is the one of this view's day. */
	private seedFor(options: SessionReplayOptions, day: string | null): DaySeed | undefined {
		const seed = options.seed?.();
		const same = seed?.day === day && seed?.stream === options.stream?.();
		return same && seed?.ticker === options.ticker() ? seed : undefined;
	}

	/** The day's lines taken (fetched, or the page's seed): false when they are not a day's. */
	private useOverview(
		group: string,
		ticker: string,
		stream: string,
		day: string | null,
		found: [OverviewResult | undefined, OverviewResult | undefined],
		read: typeof fetchBackfill,
		signal: AbortSignal,
		first?: Promise<Moment | undefined>
	): boolean {
		const lines = dayLinesOf(...found);
		if (!lines || !found[0]) return false;
		this.reader = new MomentReader({
			ticker,
			stream,
			day: lines.day,
			read,
			first,
			onchain: (at, chain) => {
				if (chain) this.moment = chain;
				this.momentError = chain ? null : `nothing was recorded at ${formatReplayTime(at)}`;
			},
			onerror: (_at, err) => (this.momentError = err.message)
		});
		this.lines = lines;
		this.backfilled = lines.times.length;
		if (day !== null) {
			void followRecordingDay(
				ticker,
				stream,
				sessionQuery(day, SNAPSHOT_STEP_S),
				followFrom(found[0]),
				(r) => this.addServerChunks(chunksOf(group, r.updates)),
				{ signal, read, onfollowing: (on) => (this.following = on) }
			);
		}
		return true;
	}

	/** The day's raw records from the open, one snapshot per 5 s (a day without an overview). */
	private readRaw(
		group: string,
		day: string | null,
		ticker: string,
		stream: string,
		read: typeof fetchBackfill,
		signal: AbortSignal
	): void {
		const query = sessionQuery(day, SNAPSHOT_STEP_S);
		const add = (chunks: RingChunk[]) => this.addServerChunks(chunks);
		// The timeline grows from the open minute by minute while the rest of the day decodes.
		const chunker = new BackfillChunker(group);
		fetchSessionDay(ticker, stream, query, {
			read,
			signal,
			onpending: (note) => (this.pending = note),
			onBatch: (updates) => {
				this.pending = null;
				add(chunker.push(updates));
			},
			// A picked day still being recorded (today) grows as the server records it.
			follow: day === null ? undefined : (updates) => add(chunksOf(group, updates)),
			onfollowing: (on) => (this.following = on)
		}).then(
			(result) => {
				this.pending = null;
				add([...chunker.push(result.updates), ...chunker.end()]);
				this.backfilled = chunker.count;
			},
			(err: unknown) => {
				if (isAbort(err)) return;
				this.pending = null;
				this.backfilled = 0;
				if (!(err instanceof BackfillError && err.status === 404)) {
					this.backfillError = (err as Error).message;
				}
			}
		);
	}

	/** Untracked: a batch may arrive while an effect runs, which must not depend on it. */
	private addServerChunks(chunks: RingChunk[]): void {
		if (chunks.length > 0) this.serverChunks = [...untrack(() => this.serverChunks), ...chunks];
	}

	/**
	 * The slider's position: 0..frames.length - 1 for a frame, frames.length for live (today
	 * only: a past day's slider ends at its last snapshot).
	 */
	get position(): number {
		return this.index >= 0 ? this.index : this.frames.length;
	}

	/** The slider's right end: live today, the last snapshot on a past day. */
	get last(): number {
		return this.day === null ? this.frames.length : Math.max(0, this.frames.length - 1);
	}

	scrubTo(position: number): void {
		const f = this.frames[Math.min(Math.round(position), this.last)];
		this.at = f ? f.timestamp : null;
	}

	goLive(): void {
		this.at = null;
	}
}
