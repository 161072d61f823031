/**
 * Coalescing and spot pairing between the socket and the page. Frames arrive whenever the
 * relay sends them; the page wants at most one update per group per batch. The coalescer keeps
 * the newest update of each group until flush() (the worker flushes as soon as it has nothing
 * else to read), and attaches to each analytics update the spot message of the same ticker and
 * timestamp when that has come. An analytics update never waits for its spot: the chain
 * carries its own spot and is drawn at once; the spot message, when it arrives, is an update of
 * its own that the views follow (tick-to-pixel, issue 26: the wait was up to 250 ms).
 */
import type { AnalyticsUpdate, StreamUpdate } from './updates';
import type { SpotPayload } from '../../wire/payloads';

export interface CoalescerOptions {
	/** Spot timestamps remembered per ticker (default 8). */
	spotMemory?: number;
}

export class UpdateCoalescer {
	private readonly pending = new Map<string, StreamUpdate>();
	private readonly spots = new Map<string, Map<number, SpotPayload>>();
	private readonly spotMemory: number;
	/** Updates replaced by a newer one of the same group before the page saw them. */
	superseded = 0;
	/** Analytics that went out before (or without) their spot message. */
	unpaired = 0;

	constructor(options: CoalescerOptions = {}) {
		this.spotMemory = options.spotMemory ?? 8;
	}

	get size(): number {
		return this.pending.size;
	}

	push(update: StreamUpdate): void {
		if (update.kind === 'spot') this.rememberSpot(update.value);
		const prior = this.pending.get(update.group);
		// An older frame arriving late (another hub's copy) must not replace a newer one.
		if (prior && prior.timestamp > update.timestamp) {
			this.superseded++;
			return;
		}
		if (prior) this.superseded++;
		this.pending.set(update.group, update);
	}

	/** The updates to hand to the page now: every pending one, at most one per group. */
	flush(): StreamUpdate[] {
		const out: StreamUpdate[] = [];
		for (const u of this.pending.values()) {
			if (u.kind !== 'spot') {
				const spot = this.spots.get(u.ticker)?.get(u.timestamp);
				if (spot) {
					(u as AnalyticsUpdate).pairedSpot =
						spot.source_timestamp_ms === undefined
							? { spot: spot.spot }
							: { spot: spot.spot, sourceTimestampMs: spot.source_timestamp_ms };
				} else this.unpaired++;
			}
			out.push(u);
		}
		this.pending.clear();
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
