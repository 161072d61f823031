/**
 * Browser side of live streaming. Pages use LiveStream (or createStreamClient); the worker
 * (./worker.ts) is started by the client and is not imported here, nor is the decode path
 * (./transport/relayDecode.ts): it brings the codec (protobufjs, the generated messages, the zstd
 * decoder) that only the workers run, and a page importing this file would load it too.
 */
export { LiveStream } from './transport/liveStream.svelte';
export {
	createStreamClient,
	type StreamClient,
	type StreamClientOptions
} from './transport/streamClient';
export { feedMode, type FeedMode } from './transport/mode';
export { foldWatchlist, WATCHLIST_MAX_TICKERS, type WatchlistRow } from './series/watchlist';
export { StreamRing, RING_DB_NAME, type StreamRingOptions } from './ring/streamRing';
export { chunkRow, type RingChunk } from './ring/ringChunk';
export type { StreamUpdate, AnalyticsUpdate, PairedSpot } from './transport/updates';
export type {
	ConnectionState,
	StreamStats,
	PageToWorker,
	WorkerToPage
} from './transport/messages';
export {
	STREAM_PATH,
	type RelayMessage,
	type RelayState,
	type StatusMessage,
	type RefusedGroup,
	type MembershipUsage
} from '../relay/protocol';
export { encodeRelayFrame, parseRelayFrame, RELAY_FRAME_VERSION } from '../relay/relayFrame';
