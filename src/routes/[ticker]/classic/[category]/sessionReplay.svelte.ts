/**
 * Scrubbing back through today's recorded session of the Classic view's group. The decode
 * worker records streamed chains into the IndexedDB ring (src/lib/stream/recorder.ts); while
 * the account polls REST, this records the polled chains into the same ring, so the timeline
 * is there in both modes. The ring is read when the group opens (newest first, in slices), then
 * its tail every few seconds, and the dashboard server's recording of the day (from the open)
 * is fetched once beside it; `at` is the replayed moment (null = live), kept as a time so the timeline may grow
 * or lose its oldest frames without moving what the user looks at. Construct during component
 * init: it registers its own effects.
 */
import { StreamRecorder, type RingChunk } from '$lib/stream';
import type { ClassicChain } from '$lib/charts/classicChain';
import {
	frameChain,
	framesOf,
	nearestFrame,
	sessionFrames,
	timelineRange,
	withFreshChunks,
	type RecordedFrame,
	type TimelineRange
} from '$lib/stream/replayTimeline';
import { columnarGex } from '$lib/wire/columnar';
import { BackfillError, fetchBackfill } from '$lib/stream/backfillClient';
import { ChunkBuilder } from '$lib/stream/ringChunk';
import type { StreamUpdate } from '$lib/stream/updates';

/** Backfilled updates of `group` as ring chunks (60 s spans), so the timeline reads one shape. */
export function chunksOf(group: string, updates: readonly StreamUpdate[]): RingChunk[] {
	const out: RingChunk[] = [];
	let b: ChunkBuilder | undefined;
	for (const u of updates) {
		if (u.kind !== 'gex' || u.group !== group) continue;
		if (!b || !b.covers(u.timestamp)) {
			if (b && b.count > 0) out.push(b.seal());
			b = new ChunkBuilder(group, 'gex', u.timestamp);
		}
		b.append(u);
	}
	if (b && b.count > 0) out.push(b.seal());
	return out;
}

/** How often the ring's tail is read again (the recorder checkpoints every 5 s of data). */
export const REPLAY_REFRESH_MS = 3_000;
/** Seconds of ring read per request when a view opens. */
const RING_SLICE_S = 600;

export interface SessionReplayOptions {
	group: () => string;
	ticker: () => string;
	/** A chain the REST poller fetched (fresh, not a cached paint), to record; else undefined. */
	polled: () => ClassicChain | undefined;
	/** The group's stream on the server (`classic_gex_full`): its recording backfills the ring. */
	stream?: () => string;
	/** Opens the ring (tests pass one on fake-indexeddb). */
	open?: () => Promise<StreamRecorder>;
	refreshMs?: number;
}

export class SessionReplay {
	recorder: StreamRecorder | undefined = $state.raw(undefined);
	/** Snapshots the server's recording added to the ring (null while loading or without one). */
	backfilled: number | null = $state(null);
	/** 'unavailable': IndexedDB refused (private mode, quota); the view says replay is off. */
	status: 'opening' | 'loading' | 'ready' | 'unavailable' = $state('opening');
	chunks: RingChunk[] = $state.raw([]);
	/** The session as the dashboard server recorded it (from the open), as ring chunks. */
	serverChunks: RingChunk[] = $state.raw([]);
	readonly frames: RecordedFrame[] = $derived(
		sessionFrames(framesOf([...this.serverChunks, ...this.chunks]))
	);
	readonly range: TimelineRange | null = $derived(timelineRange(this.frames));
	/** The replayed moment (unix s), or null at the live edge. */
	at: number | null = $state(null);
	readonly index: number = $derived(this.at === null ? -1 : nearestFrame(this.frames, this.at));
	readonly frame: RecordedFrame | undefined = $derived(
		this.index >= 0 ? this.frames[this.index] : undefined
	);
	/** The chain to draw while replaying; undefined at the live edge. */
	readonly chain: ClassicChain | undefined;
	readonly replaying: boolean = $derived(this.frame !== undefined);
	private shownGroup: string | undefined;

	constructor(options: SessionReplayOptions) {
		this.chain = $derived(this.frame ? frameChain(this.frame, options.ticker()) : undefined);
		$effect(() => {
			let closed = false;
			let opened: StreamRecorder | undefined;
			(options.open ?? (() => StreamRecorder.open()))().then(
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

		// The group's ring: all of it once, then the tail.
		$effect(() => {
			const recorder = this.recorder;
			const group = options.group();
			// Another group starts live; the first one keeps a linked moment (`?at=`).
			if (this.shownGroup !== undefined && this.shownGroup !== group) this.at = null;
			this.shownGroup = group;
			this.chunks = [];
			this.serverChunks = [];
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
			// The server recorded the whole session: one request gives it from the open (one
			// snapshot per 5 s, the ring's ladder cadence), held beside the browser's own ring.
			const backfill = async () => {
				if (!options.stream || typeof Worker === 'undefined') return;
				try {
					const result = await fetchBackfill(options.ticker(), options.stream(), { step: 5 });
					if (stopped) return;
					this.serverChunks = chunksOf(group, result.updates);
					this.backfilled = result.updates.length;
				} catch (err) {
					if (!(err instanceof BackfillError)) throw err;
					this.backfilled = 0;
				}
			};
			void backfill().catch(() => undefined);
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
				value: columnarGex(chain)
			});
		});
	}

	/** The slider's position: 0..frames.length - 1 for a frame, frames.length for live. */
	get position(): number {
		return this.index >= 0 ? this.index : this.frames.length;
	}

	scrubTo(position: number): void {
		const f = this.frames[Math.round(position)];
		this.at = f ? f.timestamp : null;
	}

	goLive(): void {
		this.at = null;
	}
}
