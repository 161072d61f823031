/**
 * Scrubbing back through today's recorded session of the Classic view's group. The decode
 * worker records streamed chains into the IndexedDB ring (src/lib/stream/recorder.ts); while
 * the account polls REST, this records the polled chains into the same ring, so the timeline
 * is there in both modes. The ring is read once when the group opens, then its tail every few
 * seconds; `at` is the replayed moment (null = live), kept as a time so the timeline may grow
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

/** How often the ring's tail is read again (the recorder checkpoints every 5 s of data). */
export const REPLAY_REFRESH_MS = 3_000;

export interface SessionReplayOptions {
	group: () => string;
	ticker: () => string;
	/** A chain the REST poller fetched (fresh, not a cached paint), to record; else undefined. */
	polled: () => ClassicChain | undefined;
	/** Opens the ring (tests pass one on fake-indexeddb). */
	open?: () => Promise<StreamRecorder>;
	refreshMs?: number;
}

export class SessionReplay {
	recorder: StreamRecorder | undefined = $state.raw(undefined);
	/** 'unavailable': IndexedDB refused (private mode, quota); the view says replay is off. */
	status: 'opening' | 'loading' | 'ready' | 'unavailable' = $state('opening');
	chunks: RingChunk[] = $state.raw([]);
	readonly frames: RecordedFrame[] = $derived(sessionFrames(framesOf(this.chunks)));
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
			this.at = null;
			this.chunks = [];
			if (!recorder) return;
			this.status = 'loading';
			let stopped = false;
			let held: RingChunk[] = [];
			const load = async () => {
				const from = held.at(-1)?.start ?? 0;
				const fresh = await recorder.read(group, from);
				if (stopped) return;
				held = withFreshChunks(held, fresh);
				this.chunks = held;
				this.status = 'ready';
			};
			void load().catch(() => (this.status = 'unavailable'));
			const timer = setInterval(() => {
				if (typeof document !== 'undefined' && document.hidden) return;
				void load().catch(() => undefined);
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
