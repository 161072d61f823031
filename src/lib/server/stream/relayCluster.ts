/**
 * The stream relay in cluster mode (issue 30 item 2; GEXDECK_REDIS_URL set): the replicas share
 * the account's one upstream WebSocket slot through Redis.
 *
 * - Only the holder of the slot lease (cluster/slotLease.ts) negotiates; the others stand by.
 * - Every replica writes the groups its viewers want to Redis with an expiry (re-sent every
 *   `wantsEveryMs`); the holder negotiates the union of all of them, so a viewer on any replica
 *   gets its groups. The 150-membership limit is applied by each replica to its own viewers.
 * - The holder appends every upstream frame to one Redis Stream, fenced by its lease token
 *   (cluster/slotStream.ts); every replica, the holder included, reads that stream and fans the
 *   frames out to its own viewers (the spot dedupe and the update tap run there, as before).
 *
 * Without GEXDECK_REDIS_URL the relay has no RelayCluster and works exactly as in one process.
 */
import type { Redis } from 'ioredis';
import { log } from '../log';
import { SubscriptionBook, type UnionPlan } from './book';
import { guarded } from '../cluster/redis';
import { SlotLease, type SlotInfo, type SlotLeaseOptions } from '../cluster/slotLease';
import {
	slotStreamKeys,
	SlotStreamPublisher,
	SlotStreamReader,
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
	/** A frame read from the cluster's stream: deliver it to this replica's viewers. */
	frame(group: string, any: Buffer): void;
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
				acquired: () => {
					this.unionKey = '';
					this.union = undefined;
					void this.refreshUnion().finally(() => this.events?.acquired());
				},
				lost: (reason) => this.events?.lost(reason)
			},
			{ prefix, ...options.lease }
		);
		this.publisher = new SlotStreamPublisher(redis, this.keys, options.retainMs);
		this.reader = new SlotStreamReader(readerRedis, this.keys, [STREAM], (f) =>
			this.events?.frame(f.group, f.any)
		);
	}

	/** Whether this replica holds the slot (and may negotiate). */
	get holding(): boolean {
		return this.lease.holding !== undefined;
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

	/** The plan the holder negotiates: the union of every live replica's wanted groups. */
	unionPlan(): UnionPlan | undefined {
		return this.union;
	}

	/** Append an upstream frame to the cluster's stream, while the lease is still ours. */
	publish(group: string, any: Buffer): void {
		const hold = this.lease.holding;
		if (!hold) return;
		this.publisher
			.publish(`${this.replicaId} ${hold.token}`, STREAM, group, any)
			.catch((err: Error) => log.warn(`cluster: a frame was not published: ${err.message}`));
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
		if (this.holding && (await this.refreshUnion())) this.events?.wantsChanged();
	}

	/** Read every replica's wants; true when the union changed. */
	private async refreshUnion(): Promise<boolean> {
		let lists: (string | null)[];
		try {
			const keys = await guarded(() => this.scanWants());
			lists = keys.length ? await guarded(() => this.redis.mget(keys)) : [];
		} catch {
			return false; // Redis away: keep negotiating what we had
		}
		const book = new SubscriptionBook<number>(this.limit);
		lists.forEach((list, i) => {
			if (list) book.add(i, JSON.parse(list) as string[]);
		});
		const plan = book.plan();
		const key = plan.groups.join(',');
		if (key === this.unionKey && this.union) return false;
		this.unionKey = key;
		this.union = plan;
		return true;
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
