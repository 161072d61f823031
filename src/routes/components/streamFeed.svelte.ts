/**
 * Streaming or REST for one Classic group on a page: subscribes the group on the tab's shared
 * LiveStream when the account may stream, turns each streamed update into the chain shape the
 * views use, and says which mode is active and why (the page polls REST whenever `streaming` is
 * false). Construct during component init: it registers its own effects.
 */
import { chainFromColumnar } from '$lib/wire/columnar';
import type { ClassicChain } from '$lib/charts/classicChain';
import type { LiveStream } from '$lib/stream';
import type { StreamAccess } from '../streamAccess.server';
import { sharedLiveStream } from './sharedStream';

export interface FeedBadge {
	mode: 'stream' | 'polling';
	text: string;
	canTakeBack: boolean;
}

export class StreamFeed {
	stream: LiveStream | undefined = $state.raw(undefined);
	/** The newest streamed chain of the group, or undefined before the first update. */
	readonly chain: ClassicChain | undefined = $derived.by(() => {
		const u = this.stream?.latest.get(this.group());
		return u?.kind === 'gex' ? chainFromColumnar(u.value) : undefined;
	});
	private readonly refusal: string | undefined = $derived(
		this.stream?.refused.find((r) => r.group === this.group())?.reason
	);
	/** True while the stream delivers this group: the REST poller stays idle. */
	readonly streaming: boolean = $derived(
		this.stream?.mode.mode === 'stream' && this.chain !== undefined && !this.refusal
	);
	readonly badge: FeedBadge = $derived.by(() => {
		const access = this.access();
		if (!access.ok) return polling(access.reason);
		const s = this.stream;
		if (!s) return polling('starting the live stream');
		if (this.refusal) return polling(`the stream refused ${this.group()} (${this.refusal})`);
		if (s.mode.mode === 'polling') return polling(s.mode.reason, s.mode.canTakeBack);
		if (!this.chain) return polling('waiting for the first streamed update');
		return { mode: 'stream', text: 'Streaming', canTakeBack: false };
	});

	constructor(
		private readonly access: () => StreamAccess,
		private readonly group: () => string
	) {
		$effect(() => {
			this.stream = this.access().ok ? sharedLiveStream() : undefined;
		});
		$effect(() => {
			const s = this.stream;
			const g = this.group();
			if (!s) return;
			void s.subscribe([g]);
			return () => void s.unsubscribe([g]);
		});
	}

	takeBack(): void {
		void this.stream?.takeBack();
	}
}

function polling(reason: string, canTakeBack = false): FeedBadge {
	return { mode: 'polling', text: `REST polling: ${reason}`, canTakeBack };
}
