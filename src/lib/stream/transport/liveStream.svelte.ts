/**
 * The page's reactive view of the stream (Svelte 5 runes): the newest update per group, the
 * relay's status and the feed mode, backed by one decode worker per page. Large payloads are
 * `$state.raw` and replaced, never mutated, so views re-render per batch, not per field.
 *
 *   const live = new LiveStream();            // in the browser only (onMount / $effect)
 *   await live.subscribe(['SPX_classic_gex_full']);
 *   $derived(live.latest.get('SPX_classic_gex_full'))
 */
import { createStreamClient, type StreamClient, type StreamClientOptions } from './streamClient';
import type { ConnectionState, StreamStats } from './messages';
import { feedMode, type FeedMode } from './mode';
import type { RefusedGroup, RelayMessage, StatusMessage } from '../../relay/protocol';
import type { StreamUpdate } from './updates';
import { EMPTY_LATEST, withoutGroups, withUpdates } from './latest';

export class LiveStream {
	/** Newest update per group (spot groups included). */
	latest: ReadonlyMap<string, StreamUpdate> = $state.raw(EMPTY_LATEST);
	status: StatusMessage | undefined = $state.raw(undefined);
	connection: ConnectionState = $state('connecting');
	stats: StreamStats | undefined = $state.raw(undefined);
	/** Groups the relay or the upstream refused, with the reason. */
	refused: RefusedGroup[] = $state.raw([]);
	/** The last place frames are missing (cluster hand-over, replay too old), and when told. */
	gap: { reason: string; at: number } | undefined = $state.raw(undefined);
	/** Updates received so far (a cheap "is it moving" signal for tests and badges). */
	batches = $state(0);
	readonly mode: FeedMode = $derived(feedMode(this.status, this.connection));

	private readonly client: StreamClient;
	// Plain callbacks, not reactive state.
	// eslint-disable-next-line svelte/prefer-svelte-reactivity
	private readonly listeners = new Set<(updates: StreamUpdate[]) => void>();

	constructor(
		options: Omit<
			StreamClientOptions,
			'onUpdates' | 'onStatus' | 'onConnection' | 'onStats' | 'onRelayMessage'
		> = {}
	) {
		this.client = createStreamClient({
			...options,
			onUpdates: (updates) => this.onUpdates(updates),
			onStatus: (status) => (this.status = status),
			onConnection: (state) => (this.connection = state),
			onStats: (stats) => (this.stats = stats),
			onRelayMessage: (message) => this.onRelayMessage(message)
		});
	}

	/** Every batch as it arrives (the recorder view, charts that keep their own buffers). */
	onBatch(listener: (updates: StreamUpdate[]) => void): () => void {
		this.listeners.add(listener);
		return () => this.listeners.delete(listener);
	}

	async subscribe(groups: string[]): Promise<RelayMessage> {
		const reply = await this.client.subscribe(groups);
		if (reply.type === 'subscribed' && reply.refused.length > 0) {
			this.refused = [...this.refused.filter((r) => !groups.includes(r.group)), ...reply.refused];
		}
		return reply;
	}

	async unsubscribe(groups: string[]): Promise<RelayMessage> {
		this.latest = withoutGroups(this.latest, groups);
		return this.client.unsubscribe(groups);
	}

	takeBack(): Promise<RelayMessage> {
		return this.client.takeBack();
	}

	/** Diagnostics: push raw bytes through the worker's decode path. */
	inject(frame: ArrayBuffer): void {
		this.client.inject(frame);
	}

	close(): void {
		this.client.close();
	}

	private onUpdates(updates: StreamUpdate[]): void {
		this.latest = withUpdates(this.latest, updates);
		this.batches++;
		for (const l of this.listeners) l(updates);
	}

	private onRelayMessage(message: RelayMessage): void {
		if (message.type === 'revoked') this.refused = [...this.refused, ...message.refused];
		if (message.type === 'gap') this.gap = { reason: message.reason, at: Date.now() };
	}
}
