/**
 * What the decode worker posts to the page: one update per group frame, in columnar form for
 * ladders (typed arrays, transferable), plain values for scalars. Analytics carry the spot
 * message of the same calculation (same ticker and timestamp) when it arrived in time.
 */
import type { OrderflowBody } from '../../contract/schemas';
import type { ColumnarGex, ColumnarGreekProfile } from '../../wire/columnar';
import { transferables } from '../../wire/columnar';
import type { SpotPayload } from '../../wire/payloads';

/** The spot message paired with an analytics frame. */
export interface PairedSpot {
	spot: number;
	sourceTimestampMs?: number;
}

interface Base {
	group: string;
	ticker: string;
	/** Unix seconds of the calculation (0 when a volume profile carries none). */
	timestamp: number;
}

export type StreamUpdate =
	| (Base & { kind: 'gex'; value: ColumnarGex; pairedSpot?: PairedSpot })
	| (Base & { kind: 'greek'; value: ColumnarGreekProfile; pairedSpot?: PairedSpot })
	| (Base & { kind: 'orderflow'; value: OrderflowBody; pairedSpot?: PairedSpot })
	| (Base & { kind: 'volume'; value: unknown; pairedSpot?: PairedSpot })
	| (Base & { kind: 'spot'; value: SpotPayload });

export type AnalyticsUpdate = Exclude<StreamUpdate, { kind: 'spot' }>;

/** The buffers of an update's typed arrays, to transfer instead of copy. */
export function updateTransferables(update: StreamUpdate): ArrayBuffer[] {
	if (update.kind === 'gex' || update.kind === 'greek') return transferables(update.value);
	return [];
}
