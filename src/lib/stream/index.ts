/**
 * Browser side of live streaming. Pages use LiveStream (or createStreamClient); the worker
 * (./worker.ts) is started by the client and is not imported here.
 */
export { LiveStream } from './liveStream.svelte';
export { createStreamClient, type StreamClient, type StreamClientOptions } from './streamClient';
export { feedMode, type FeedMode } from './mode';
export { foldWatchlist, WATCHLIST_MAX_TICKERS, type WatchlistRow } from './watchlist';
export { StreamRecorder, RING_DB_NAME, type RecorderOptions } from './recorder';
export { chunkRow, type RingChunk } from './ringChunk';
export type { StreamUpdate, AnalyticsUpdate, PairedSpot } from './updates';
export type { ConnectionState, StreamStats, PageToWorker, WorkerToPage } from './messages';
export {
	STREAM_PATH,
	type RelayMessage,
	type RelayState,
	type StatusMessage,
	type RefusedGroup,
	type MembershipUsage
} from '../relay/protocol';
export { decodeRelayMessage, type DecodeOutcome } from './relayDecode';
export { encodeRelayFrame, parseRelayFrame, RELAY_FRAME_VERSION } from '../relay/relayFrame';
