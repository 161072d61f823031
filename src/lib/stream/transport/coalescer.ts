/**
 * Coalescing and spot pairing between the socket and the page. Frames arrive whenever the
 * relay sends them; the page wants at most one update per group per animation frame. The
 * coalescer keeps the newest update of each group until flush() (called once per animation
 * frame), and attaches to each analytics update the spot message of the same ticker and
 * timestamp. Their arrival order is not fixed, so an analytics update whose spot has not come
 * yet waits up to `pairWaitMs` (a frame or two) before it goes out unpaired.
 */
import type { AnalyticsUpdate, StreamUpdate } from './updates';
import type { SpotPayload } from '../../wire/payloads';

export interface CoalescerOptions {
	/** How long an analytics update may wait for its spot message (default 250 ms). */
	pairWaitMs?: number;
	/** Spot timestamps remembered per ticker (default 8). */
	spotMemory?: number;
}

interface Pending {
	update: StreamUpdate;
	arrivedAt: number;
}

export class UpdateCoalescer {
	private readonly pending = new Map<string, Pending>();
	private readonly spots = new Map<string, Map<number, SpotPayload>>();
	private readonly pairWaitMs: number;
	private readonly spotMemory: number;
	/** Updates replaced by a newer one of the same group before the page saw them. */
	superseded = 0;
	/** Analytics that went out without their spot message. */
	unpaired = 0;

	constructor(options: CoalescerOptions = {}) {
		this.pairWaitMs = options.pairWaitMs ?? 250;
		this.spotMemory = options.spotMemory ?? 8;
	}

	get size(): number {
		return this.pending.size;
	}

	push(update: StreamUpdate, now: number): void {
		if (update.kind === 'spot') this.rememberSpot(update.value);
		const prior = this.pending.get(update.group);
		// An older frame arriving late (another hub's copy) must not replace a newer one.
		if (prior && prior.update.timestamp > update.timestamp) {
			this.superseded++;
			return;
		}
		if (prior) this.superseded++;
		this.pending.set(update.group, { update, arrivedAt: prior?.arrivedAt ?? now });
	}

	/** The updates to hand to the page now: at most one per group. */
	flush(now: number): StreamUpdate[] {
		const out: StreamUpdate[] = [];
		for (const [group, p] of this.pending) {
			const u = p.update;
			if (u.kind !== 'spot') {
				const spot = this.spots.get(u.ticker)?.get(u.timestamp);
				if (spot) {
					(u as AnalyticsUpdate).pairedSpot =
						spot.source_timestamp_ms === undefined
							? { spot: spot.spot }
							: { spot: spot.spot, sourceTimestampMs: spot.source_timestamp_ms };
				} else if (now - p.arrivedAt < this.pairWaitMs) {
					continue; // its spot may still be on the way
				} else this.unpaired++;
			}
			this.pending.delete(group);
			out.push(u);
		}
		return out;
	}

	/** Drops pending updates of groups the page no longer wants. */
	forget(groups: Iterable<string>): void {
		for (const g of groups) this.pending.delete(g);
	}

	private rememberSpot(spot: SpotPayload): void {
		let byTs = this.spots.get(spot.ticker);
		if (!byTs) {
			byTs = new Map();
			this.spots.set(spot.ticker, byTs);
		}
		byTs.set(spot.timestamp, spot);
		if (byTs.size > this.spotMemory) {
			let oldest = Infinity;
			for (const ts of byTs.keys()) if (ts < oldest) oldest = ts;
			byTs.delete(oldest);
		}
	}
}
