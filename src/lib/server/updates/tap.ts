/**
 * The update tap: the one place on the dashboard server where every piece of market data it
 * receives is published, whoever consumes it. The stream relay publishes each upstream group
 * frame (raw Any bytes, never decoded here) and the REST proxy each fresh snapshot it fetched
 * from the upstream. The session recorder subscribes today; an alerts engine will subscribe to
 * the same tap, so nothing here knows about recording.
 *
 * A listener that throws is counted and skipped: a consumer's bug must never stop the relay's
 * fan-out or the proxy's answer.
 */

/** A group frame the relay received from a hub (the account streams: Quant). */
export interface StreamFrameUpdate {
	source: 'stream';
	/** The unprefixed group name (`SPX_classic_gex_full`, `SPX_spot`, ...). */
	group: string;
	/** Server wall clock (unix ms) when the frame arrived. */
	receivedAt: number;
	/** google.protobuf.Any bytes, still zstd-compressed; listeners must not modify them. */
	any: Uint8Array;
}

/** A snapshot the proxy fetched from a REST route (other tiers poll these). */
export interface SnapshotUpdate {
	source: 'snapshot';
	ticker: string;
	/** `classic_gex_full`, `state_delta_zero`, `orderflow_orderflow`: package and category. */
	stream: string;
	receivedAt: number;
	/** The upstream's JSON body as received. */
	json: string;
}

export type ReceivedUpdate = StreamFrameUpdate | SnapshotUpdate;

export type UpdateListener = (update: ReceivedUpdate) => void;

export class UpdateTap {
	private readonly listeners = new Set<UpdateListener>();
	/** Listener calls that threw (the update still reached every other listener). */
	failures = 0;
	lastFailure: string | undefined;

	/** Adds a listener; the returned function removes it. */
	subscribe(listener: UpdateListener): () => void {
		this.listeners.add(listener);
		return () => {
			this.listeners.delete(listener);
		};
	}

	get listenerCount(): number {
		return this.listeners.size;
	}

	/** Hands one update to every listener, synchronously, in subscription order. Never throws. */
	publish(update: ReceivedUpdate): void {
		for (const listener of this.listeners) {
			try {
				listener(update);
			} catch (e) {
				this.failures++;
				this.lastFailure = e instanceof Error ? e.message : String(e);
			}
		}
	}
}

let processTap: UpdateTap | undefined;

/** The process's tap, shared by the relay, the proxy and every consumer. */
export function updateTap(): UpdateTap {
	processTap ??= new UpdateTap();
	return processTap;
}
