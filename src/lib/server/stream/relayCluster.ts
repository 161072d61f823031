/**
 * The stream relay in cluster mode (issue 30 item 2; GEXDECK_REDIS_URL set): the replicas share
 * the account's one upstream WebSocket slot through Redis.
 *
 * - Only the holder of the slot lease (cluster/slotLease.ts) negotiates; the others stand by.
 * - Every replica writes the groups its viewers want to Redis with an expiry (re-sent every
 *   `wantsEveryMs`); the holder negotiates the union of all of them, so a viewer on any replica
 *   gets its groups. The 150-membership limit applies to that union: the holder fits it in
 *   (groups already negotiated first) and addresses what does not fit to the replica that asked,
 *   which takes the groups back from its viewers with the reason (cluster/holderState.ts).
 *   A group the upstream refuses (over the account's limit, a tier the key lacks) is addressed
 *   the same way to every replica that wants it, and left out of the union meanwhile.
 * - The holder shares its relay state (live, reconnecting, slot taken, refused and why); the
 *   others report it to their viewers rather than always looking like streaming, so those fall
 *   back to polling when the holder cannot stream. A take-back asked on any replica reaches it.
 * - The holder appends every upstream frame to one Redis Stream, fenced by its lease token
 *   (cluster/slotStream.ts); every replica, the holder included, reads that stream and fans the
 *   frames out to its own viewers (the spot dedupe and the update tap run there, as before).
 *
 * - Frames carry their stream id as their sequence; a reconnecting viewer resumes after its last
 *   one (replay()). A replica that takes the slot first appends a gap marker saying how long
 *   nobody held it (those upstream frames are lost), and every replica reports it to its viewers.
 *
 * Without GEXDECK_REDIS_URL the relay has no RelayCluster and works exactly as in one process.
 */
import type { Redis } from 'ioredis';
import { log } from '../log';
import type { RefusedGroup, RelayState } from '../../relay/protocol';
import { parseGroup } from '../../contract/hubs';
import { SubscriptionBook, type UnionPlan } from './book';
import { HolderStateBoard, holderStateKeys, type HolderState } from '../cluster/holderState';
import { guarded } from '../cluster/redis';
import { SlotLease, type SlotInfo, type SlotLeaseOptions } from '../cluster/slotLease';
import {
	slotStreamKeys,
	readAfter,
	SlotStreamPublisher,
	SlotStreamReader,
	type Replay,
	type SlotStreamKeys
} from '../cluster/slotStream';

/** The one stream all relayed frames go through (ordered as the holder received them). */
const STREAM = 'relay';

/** What the relay hears from its cluster link. */
export interface RelayClusterEvents {
	/** This replica holds the slot now: negotiate the union. */
	acquired(): void;
	/** This replica must stop using the slot at once. */
	lost(reason: string): void;
	/** The union of the replicas' wanted groups changed (holder only). */
	wantsChanged(): void;
	/** A frame read from the cluster's stream (`id` its sequence): deliver it to the viewers. */
	frame(group: string, any: Buffer, id: string): void;
	/** A gap marker read from the stream: frames are missing here; tell the viewers. */
	gap(id: string, reason: string): void;
	/** Not holding: the holder's relay state (undefined: no replica holds the slot lately). */
	holderState(state: HolderState | undefined): void;
	/** Groups of this replica's viewers the cluster-wide union could not take. */
	refused(refused: RefusedGroup[]): void;
	/** Holder only: a user on some replica asked to take the slot back. */
	takeBack(): void;
}

export interface RelayClusterOptions {
	/** Key prefix (default `gexdeck:slot`, the lease's). */
	prefix?: string;
	lease?: SlotLeaseOptions;
	/** How often a replica re-sends its wanted groups, and the holder reads the union (ms). */
	wantsEveryMs?: number;
	/** How long stream entries are kept (ms). */
	retainMs?: number;
}

export class RelayCluster {
	private readonly lease: SlotLease;
	private readonly publisher: SlotStreamPublisher;
	private readonly reader: SlotStreamReader;
	private readonly keys: SlotStreamKeys;
	private readonly wantsPrefix: string;
	private readonly wantsEveryMs: number;
	private events: RelayClusterEvents | undefined;
	private wants: string[] = [];
	private unionKey = '';
	private union: UnionPlan | undefined;
	private timer: NodeJS.Timeout | undefined;
	private limit = 150;
	private readonly board: HolderStateBoard;
	private localState: { state: RelayState; reason?: string } = { state: 'idle' };
	private readonly holdListeners = new Set<(holding: boolean) => void>();
	/** Holder: every live replica's wanted groups, as last read. */
	private lastWants: { replica: string; groups: string[] }[] = [];
	/** Holder: the groups the upstream last accepted (a refusal is about the others). */
	private negotiatedGroups = new Set<string>();
	/** Holder: groups the upstream refused, left out of the union until then (ms). */
	private readonly upstreamRefused = new Map<string, number>();

	/**
	 * `redis` is shared (lease, wants, publish); `readerRedis` must be the reader's own
	 * connection (XREAD BLOCK holds it).
	 */
	constructor(
		private readonly redis: Redis,
		readerRedis: Redis,
		readonly replicaId: string,
		options: RelayClusterOptions = {}
	) {
		const prefix = options.prefix ?? 'gexdeck:slot';
		this.keys = slotStreamKeys(prefix);
		this.wantsPrefix = `${prefix}:wants:`;
		this.wantsEveryMs = options.wantsEveryMs ?? 1_000;
		this.lease = new SlotLease(
			redis,
			replicaId,
			{
				acquired: (hold) => {
					this.unionKey = '';
					this.union = undefined;
					this.negotiatedGroups.clear();
					void this.markGap(hold.token)
						.then(() => this.refreshUnion())
						.finally(() => this.events?.acquired());
					this.tellHold(true);
				},
				lost: (reason) => {
					this.events?.lost(reason);
					this.tellHold(false);
				}
			},
			{ prefix, ...options.lease }
		);
		this.board = new HolderStateBoard(redis, holderStateKeys(prefix), this.wantsEveryMs * 3);
		this.publisher = new SlotStreamPublisher(redis, this.keys, options.retainMs);
		this.reader = new SlotStreamReader(readerRedis, this.keys, [STREAM], (f) =>
			f.gap !== undefined ? this.events?.gap(f.id, f.gap) : this.events?.frame(f.group, f.any, f.id)
		);
	}

	/** Whether this replica holds the slot (and may negotiate). */
	get holding(): boolean {
		return this.lease.holding !== undefined;
	}

	/** News of this replica taking or losing the slot (singleton jobs follow it). */
	onHoldChange(listener: (holding: boolean) => void): () => void {
		this.holdListeners.add(listener);
		return () => this.holdListeners.delete(listener);
	}

	private tellHold(holding: boolean): void {
		for (const l of this.holdListeners) l(holding);
	}

	/** Who holds the slot, since when, and the last failover (the Account page). */
	info(): Promise<SlotInfo> {
		return this.lease.info();
	}

	start(events: RelayClusterEvents, groupLimit: number): void {
		this.events = events;
		this.limit = groupLimit;
		this.reader.start();
		this.lease.start();
		const beat = () => void this.sendWants();
		this.timer = setInterval(beat, this.wantsEveryMs);
		this.timer.unref();
		beat();
	}

	/** This replica's viewers want these groups (sent now and re-sent until changed). */
	setWants(groups: readonly string[]): void {
		this.wants = [...groups];
		void this.sendWants();
	}

	/** This replica's relay state: shared with the others while it holds the slot. */
	reportState(state: RelayState, reason?: string): void {
		this.localState = reason === undefined ? { state } : { state, reason };
		if (this.holding) void this.writeState();
	}

	/** A user here asks to take the slot back from another program: the holder does it. */
	askTakeBack(): void {
		void this.board.askTakeBack().catch(() => undefined);
	}

	/** The plan the holder negotiates: the union of every live replica's wanted groups. */
	unionPlan(): UnionPlan | undefined {
		return this.union;
	}

	/** Holder: the upstream accepted `plan`. */
	negotiated(plan: UnionPlan): void {
		this.negotiatedGroups = new Set(plan.groups);
	}

	/** Holder: the union's groups the upstream has not accepted yet (what a refusal is about). */
	freshGroups(): string[] {
		return (this.union?.groups ?? []).filter(
			(g) => !g.endsWith('_spot') && !this.negotiatedGroups.has(g)
		);
	}

	/** Holder: the union's analytics groups on these hubs. */
	groupsOnHubs(hubs: ReadonlySet<string>): string[] {
		return (this.union?.groups ?? []).filter((g) => {
			const p = parseGroup(g);
			return p.ok && p.group.kind !== 'spot' && hubs.has(p.group.hub);
		});
	}

	/**
	 * Holder: the upstream refused these groups (a membership over the account's limit, an
	 * unknown ticker, a hub the key's tier lacks). They leave the union now, and every replica
	 * whose viewers want them is told, so those viewers get the refusal with its reason as a
	 * single process's do; they stay out while the replicas drop them from their wants.
	 */
	refuseUpstream(groups: readonly string[], reason: string): void {
		if (groups.length === 0) return;
		const until = Date.now() + this.wantsEveryMs * 5;
		for (const g of groups) this.upstreamRefused.set(g, until);
		const text = `Upstream refused: ${reason}`;
		for (const { replica, groups: wanted } of this.lastWants) {
			const refused = wanted
				.filter((g) => groups.includes(g))
				.map((group) => ({ group, reason: text }));
			void this.board.refuse(replica, refused).catch(() => undefined);
		}
		this.planUnion();
	}

	/** Append an upstream frame to the cluster's stream, while the lease is still ours. */
	publish(group: string, any: Buffer): void {
		const hold = this.lease.holding;
		if (!hold) return;
		this.publisher
			.publish(`${this.replicaId} ${hold.token}`, STREAM, group, any)
			.catch((err: Error) => log.warn(`cluster: a frame was not published: ${err.message}`));
	}

	/** The stream's frames after `id` (a reconnecting viewer's last), and whether some are gone. */
	replay(id: string): Promise<Replay> {
		return readAfter(this.redis, this.keys, STREAM, id);
	}

	/**
	 * Just took the slot: append a marker before our first frame saying the frames the upstream
	 * sent while nobody held the slot are missing (also after a Redis restart, whose stream and
	 * lease start empty: the viewers' frames since are gone as well).
	 */
	private async markGap(token: number): Promise<void> {
		try {
			const info = await this.lease.info();
			const f = info.lastFailover;
			const why =
				f && f.to === this.replicaId && f.at === info.since
					? `the upstream slot passed from ${f.from} to ${f.to} after ${(f.gapMs / 1000).toFixed(1)} s without a holder`
					: `the upstream slot was taken up by ${this.replicaId} (a start, a restart or a failover)`;
			await this.publisher.publishGap(
				`${this.replicaId} ${token}`,
				STREAM,
				`${why}; frames the upstream sent meanwhile are missing`
			);
		} catch (err) {
			log.warn(`cluster: the hand-over's gap was not marked: ${(err as Error).message}`);
		}
	}

	/** A clean stop: the lease is released at once, so another replica takes it within a poll. */
	async stop(): Promise<void> {
		clearInterval(this.timer);
		await this.lease.stop();
		await guarded(() => this.redis.del(this.wantsPrefix + this.replicaId)).catch(() => undefined);
		await this.reader.stop();
	}

	private async sendWants(): Promise<void> {
		const ttl = this.wantsEveryMs * 3;
		await guarded(() =>
			this.redis.set(this.wantsPrefix + this.replicaId, JSON.stringify(this.wants), 'PX', ttl)
		).catch(() => undefined);
		try {
			if (this.holding) {
				await this.writeState();
				if (await this.refreshUnion()) this.events?.wantsChanged();
				if (await this.board.takeTakeBack()) this.events?.takeBack();
			} else this.events?.holderState(await this.board.read());
			const refused = await this.board.takeRefusals(this.replicaId);
			if (refused.length > 0) this.events?.refused(refused);
		} catch {
			// Redis away: the lease and the readiness check say so; try again on the next beat.
		}
	}

	private async writeState(): Promise<void> {
		await this.board.write({ holder: this.replicaId, ...this.localState }).catch(() => undefined);
	}

	/**
	 * Read every replica's wants and fit them under the membership limit (planUnion). True when
	 * the union changed.
	 */
	private async refreshUnion(): Promise<boolean> {
		let keys: string[];
		let lists: (string | null)[];
		try {
			keys = await guarded(() => this.scanWants());
			lists = keys.length ? await guarded(() => this.redis.mget(keys)) : [];
		} catch {
			return false; // Redis away: keep negotiating what we had
		}
		this.lastWants = keys.map((key, i) => ({
			replica: key.slice(this.wantsPrefix.length),
			groups: lists[i] ? (JSON.parse(lists[i]) as string[]) : []
		}));
		const refused = this.planUnion();
		await Promise.all(
			this.lastWants.map(({ replica }, i) =>
				this.board.refuse(replica, refused[i]).catch(() => undefined)
			)
		);
		const key = this.union!.groups.join(',');
		if (key === this.unionKey) return false;
		this.unionKey = key;
		return true;
	}

	/**
	 * The union of the replicas' wants as last read, under the membership limit, the groups
	 * already negotiated first (a new viewer cannot push out a streaming one) and without the
	 * groups the upstream just refused; what does not fit is returned per replica, to be
	 * addressed to the replica that wants it.
	 */
	private planUnion(): RefusedGroup[][] {
		const now = Date.now();
		for (const [g, until] of this.upstreamRefused) if (until <= now) this.upstreamRefused.delete(g);
		const book = new SubscriptionBook<number>(this.limit);
		const before = new Set(this.union?.groups ?? []);
		const wants = this.lastWants.map((w) => w.groups.filter((g) => !this.upstreamRefused.has(g)));
		const refused = wants.map(() => [] as RefusedGroup[]);
		for (const keep of [true, false]) {
			wants.forEach((groups, i) => {
				const r = book.add(
					i,
					groups.filter((g) => before.has(g) === keep)
				);
				refused[i].push(
					...r.refused.map((x) => ({ ...x, reason: `The cluster's membership limit: ${x.reason}` }))
				);
			});
		}
		this.union = book.plan();
		return refused;
	}

	private async scanWants(): Promise<string[]> {
		const keys: string[] = [];
		let cursor = '0';
		do {
			const [next, found] = await this.redis.scan(cursor, 'MATCH', `${this.wantsPrefix}*`);
			cursor = next;
			keys.push(...found);
		} while (cursor !== '0');
		return keys.sort();
	}
}
