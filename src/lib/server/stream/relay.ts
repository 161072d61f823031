/**
 * StreamRelay: the dashboard server's hold on the account's one custom-script WebSocket slot.
 *
 * Every viewer (tab, device) tells the relay which analytics groups it wants; the relay keeps
 * the reference-counted union (spot coverage added per ticker), and brings the upstream to that
 * union with as few negotiations as possible:
 *   - POST /negotiate only when it must: nothing negotiated yet, a needed hub without a usable
 *     URL (never issued, expired, refused on connect), or the upstream lost the session. A POST
 *     kicks every connection of the slot, so it is never retried in a tight loop: failures back
 *     off exponentially with jitter.
 *   - PATCH /negotiate with the complete set for every other change.
 *   - A dropped hub reconnects with its still-valid URL (no POST), after a backoff delay.
 *   - `Websocket Session Limit Reached` means another program of the account took the slot:
 *     the relay stops, tells every viewer, and waits for takeBack().
 * Upstream group frames are relayed as raw Any bytes, never decoded (see relayFrame); only spot
 * frames are read for their timestamp, to drop the copies and stale ones other hubs send.
 */
import { DEFAULT_GROUP_LIMIT, spotGroupName } from '../../contract/hubs';
import type { RefusedGroup, RelayState, StatusMessage } from '../../relay/protocol';
import { SubscriptionBook, type AddResult, type UnionPlan } from './book';
import type { HubEnd } from './hubSocket';
import { NegotiationError } from './negotiator';
import { RelayFanOut } from './relayFanOut';
import { resumeViewer } from './relayResume';
import { standbyState, type HolderState } from '../cluster/holderState';
import { RelayBackoff } from './relayBackoff';
import { newRelayCounters, type RelayCounters, type StreamRelayOptions } from './relayOptions';
import { RelaySession } from './relaySession';
import { UpstreamHubs } from './upstreamHubs';
import { Viewer, type ViewerSocket } from './viewer';

export type { RelayCounters, RelayTarget, StreamRelayOptions } from './relayOptions';

/** The relay's handle of a viewer; pass it back to subscribe/unsubscribe/disconnect. */
export type RelayViewer = Viewer;

export class StreamRelay {
	readonly counters: RelayCounters = newRelayCounters();
	private readonly book: SubscriptionBook<Viewer>;
	private readonly viewers = new Set<Viewer>();
	private readonly hubs: UpstreamHubs;
	private readonly fanOut: RelayFanOut;
	/** (viewer, group) additions not yet confirmed by an upstream answer. */
	private unconfirmed: { viewer: Viewer; group: string }[] = [];
	private readonly session: RelaySession;
	private stateValue: RelayState = 'idle';
	private reasonValue: string | undefined;
	private dirty = false;
	private running: Promise<void> | undefined;
	private retryTimer: ReturnType<typeof setTimeout> | undefined;
	private readonly backoff: RelayBackoff;
	private nextViewerId = 1;
	/** Cluster mode, not holding: the holder's state as it last shared it. */
	private holderView: HolderState | undefined;
	private closed = false;
	private readonly now: () => number;
	private readonly log: (message: string) => void;

	constructor(private readonly options: StreamRelayOptions) {
		if (!options.target && !(options.baseUrl && options.key)) {
			throw new Error('StreamRelay needs baseUrl and key, or target');
		}
		this.book = new SubscriptionBook(options.groupLimit ?? DEFAULT_GROUP_LIMIT);
		this.now = options.now ?? Date.now;
		this.backoff = new RelayBackoff(options, this.now, options.random ?? Math.random);
		this.log = options.log ?? (() => undefined);
		this.fanOut = new RelayFanOut(this.book, this.counters, options.tap);
		this.hubs = new UpstreamHubs(
			{
				groupData: (group, any) =>
					options.cluster
						? options.cluster.publish(group, any)
						: this.fanOut.onGroupData(group, any),
				connected: () => this.counters.hubConnects++,
				recovering: (hub, end, first) => this.onHubRecovering(hub, end, first),
				resumed: (hub, stillResuming) => this.onHubResumed(hub, stillResuming),
				ended: (hub, end) => this.onHubEnd(hub, end),
				slotTaken: (reason) => this.onSlotTaken(reason),
				isClosed: () => this.closed
			},
			options
		);
		this.session = new RelaySession(
			{
				hubs: this.hubs,
				counters: this.counters,
				setState: (state, reason) => this.setState(state, reason),
				refuseHubs: (hubs) => {
					const reason = `this key has no access to hub ${[...hubs].join(', ')}`;
					this.fanOut.revoke(this.book.holdingsOnHubs(hubs), reason);
					// Holder: the other replicas' viewers of those hubs are told too.
					const c = options.cluster;
					if (c?.holding) c.refuseUpstream(c.groupsOnHubs(hubs), reason);
					this.schedule();
				},
				broadcastStatus: () => this.broadcastStatus(),
				log: (message) => this.log(message)
			},
			options,
			this.now
		);
		options.cluster?.start(
			{
				acquired: () => {
					// A standby mirrored the old holder's state (slot taken, error): this replica
					// negotiates afresh now.
					this.holderView = undefined;
					if (!this.closed) this.setState('idle');
					this.schedule();
				},
				lost: (reason) => this.onLeaseLost(reason),
				wantsChanged: () => this.schedule(),
				frame: (group, any, id) => this.fanOut.onGroupData(group, any, id),
				gap: (at, reason) => {
					for (const v of this.viewers) v.sendMessage({ type: 'gap', at, reason });
				},
				holderState: (state) => {
					this.holderView = state;
					if (!this.options.cluster?.holding && !this.closed) this.standBy();
				},
				refused: (refused) => this.onClusterRefused(refused),
				takeBack: () => this.takeBack()
			},
			options.groupLimit ?? DEFAULT_GROUP_LIMIT
		);
	}

	get state(): RelayState {
		return this.stateValue;
	}

	get reason(): string | undefined {
		return this.reasonValue;
	}

	get viewerCount(): number {
		return this.viewers.size;
	}

	/** Every viewer's owner and groups (each user's share: usage/memberships.ts). */
	holdings(): { owner: string; groups: string[] }[] {
		return [...this.viewers].map((v) => ({ owner: v.owner, groups: this.book.groupsOf(v) }));
	}

	/** Hubs with an open upstream connection. */
	openHubs(): string[] {
		return this.hubs.open();
	}

	/** Registers a viewer's socket (`owner`: whose share it is); it receives status at once. */
	connect(socket: ViewerSocket, label = 'viewer', owner?: string): RelayViewer {
		if (this.closed) throw new Error('relay is closed');
		const { viewerHighWater } = this.options;
		const viewer = new Viewer(this.nextViewerId++, socket, label, viewerHighWater, owner);
		this.viewers.add(viewer);
		viewer.sendMessage(this.status(viewer));
		return viewer;
	}

	/**
	 * Adds groups to a viewer. Accepted groups join the union (the upstream is brought to it in
	 * the background; a later upstream refusal arrives as a `revoked` message); refused ones say
	 * why (invalid name, spot group, membership limit).
	 */
	subscribe(viewer: RelayViewer, groups: readonly string[]): AddResult {
		if (!this.viewers.has(viewer)) return { accepted: [], refused: [] };
		const before = new Set(this.book.groupsOf(viewer));
		const result = this.book.add(viewer, groups);
		for (const group of result.accepted) {
			if (!before.has(group)) this.unconfirmed.push({ viewer, group });
		}
		if (this.stateValue === 'error') this.stateValue = 'idle';
		this.schedule();
		return result;
	}

	/**
	 * A reconnecting viewer had frames up to `after` (cluster mode): its missed frames are
	 * replayed before live ones (relayResume.ts). Call it right after subscribe.
	 */
	resume(viewer: RelayViewer, after: string): Promise<void> {
		return resumeViewer(viewer, after, this.options.cluster, this.fanOut);
	}

	unsubscribe(viewer: RelayViewer, groups: readonly string[]): string[] {
		const removed = this.book.remove(viewer, groups);
		viewer.forget(removed);
		if (removed.length > 0) this.schedule();
		return removed;
	}

	/** A viewer left: only groups no other viewer holds leave the upstream set. */
	disconnect(viewer: RelayViewer): void {
		if (!this.viewers.delete(viewer)) return;
		this.unconfirmed = this.unconfirmed.filter((u) => u.viewer !== viewer);
		if (this.book.removeViewer(viewer).length > 0) this.schedule();
	}

	/**
	 * The upstream or key may have changed (settings saved): check on the next negotiation, and
	 * leave the error state if that is what held the relay.
	 */
	refresh(): void {
		if (this.closed || this.stateValue === 'slot-taken') return;
		if (this.stateValue === 'error') this.setState('idle');
		// A user's change is worth trying now rather than after the pending backoff delay.
		clearTimeout(this.retryTimer);
		this.retryTimer = undefined;
		this.backoff.reset();
		this.schedule();
	}

	/** After the slot was taken by another program: negotiate again (the user asked for it). */
	takeBack(): void {
		if (this.closed) return;
		const cluster = this.options.cluster;
		if (cluster && !cluster.holding) {
			// The holder's slot: ask it (through Redis) to take it back.
			cluster.askTakeBack();
			return;
		}
		if (this.stateValue !== 'slot-taken' && this.stateValue !== 'error') return;
		this.log('relay: taking the slot back on request');
		this.backoff.reset();
		this.setState('idle');
		this.schedule();
	}

	status(viewer?: RelayViewer, id?: number): StatusMessage {
		const message: StatusMessage = {
			type: 'status',
			state: this.stateValue,
			usage: this.book.plan().usage,
			groups: viewer ? this.viewerGroups(viewer) : this.book.plan().groups,
			viewers: this.viewers.size
		};
		if (id !== undefined) message.id = id;
		if (this.reasonValue) message.reason = this.reasonValue;
		return message;
	}

	/** Resolves when no negotiation is running or due immediately (tests, shutdown). */
	async settled(): Promise<void> {
		while (this.running) await this.running;
	}

	async close(): Promise<void> {
		this.closed = true;
		// The frames relayed in this turn still reach the recorder.
		this.fanOut.flushTap();
		clearTimeout(this.retryTimer);
		await this.settled().catch(() => undefined);
		this.hubs.closeAll();
		await this.options.cluster?.stop();
		for (const v of this.viewers) v.close(1001, 'Relay shutting down');
		this.viewers.clear();
		this.setState('closed');
	}

	// ---- upstream ------------------------------------------------------------------------

	private schedule(): void {
		// The other replicas' holder negotiates what this one's viewers want (spots follow).
		this.options.cluster?.setWants(this.book.plan().groups.filter((g) => !g.endsWith('_spot')));
		this.dirty = true;
		if (this.running || this.closed) return;
		this.running = this.loop().finally(() => {
			this.running = undefined;
		});
	}

	private async loop(): Promise<void> {
		while (this.dirty && !this.closed) {
			this.dirty = false;
			if (this.stateValue === 'slot-taken' || this.retryTimer) return;
			const plan = this.currentPlan();
			if (!plan) return;
			const batch = this.unconfirmed;
			this.unconfirmed = [];
			try {
				// Success does not reset the backoff: a hub that connects and drops at once would
				// otherwise be retried at the base delay forever (see retryLater).
				await this.session.reconcile(plan);
				if (this.options.cluster?.holding) this.options.cluster.negotiated(plan);
			} catch (e) {
				this.onFailure(e, batch);
			}
			// The lease passed while hubs were connecting: let go of what that opened too.
			const cluster = this.options.cluster;
			if (cluster && !cluster.holding) {
				this.onLeaseLost('the lease passed during a negotiation');
			}
		}
	}

	/** What to negotiate: this process's union, or in a cluster the replicas' (holder only). */
	private currentPlan(): UnionPlan | undefined {
		const cluster = this.options.cluster;
		if (!cluster) return this.book.plan();
		if (cluster.holding) return cluster.unionPlan();
		this.standBy();
		return undefined;
	}

	/**
	 * Not holding: say what the holder's relay does, so this replica's viewers stream while it
	 * streams and fall back to polling (with its reason) while it cannot.
	 */
	private standBy(): void {
		const { state, reason } = standbyState(this.holderView);
		this.setState(state, reason);
	}

	/** Groups the cluster's union or the upstream refused: taken back from this replica's viewers. */
	private onClusterRefused(refused: RefusedGroup[]): void {
		const batch = refused.flatMap(({ group, reason }) =>
			[...(this.book.viewersOf(group) ?? [])].map((viewer) => ({ viewer, group, reason }))
		);
		this.fanOut.refuse(batch);
		if (batch.length > 0) this.schedule();
	}

	/** The slot lease passed (or could not be renewed): stop using the slot at once. */
	private onLeaseLost(reason: string): void {
		this.hubs.retire();
		this.session.forget();
		clearTimeout(this.retryTimer);
		this.retryTimer = undefined;
		this.log(`relay: standing by (${reason})`);
		if (this.stateValue !== 'closed') this.schedule();
	}

	private onHubRecovering(hub: string, end: HubEnd, first: boolean): void {
		if (first) this.log(`relay: hub ${hub} dropped (${end.reason}); resuming`);
		if (this.stateValue === 'live' || this.stateValue === 'reconnecting') {
			this.setState(
				'reconnecting',
				`hub ${hub} dropped: ${end.reason}; resuming the same connection`
			);
		}
	}

	private onHubResumed(hub: string, stillResuming: number): void {
		this.log(`relay: hub ${hub} resumed`);
		if (stillResuming === 0 && this.stateValue === 'reconnecting' && !this.retryTimer) {
			this.setState('live');
		}
	}

	private onHubEnd(hub: string, end: HubEnd): void {
		if (this.closed) return;
		if (end.slotTaken) {
			this.onSlotTaken(end.reason);
			return;
		}
		this.counters.hubDrops++;
		this.log(`relay: hub ${hub} dropped: ${end.reason}`);
		this.retryLater(new NegotiationError(0, `hub ${hub} dropped: ${end.reason}`));
	}

	private onSlotTaken(reason: string): void {
		if (this.stateValue === 'slot-taken') return;
		this.hubs.retire();
		this.session.forget();
		clearTimeout(this.retryTimer);
		this.retryTimer = undefined;
		this.log(`relay: slot taken (${reason})`);
		this.setState(
			'slot-taken',
			`Another program using this account's custom-script key negotiated a WebSocket session and took the slot (${reason}). Take it back to resume; that program will then be disconnected.`
		);
	}

	private onFailure(e: unknown, batch: { viewer: Viewer; group: string }[]): void {
		if (this.stateValue === 'slot-taken' || this.closed) return;
		const err =
			e instanceof NegotiationError
				? e
				: new NegotiationError(0, (e as Error)?.message ?? String(e));
		if (err.transient) {
			// The additions ride along with the retry.
			this.unconfirmed = batch.concat(this.unconfirmed);
			this.retryLater(err);
			return;
		}
		if (err.status === 409) {
			// The upstream has no session for us (restart, legacy flow): negotiate afresh.
			this.session.forgetUrls();
			this.unconfirmed = batch.concat(this.unconfirmed);
			this.retryLater(err);
			return;
		}
		// Holder: the refusal is about the union's new groups, whichever replica's viewers asked.
		const fresh = this.options.cluster?.holding ? this.options.cluster.freshGroups() : [];
		if ((err.status === 400 || err.status === 403) && batch.length + fresh.length > 0) {
			this.fanOut.revoke(batch, err.message);
			this.options.cluster?.refuseUpstream(fresh, err.message);
			this.schedule();
			return;
		}
		this.log(`relay: upstream refused (${err.status}): ${err.message}`);
		this.setState('error', `Upstream refused (${err.status}): ${err.message}`);
	}

	private retryLater(err: NegotiationError): void {
		if (this.retryTimer || this.closed) return;
		const delay = this.backoff.next(err.retryAfterMs);
		// The viewer's status line: what the upstream said, with its status when it gave one.
		const what =
			err.status > 0 && !err.message.includes(String(err.status))
				? `upstream answered ${err.status}: ${err.message}`
				: err.message;
		this.setState('reconnecting', `${what}; retrying in ${Math.round(delay)} ms`);
		this.retryTimer = setTimeout(() => {
			this.retryTimer = undefined;
			this.schedule();
		}, delay);
		this.retryTimer.unref?.();
	}

	// ---- viewers -------------------------------------------------------------------------

	private viewerGroups(viewer: Viewer): string[] {
		const groups = this.book.groupsOf(viewer);
		const tickers = new Set(groups.map((g) => this.tickerOfGroup(g)));
		return groups.concat([...tickers].map(spotGroupName)).sort();
	}

	private tickerOfGroup(group: string): string {
		return this.book.tickerOfGroup(group) ?? group;
	}

	private setState(state: RelayState, reason?: string): void {
		const changed = state !== this.stateValue || reason !== this.reasonValue;
		this.stateValue = state;
		this.reasonValue = reason;
		this.options.cluster?.reportState(state, reason);
		if (changed) this.broadcastStatus();
	}

	private broadcastStatus(): void {
		for (const v of this.viewers) v.sendMessage(this.status(v));
	}
}
