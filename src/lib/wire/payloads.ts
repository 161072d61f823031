/**
 * The REST-shaped values a frame carries, per frame kind. The hubs encode these (the same
 * objects the REST routes serve) and the decoders give them back, scaled back to units.
 */

import type { ClassicChain, GreekProfile, OrderflowBody } from '../contract/schemas';

/** A spot message: shares ticker and timestamp with the analytics of the same calculation. */
export interface SpotPayload {
	timestamp: number;
	ticker: string;
	spot: number;
	/** Milliseconds timestamp of the quote the spot came from, when known. */
	source_timestamp_ms?: number;
}

export interface FramePayloads {
	gex: ClassicChain;
	greek: GreekProfile;
	orderflow: OrderflowBody;
	spot: SpotPayload;
	/** Volume profiles: JSON, carried as is. */
	volume: unknown;
}

export type FramePayloadKind = keyof FramePayloads;
