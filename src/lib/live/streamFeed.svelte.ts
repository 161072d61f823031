/**
 * Streaming or REST for one group on a page: subscribes the group on the tab's shared
 * LiveStream when the account may stream, turns each streamed update into the shape the view
 * uses (`shape`; undefined for an update of another kind), and says which mode is active and
 * why (the page polls REST whenever `streaming` is false). Construct during component init: it
 * registers its own effects.
 */
import type { ColumnarGex } from '$lib/wire/columnar';
import type { LiveStream, StreamUpdate } from '$lib/stream';
import { clock } from './clock.svelte';
import { sharedLiveStream } from './sharedStream';

/** Whether the account may stream, as the page's server load found (routes/streamAccess.server.ts). */
export interface StreamAccess {
	ok: boolean;
	/** Why streaming is not available (shown in the mode badge); empty when it is. */
	reason: string;
}

/** A streamed group silent this long (upstream stalled, relay wedged) hands back to REST. */
export const STREAM_STALL_MS = 5_000;

export interface FeedBadge {
	mode: 'stream' | 'polling';
	text: string;
	canTakeBack: boolean;
	/** Frames the stream says are missing (a cluster hand-over), shown for a minute. */
	gap?: string;
}

/** How long a reported gap in the stream stays on the badge. */
export const GAP_SHOWN_MS = 60_000;

/**
 * A GEX group's update as the Classic, State, levels and heatmap views read it: the worker's
 * columns as they arrived (no rows are built on the main thread per update).
 */
export function gexColumns(u: StreamUpdate): ColumnarGex | undefined {
	return u.kind === 'gex' ? u.value : undefined;
}

export class StreamFeed<T = ColumnarGex> {
	stream: LiveStream | undefined = $state.raw(undefined);
	// The same update object across batches of other groups, so the value below is rebuilt only
	// when this group's update changes.
	private readonly update = $derived.by(() => this.stream?.latest.get(this.groupNow));
	/**
	 * The group and whether the account may stream, as values: a navigation that rebuilds the
	 * page's objects but keeps the group must not unsubscribe and subscribe it again.
	 */
	private readonly groupNow: string = $derived.by(() => this.group());
	private readonly mayStream: boolean = $derived.by(() => this.access().ok);
	/** The newest streamed value of the group, or undefined before the first update. */
	readonly value: T | undefined = $derived.by(() =>
		this.update ? this.shape(this.update) : undefined
	);
	private readonly refusal: string | undefined = $derived(
		this.stream?.refused.find((r) => r.group === this.groupNow)?.reason
	);
	/** Wall-clock ms of the group's newest streamed update, and a clock to notice silence. */
	private receivedAt = $state(0);
	private readonly stalled: boolean = $derived(
		this.receivedAt > 0 && clock.now - this.receivedAt > STREAM_STALL_MS
	);
	/** True while the stream delivers this group: the REST poller stays idle. */
	readonly streaming: boolean = $derived(
		this.stream?.mode.mode === 'stream' &&
			this.value !== undefined &&
			!this.refusal &&
			!this.stalled
	);
	readonly badge: FeedBadge = $derived.by(() => {
		const access = this.access();
		if (!access.ok) return polling(access.reason);
		const s = this.stream;
		if (!s) return polling('starting the live stream');
		if (this.refusal) return polling(`the stream refused ${this.groupNow} (${this.refusal})`);
		if (s.mode.mode === 'polling') return polling(s.mode.reason, s.mode.canTakeBack);
		if (this.value === undefined) return polling('waiting for the first streamed update');
		if (this.stalled) return polling('no streamed update for a few seconds');
		const gap = s.gap && clock.now - s.gap.at < GAP_SHOWN_MS ? { gap: s.gap.reason } : {};
		return { mode: 'stream', text: 'Streaming', canTakeBack: false, ...gap };
	});

	/**
	 * @param shape turns the group's update into the view's value (default: a GEX chain)
	 * @param open the tab's stream (default the shared one; tests pass a LiveStream on a fake
	 *   worker)
	 */
	constructor(
		private readonly access: () => StreamAccess,
		private readonly group: () => string,
		private readonly shape: (u: StreamUpdate) => T | undefined = gexColumns as (
			u: StreamUpdate
		) => T | undefined,
		open: () => LiveStream = sharedLiveStream
	) {
		$effect(() => {
			this.stream = this.mayStream ? open() : undefined;
		});
		$effect(() => {
			const s = this.stream;
			const g = this.groupNow;
			if (!s) return;
			void s.subscribe([g]);
			return () => void s.unsubscribe([g]);
		});
		$effect(() => {
			if (this.value !== undefined) this.receivedAt = Date.now();
		});
	}

	takeBack(): void {
		void this.stream?.takeBack();
	}
}

function polling(reason: string, canTakeBack = false): FeedBadge {
	return { mode: 'polling', text: `REST polling: ${reason}`, canTakeBack };
}
