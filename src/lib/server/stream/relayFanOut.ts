/**
 * The stream relay's viewer fan-out (see relay.ts): each upstream group frame goes, as raw Any
 * bytes in a relay frame, to the viewers holding its group (spot frames: every viewer of the
 * ticker, newest only), and onto the update tap; and the groups the upstream refused, taken
 * back from their viewers with the reason.
 *
 * Viewers first, the tap after the turn: the tap's listeners (the recorder inflates each frame
 * for its stamp and writes it synchronously, the overview decodes a chain every step, the feed
 * holder decodes for alerts) cost far more than a send, and a tick's frames arrive in one burst:
 * run before each send, they held the last groups of the burst behind the recording of all
 * the earlier ones (tick-to-pixel, issue 26). The frames of a turn are queued, in arrival order
 * with their arrival stamps, and handed to the tap on setImmediate, before the event loop reads
 * anything else: a request a viewer makes after a frame reached it still finds it recorded.
 */
import type { RefusedGroup } from '../../relay/protocol';
import type { StreamFrameUpdate } from '../updates/tap';
import { encodeRelayFrame } from '../../relay/relayFrame';
import { tryDecodeFrame } from '../../wire/decode';
import type { SubscriptionBook } from './book';
import type { RelayCounters, StreamRelayOptions } from './relayOptions';
import type { Viewer } from './viewer';

export class RelayFanOut {
	/** Per spot group, the timestamp of the newest spot relayed (older and equal are dropped). */
	private readonly lastSpotAt = new Map<string, number>();
	/** Frames relayed this turn, waiting for the tap (flushTap). */
	private tapQueue: StreamFrameUpdate[] = [];
	private tapScheduled = false;

	constructor(
		private readonly book: SubscriptionBook<Viewer>,
		private readonly counters: RelayCounters,
		private readonly tap: StreamRelayOptions['tap']
	) {}

	/** One upstream frame; `seq` is its cluster stream id (cluster mode). */
	onGroupData(group: string, any: Buffer, seq?: string): void {
		this.counters.framesIn++;
		this.counters.bytesIn += any.length;
		let audience: ReadonlySet<Viewer> | undefined;
		if (group.endsWith('_spot')) {
			// One calculation's spot arrives once per hub of its ticker, and under load one hub's
			// frames can lag the other's by many ticks: comparing bytes with recent frames let the
			// lagging hub's older spots through after newer ones (out of order, twice; the soak
			// found it). So spot frames, and only they (a few tens of bytes), are decoded for
			// their timestamp: a spot no newer than the last one relayed is dropped. One that
			// does not decode is passed on for the viewer to count as corrupt.
			const at = spotTimestamp(any);
			if (at !== undefined) {
				if (at <= (this.lastSpotAt.get(group) ?? -Infinity)) {
					this.counters.spotDuplicates++;
					return;
				}
				this.lastSpotAt.set(group, at);
			}
			audience = this.book.viewersOfTicker(group.slice(0, -5));
		} else audience = this.book.viewersOf(group);
		const receivedAt = Date.now();
		if (audience && audience.size > 0) this.toViewers(audience, group, any, seq);
		this.toTap({ source: 'stream', group, receivedAt, any });
	}

	/** Hands the frames queued for the tap to it now, in arrival order (also on close). */
	flushTap(): void {
		this.tapScheduled = false;
		const queued = this.tapQueue;
		this.tapQueue = [];
		for (const u of queued) this.tap?.publish(u);
	}

	private toViewers(audience: ReadonlySet<Viewer>, group: string, any: Buffer, seq?: string): void {
		let frame: Uint8Array;
		try {
			frame = encodeRelayFrame(group, any, seq);
		} catch {
			return; // a group name no group can have: skip the frame
		}
		for (const v of audience) {
			v.deliver(group, frame, seq);
			this.counters.framesOut++;
		}
	}

	private toTap(update: StreamFrameUpdate): void {
		if (!this.tap) return;
		this.tapQueue.push(update);
		if (this.tapScheduled) return;
		this.tapScheduled = true;
		setImmediate(() => this.flushTap());
	}

	/**
	 * A resuming viewer's missed frames, oldest first: those of its groups (and its tickers'
	 * spots, each spot once: the copies other hubs sent are dropped by timestamp) as replays.
	 * Returns how many were sent.
	 */
	replay(viewer: Viewer, frames: readonly { group: string; any: Buffer; id: string }[]): number {
		const lastSpot = new Map<string, number>();
		let sent = 0;
		for (const { group, any, id } of frames) {
			const spot = group.endsWith('_spot');
			const audience = spot
				? this.book.viewersOfTicker(group.slice(0, -5))
				: this.book.viewersOf(group);
			if (!audience?.has(viewer)) continue;
			if (spot) {
				const at = spotTimestamp(any);
				if (at !== undefined && at <= (lastSpot.get(group) ?? -Infinity)) continue;
				if (at !== undefined) lastSpot.set(group, at);
			}
			try {
				viewer.replay(group, encodeRelayFrame(group, any, id), id);
				sent++;
			} catch {
				// a group name no group can have: skip the frame
			}
		}
		return sent;
	}

	/** Groups the upstream refused leave the union; their viewers are told why. */
	revoke(batch: { viewer: Viewer; group: string }[], reason: string): void {
		this.refuse(batch.map((b) => ({ ...b, reason: `Upstream refused: ${reason}` })));
	}

	/** Groups taken back from their viewers, each with its reason (one message per viewer). */
	refuse(batch: { viewer: Viewer; group: string; reason: string }[]): void {
		const byViewer = new Map<Viewer, RefusedGroup[]>();
		for (const { viewer, group, reason } of batch) {
			if (this.book.remove(viewer, [group]).length === 0) continue;
			viewer.forget([group]);
			const list = byViewer.get(viewer) ?? [];
			list.push({ group, reason });
			byViewer.set(viewer, list);
		}
		for (const [viewer, refused] of byViewer) viewer.sendMessage({ type: 'revoked', refused });
	}
}

/** The timestamp of a spot frame's Any bytes; undefined when they do not decode as a spot. */
function spotTimestamp(any: Uint8Array): number | undefined {
	const decoded = tryDecodeFrame(any);
	return decoded.ok && decoded.frame.kind === 'spot' ? decoded.frame.value.timestamp : undefined;
}
