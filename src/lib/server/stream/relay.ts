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
import { DEFAULT_GROUP_LIMIT, spotGroupName, URL_TTL_MS } from '../../contract/hubs';
import type { RefusedGroup, RelayState, StatusMessage } from '../../relay/protocol';
import { encodeRelayFrame } from '../../relay/relayFrame';
import { tryDecodeFrame } from '../../wire/decode';
import { membershipKey, SubscriptionBook, type AddResult } from './book';
import type { HubEnd } from './hubSocket';
import { ResumableHub } from './resumable';
import { NegotiationError, Negotiator } from './negotiator';
import type { UpdateTap } from '../updates/tap';
import { Viewer, type ViewerSocket } from './viewer';

/** Where the relay negotiates, and with which key. */
export interface RelayTarget {
	/** Upstream base URL including `/v2` (the embedded service's `url`, or api.gex.bot/v2). */
	baseUrl: string;
	/** The account's custom-script key (`gexbot_custom_...`); undefined = none configured. */
	key: string | undefined;
}

export interface StreamRelayOptions {
	/** Fixed upstream base URL (with `key`), or use `target`. */
	baseUrl?: string;
	/** Fixed custom-script key (with `baseUrl`), or use `target`. */
	key?: string;
	/**
	 * The current upstream and key, asked before each negotiation (the dashboard's settings can
	 * change them; a change takes effect with a new POST).
	 */
	target?: () => RelayTarget | Promise<RelayTarget>;
	/** `gexdeck/<version>`, sent on negotiation and on the hub upgrades. */
	userAgent: string;
	/** The account's membership limit (whoami's group limit; default 150). */
	groupLimit?: number;
	/** Backoff of retries: first delay and cap (ms). Default 1 s, 60 s. */
	backoff?: { baseMs?: number; maxMs?: number };
	/** URLs older than this are not used to connect (default: the 15 min window minus 1 min). */
	urlTtlMs?: number;
	/** Bytes a viewer may have in flight before its frames are coalesced (latest-only). */
	viewerHighWater?: number;
	/** Bounds of one negotiation request and one hub handshake (ms); default 10 s each. */
	timeouts?: { negotiateMs?: number; handshakeMs?: number };
	now?: () => number;
	random?: () => number;
	fetch?: typeof fetch;
	log?: (message: string) => void;
	/** Every received group frame is published here (recorder, alerts); see updates/tap. */
	tap?: UpdateTap;
}

/** A failure this long after the previous one restarts the backoff from its base delay. */
const BACKOFF_RESET_MS = 5 * 60_000;

export interface RelayCounters {
	posts: number;
	patches: number;
	/** Hub connections opened (first connects and reconnects). */
	hubConnects: number;
	/** Hubs that dropped while the relay held the slot. */
	hubDrops: number;
	framesIn: number;
	bytesIn: number;
	/** Frame deliveries to viewers (one frame to three viewers counts three). */
	framesOut: number;
	/** Duplicate spot frames (one calculation arrives on each hub of its ticker) not re-sent. */
	spotDuplicates: number;
}

/** The relay's handle of a viewer; pass it back to subscribe/unsubscribe/disconnect. */
export type RelayViewer = Viewer;

export class StreamRelay {
	readonly counters: RelayCounters = {
		posts: 0,
		patches: 0,
		hubConnects: 0,
		hubDrops: 0,
		framesIn: 0,
		bytesIn: 0,
		framesOut: 0,
		spotDuplicates: 0
	};
	private readonly book: SubscriptionBook<Viewer>;
	private negotiator: Negotiator | undefined;
	/** `baseUrl key` of the negotiator, to notice a changed target. */
	private negotiatorId = '';
	private readonly viewers = new Set<Viewer>();
	private readonly hubs = new Map<string, ResumableHub>();
	/** Hubs dropped and being resumed (viewers are told; no frames arrive meanwhile). */
	private readonly resuming = new Set<string>();
	/** Per spot group, the timestamp of the newest spot relayed (older and equal are dropped). */
	private readonly lastSpotAt = new Map<string, number>();
	/** (viewer, group) additions not yet confirmed by an upstream answer. */
	private unconfirmed: { viewer: Viewer; group: string }[] = [];
	private urls: Record<string, string> | undefined;
	private urlsAt = 0;
	/** Membership set the upstream holds for the slot, as far as the relay knows. */
	private appliedKey = '';
	private stateValue: RelayState = 'idle';
	private reasonValue: string | undefined;
	private dirty = false;
	private running: Promise<void> | undefined;
	private retryTimer: ReturnType<typeof setTimeout> | undefined;
	private attempt = 0;
	private lastFailureAt = 0;
	private nextViewerId = 1;
	private closed = false;
	private readonly now: () => number;
	private readonly random: () => number;
	private readonly log: (message: string) => void;

	constructor(private readonly options: StreamRelayOptions) {
		if (!options.target && !(options.baseUrl && options.key)) {
			throw new Error('StreamRelay needs baseUrl and key, or target');
		}
		this.book = new SubscriptionBook(options.groupLimit ?? DEFAULT_GROUP_LIMIT);
		this.now = options.now ?? Date.now;
		this.random = options.random ?? Math.random;
		this.log = options.log ?? (() => undefined);
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

	/** Hubs with an open upstream connection. */
	openHubs(): string[] {
		return [...this.hubs.values()].filter((h) => h.isOpen).map((h) => h.hub);
	}

	/** Registers a viewer's socket; it receives status at once. */
	connect(socket: ViewerSocket, label = 'viewer'): RelayViewer {
		if (this.closed) throw new Error('relay is closed');
		const viewer = new Viewer(this.nextViewerId++, socket, label, this.options.viewerHighWater);
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
		this.attempt = 0;
		this.schedule();
	}

	/** After the slot was taken by another program: negotiate again (the user asked for it). */
	takeBack(): void {
		if (this.closed) return;
		if (this.stateValue !== 'slot-taken' && this.stateValue !== 'error') return;
		this.log('relay: taking the slot back on request');
		this.attempt = 0;
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
		clearTimeout(this.retryTimer);
		await this.settled().catch(() => undefined);
		for (const h of this.hubs.values()) h.close();
		this.hubs.clear();
		for (const v of this.viewers) v.close(1001, 'Relay shutting down');
		this.viewers.clear();
		this.setState('closed');
	}

	// ---- upstream ------------------------------------------------------------------------

	private schedule(): void {
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
			const batch = this.unconfirmed;
			this.unconfirmed = [];
			try {
				// Success does not reset the backoff: a hub that connects and drops at once would
				// otherwise be retried at the base delay forever (see retryLater).
				await this.reconcile();
			} catch (e) {
				this.onFailure(e, batch);
			}
		}
	}

	/** The negotiator for the current target; a changed target drops the old session. */
	private async currentNegotiator(): Promise<Negotiator> {
		const t: RelayTarget = this.options.target
			? await this.options.target()
			: { baseUrl: this.options.baseUrl!, key: this.options.key };
		if (!t.key) throw new NegotiationError(401, 'No custom-script key is configured.');
		if (!/^https?:\/\//.test(t.baseUrl)) {
			throw new NegotiationError(0, `Upstream base URL must be http(s): ${t.baseUrl}`);
		}
		const id = `${t.baseUrl} ${t.key}`;
		if (!this.negotiator || id !== this.negotiatorId) {
			if (this.negotiator) {
				this.log('relay: upstream or key changed; negotiating afresh');
				this.retireHubs();
				this.urls = undefined;
				this.appliedKey = '';
			}
			this.negotiator = new Negotiator({
				baseUrl: t.baseUrl,
				key: t.key,
				userAgent: this.options.userAgent,
				fetch: this.options.fetch,
				timeoutMs: this.options.timeouts?.negotiateMs
			});
			this.negotiatorId = id;
		}
		return this.negotiator;
	}

	private async reconcile(): Promise<void> {
		const plan = this.book.plan();
		if (plan.memberships.length === 0 && this.appliedKey === '') {
			this.setState('idle');
			return;
		}
		const negotiator = await this.currentNegotiator();
		const wantKey = membershipKey(plan.memberships);
		if (plan.memberships.length === 0) {
			if (this.appliedKey !== '' && this.openHubs().length > 0) {
				this.setState('negotiating');
				await negotiator.patch([]);
				this.counters.patches++;
			}
			this.appliedKey = '';
			this.setState('idle');
			return;
		}
		const missing = plan.usedHubs.filter((hub) => !this.hubs.get(hub)?.isOpen);
		// Connected hubs keep working past the URL window; only a hub still to connect needs a
		// fresh URL.
		const urlsUsable = this.urls !== undefined && this.now() - this.urlsAt <= this.urlTtl();
		let needPost = this.urls === undefined || (missing.length > 0 && !urlsUsable);
		if (!needPost) {
			for (const hub of missing) {
				const url = this.urls![hub];
				if (!url) {
					needPost = true;
					break;
				}
				const end = await this.openHub(hub, url);
				if (end?.slotTaken) return;
				if (end?.refusedStatus === 429) {
					// Rate limited, not refused: the URL stays good, and a POST would only add load.
					throw new NegotiationError(429, `hub ${hub}: ${end.reason}`);
				}
				if (end?.refusedStatus !== undefined && end.refusedStatus < 500) {
					// Expired or superseded URL: only a new negotiation gives a usable one.
					this.log(`relay: ${hub} URL refused (${end.refusedStatus}: ${end.reason})`);
					needPost = true;
					break;
				}
				if (end) throw new NegotiationError(0, `hub ${hub}: ${end.reason}`);
			}
		}
		if (needPost) {
			this.setState('negotiating');
			// Our own sockets are about to be kicked by the POST: retire them so that kick is not
			// mistaken for another program taking the slot.
			this.retireHubs();
			this.appliedKey = '';
			this.urls = undefined;
			const urls = await negotiator.post(plan.groups);
			this.counters.posts++;
			this.urls = urls;
			this.urlsAt = this.now();
			this.appliedKey = wantKey;
			// The upstream gives URLs only for hubs the key may use; asking again would not change
			// that, so the groups of the other hubs are refused instead of retried.
			const withoutUrl = new Set(plan.usedHubs.filter((hub) => !urls[hub]));
			if (withoutUrl.size > 0) {
				this.revoke(
					this.book.holdingsOnHubs(withoutUrl),
					`this key has no access to hub ${[...withoutUrl].join(', ')}`
				);
				this.schedule();
			}
			const ends = await Promise.all(
				plan.usedHubs.filter((hub) => urls[hub]).map((hub) => this.openHub(hub, urls[hub]))
			);
			if (ends.some((e) => e?.slotTaken)) return;
			const failed = ends.find((e) => e !== undefined);
			if (failed) throw new NegotiationError(0, failed.reason);
		} else if (this.appliedKey !== wantKey) {
			this.setState('negotiating');
			await negotiator.patch(plan.memberships);
			this.counters.patches++;
			this.appliedKey = wantKey;
		}
		this.setState('live');
		this.broadcastStatus();
	}

	/** Connects one hub; undefined when it greeted, else how it ended. */
	private openHub(hub: string, url: string): Promise<HubEnd | undefined> {
		this.hubs.get(hub)?.close();
		return new Promise((resolve) => {
			let settled = false;
			// Reliable subprotocol when the upstream offers it: a blip resumes without a POST.
			const socket: ResumableHub = new ResumableHub(
				hub,
				url,
				{
					onGroupData: (group, any) => this.onGroupData(group, any),
					onRecovering: (end) => this.onHubRecovering(socket, end),
					onResumed: () => this.onHubResumed(socket),
					onEnd: (end) => {
						if (!settled) {
							settled = true;
							if (this.hubs.get(hub) === socket) this.hubs.delete(hub);
							if (end.slotTaken) this.onSlotTaken(end.reason);
							resolve(end);
							return;
						}
						this.onHubEnd(socket, end);
					}
				},
				{
					userAgent: this.options.userAgent,
					handshakeTimeoutMs: this.options.timeouts?.handshakeMs
				}
			);
			this.hubs.set(hub, socket);
			socket.ready.then(
				() => {
					if (settled) return;
					settled = true;
					this.counters.hubConnects++;
					resolve(undefined);
				},
				() => undefined
			);
		});
	}

	private onHubRecovering(socket: ResumableHub, end: HubEnd): void {
		if (this.hubs.get(socket.hub) !== socket || this.closed) return;
		if (!this.resuming.has(socket.hub)) {
			this.resuming.add(socket.hub);
			this.log(`relay: hub ${socket.hub} dropped (${end.reason}); resuming`);
		}
		if (this.stateValue === 'live' || this.stateValue === 'reconnecting') {
			this.setState(
				'reconnecting',
				`hub ${socket.hub} dropped: ${end.reason}; resuming the same connection`
			);
		}
	}

	private onHubResumed(socket: ResumableHub): void {
		if (this.hubs.get(socket.hub) !== socket) return;
		this.resuming.delete(socket.hub);
		this.log(`relay: hub ${socket.hub} resumed`);
		if (this.resuming.size === 0 && this.stateValue === 'reconnecting' && !this.retryTimer) {
			this.setState('live');
		}
	}

	private onHubEnd(socket: ResumableHub, end: HubEnd): void {
		this.resuming.delete(socket.hub);
		if (this.hubs.get(socket.hub) !== socket) return; // retired by us
		this.hubs.delete(socket.hub);
		if (this.closed) return;
		if (end.slotTaken) {
			this.onSlotTaken(end.reason);
			return;
		}
		this.counters.hubDrops++;
		this.log(`relay: hub ${socket.hub} dropped: ${end.reason}`);
		this.retryLater(new NegotiationError(0, `hub ${socket.hub} dropped: ${end.reason}`));
	}

	private onSlotTaken(reason: string): void {
		if (this.stateValue === 'slot-taken') return;
		this.retireHubs();
		this.urls = undefined;
		this.appliedKey = '';
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
			this.urls = undefined;
			this.unconfirmed = batch.concat(this.unconfirmed);
			this.retryLater(err);
			return;
		}
		if ((err.status === 400 || err.status === 403) && batch.length > 0) {
			this.revoke(batch, err.message);
			this.schedule();
			return;
		}
		this.log(`relay: upstream refused (${err.status}): ${err.message}`);
		this.setState('error', `Upstream refused (${err.status}): ${err.message}`);
	}

	/** Groups the upstream refused leave the union; their viewers are told why. */
	private revoke(batch: { viewer: Viewer; group: string }[], reason: string): void {
		const byViewer = new Map<Viewer, RefusedGroup[]>();
		for (const { viewer, group } of batch) {
			if (this.book.remove(viewer, [group]).length === 0) continue;
			viewer.forget([group]);
			const list = byViewer.get(viewer) ?? [];
			list.push({ group, reason: `Upstream refused: ${reason}` });
			byViewer.set(viewer, list);
		}
		for (const [viewer, refused] of byViewer) viewer.sendMessage({ type: 'revoked', refused });
	}

	private retryLater(err: NegotiationError): void {
		if (this.retryTimer || this.closed) return;
		const base = this.options.backoff?.baseMs ?? 1000;
		const max = this.options.backoff?.maxMs ?? 60_000;
		// Failures far apart start from the base delay again; close together they keep growing.
		const now = this.now();
		if (now - this.lastFailureAt > BACKOFF_RESET_MS) this.attempt = 0;
		this.lastFailureAt = now;
		const exp = Math.min(max, base * 2 ** this.attempt);
		// Equal jitter: at least half the step, so many relays restarting together spread out.
		let delay = exp / 2 + (this.random() * exp) / 2;
		if (err.retryAfterMs) delay = Math.max(delay, err.retryAfterMs);
		this.attempt++;
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

	private retireHubs(): void {
		this.resuming.clear();
		const sockets = [...this.hubs.values()];
		this.hubs.clear();
		for (const s of sockets) s.close();
	}

	private urlTtl(): number {
		return this.options.urlTtlMs ?? URL_TTL_MS - 60_000;
	}

	// ---- fan-out -------------------------------------------------------------------------

	private onGroupData(group: string, any: Buffer): void {
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
		this.options.tap?.publish({ source: 'stream', group, receivedAt: Date.now(), any });
		if (!audience || audience.size === 0) return;
		let frame: Uint8Array;
		try {
			frame = encodeRelayFrame(group, any);
		} catch {
			return; // a group name no group can have: skip the frame
		}
		for (const v of audience) {
			v.deliver(group, frame);
			this.counters.framesOut++;
		}
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
		if (changed) this.broadcastStatus();
	}

	private broadcastStatus(): void {
		for (const v of this.viewers) v.sendMessage(this.status(v));
	}
}

/** The timestamp of a spot frame's Any bytes; undefined when they do not decode as a spot. */
function spotTimestamp(any: Uint8Array): number | undefined {
	const decoded = tryDecodeFrame(any);
	return decoded.ok && decoded.frame.kind === 'spot' ? decoded.frame.value.timestamp : undefined;
}
