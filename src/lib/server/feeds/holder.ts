/**
 * FeedHolder: the one place the dashboard server holds feeds on its own (no tab open) for named
 * clients. The API and its rules are documented in ./index.ts.
 */
import { feedGroup, type Feed } from '../../contract/feeds';
import type { StreamRelay } from '../stream/relay';
import type { UpdateTap } from '../updates/tap';
import { Fanout, type FeedListener } from './fanout';
import { FeedPoller, type PollFn } from './poller';
import { BROKEN, RelayHold } from './relayHold';

/** How the account's feeds are held: relay viewers, polling, or not at all (closed). */
export type FeedMode = 'stream' | 'poll' | 'none';

/** What the holder needs to know of the account; asked on every decide(). */
export interface FeedAccount {
	/** The account streams (Quant): feeds are held as relay viewers, else polled. */
	streams: boolean;
}

export interface FeedHolderOptions {
	tap: UpdateTap;
	/** The relay that holds streamed feeds (without one, every account polls). */
	relay?: StreamRelay;
	/** GET of a feed's route through the proxy (without one, polled feeds are not held). */
	poll?: PollFn;
	/** The current account; a throw counts as "does not stream". */
	account: () => Promise<FeedAccount>;
	/** Poll only while this says the market is open (default: always). */
	isMarketOpen?: (now: number) => boolean;
	/** Poll interval (default 1000 ms: the upstream's cadence). */
	pollMs?: number;
	now?: () => number;
	log?: (message: string) => void;
}

export interface FeedClientOptions {
	/** Feeds taken with want() are let go after this long without another want(). */
	idleMs?: number;
}

/** One feed of a client: held, or why not. */
export interface HeldFeedStatus {
	feed: Feed;
	group: string;
	held: boolean;
	/** Why it is not held: 'market closed', 'budget exhausted: ...', 'not entitled: ...', ... */
	reason: string | null;
}

/**
 * A wanted feed's reason before the holder has decided how to hold (the account's first check
 * under way): it is held as soon as that ends, so it is a wait, not a refusal.
 */
export const HOLDER_DECIDING = 'not started';

export interface FeedClientStatus {
	client: string;
	mode: FeedMode;
	feeds: HeldFeedStatus[];
	/** Streaming: the relay's memberships (every viewer's, tabs included) against the limit. */
	usage: { used: number; limit: number } | null;
	/** Streaming: why the relay is not delivering (slot taken, upstream refusal), else null. */
	streamProblem: string | null;
}

/** A named client's handle: its feeds, its subscription to their updates, its status. */
export class FeedClient {
	/** group -> feed, with its idle timer when taken by want(). */
	private readonly feeds = new Map<string, { feed: Feed; idle?: ReturnType<typeof setTimeout> }>();

	constructor(
		readonly name: string,
		private readonly holder: FeedHolder,
		private readonly options: FeedClientOptions
	) {}

	/** Holds exactly `feeds` from now on (no idle timeout); [] lets go of everything. */
	hold(feeds: readonly Feed[]): void {
		for (const entry of this.feeds.values()) clearTimeout(entry.idle);
		this.feeds.clear();
		for (const feed of feeds) this.feeds.set(feedGroup(feed), { feed });
		this.holder.sync();
	}

	/**
	 * Holds `feeds` on demand: each is let go `idleMs` after its last want() (a client without
	 * idleMs keeps them until hold() or release()).
	 */
	want(feeds: readonly Feed[]): void {
		let added = false;
		for (const feed of feeds) {
			const group = feedGroup(feed);
			const entry = this.feeds.get(group) ?? { feed };
			if (!this.feeds.has(group)) added = true;
			clearTimeout(entry.idle);
			if (this.options.idleMs !== undefined) {
				entry.idle = setTimeout(() => this.release([feed]), this.options.idleMs);
				entry.idle.unref?.();
			}
			this.feeds.set(group, entry);
		}
		if (added) this.holder.sync();
	}

	/** Lets go of `feeds` (default: all of them). */
	release(feeds?: readonly Feed[]): void {
		const groups = feeds ? feeds.map(feedGroup) : [...this.feeds.keys()];
		let removed = false;
		for (const g of groups) {
			const entry = this.feeds.get(g);
			if (!entry) continue;
			clearTimeout(entry.idle);
			this.feeds.delete(g);
			removed = true;
		}
		if (removed) this.holder.sync();
	}

	/** The feeds this client holds (or tries to). */
	list(): Feed[] {
		return [...this.feeds.values()].map((e) => e.feed);
	}

	wants(group: string): boolean {
		return this.feeds.has(group);
	}

	/**
	 * Every update of this client's feeds (and the spot of their tickers), decoded once for all
	 * subscribers, whoever brought it (this client, another one, a tab). Returns the unsubscribe.
	 */
	subscribe(listener: FeedListener): () => void {
		return this.holder.fanout.add({
			wantsFeed: (group) => this.feeds.has(group),
			wantsTicker: (ticker) => this.list().some((f) => f.ticker === ticker),
			listener
		});
	}

	status(): FeedClientStatus {
		return this.holder.statusOf(this);
	}
}

export class FeedHolder {
	readonly fanout: Fanout;
	readonly poller: FeedPoller | undefined;
	private readonly clients = new Map<string, FeedClient>();
	private readonly holds = new Map<string, RelayHold>();
	private modeValue: FeedMode = 'none';
	private deciding: Promise<void> = Promise.resolve();
	private closed = false;
	private readonly log: (message: string) => void;

	constructor(private readonly options: FeedHolderOptions) {
		this.log = options.log ?? (() => undefined);
		this.fanout = new Fanout(options.tap);
		const now = options.now ?? Date.now;
		this.poller = options.poll
			? new FeedPoller({
					poll: options.poll,
					isMarketOpen: options.isMarketOpen ?? (() => true),
					intervalMs: options.pollMs ?? 1000,
					now
				})
			: undefined;
	}

	get mode(): FeedMode {
		return this.modeValue;
	}

	/** The client named `name` (created on first use; later options are ignored). */
	client(name: string, options: FeedClientOptions = {}): FeedClient {
		let c = this.clients.get(name);
		if (!c) {
			c = new FeedClient(name, this, options);
			this.clients.set(name, c);
		}
		return c;
	}

	/**
	 * Asks the account again and holds every client's feeds the way it allows (stream or poll).
	 * Call it when keys, the account or settings change; calls run one after another.
	 */
	decide(): Promise<void> {
		const next = this.deciding.then(
			() => this.decideNow(),
			() => this.decideNow()
		);
		this.deciding = next.catch(() => undefined);
		return next;
	}

	private async decideNow(): Promise<void> {
		if (this.closed) return;
		const account = await this.options.account().catch((e: unknown) => {
			this.log(`feeds: cannot read the account (${(e as Error).message}); polling`);
			return { streams: false };
		});
		if (this.closed) return;
		const mode: FeedMode = account.streams && this.options.relay ? 'stream' : 'poll';
		if (mode !== this.modeValue) this.log(`feeds: holding by ${mode}`);
		this.modeValue = mode;
		this.sync();
	}

	/** Brings relay viewers and the poller to the clients' sets in the current mode. */
	sync(): void {
		if (this.closed) return;
		const relay = this.options.relay;
		// Make before break between the ways: streaming holds its feeds before polling stops (and
		// the other way round). Within the relay, every client lets go first, so the memberships
		// one frees can take another's refused feeds.
		if (this.modeValue === 'stream' && relay) {
			for (const c of this.clients.values()) this.holds.get(c.name)?.prune(c.list());
			for (const c of this.clients.values()) {
				let hold = this.holds.get(c.name);
				if (!hold) {
					hold = new RelayHold(relay, c.name, this.log);
					this.holds.set(c.name, hold);
				}
				hold.set(c.list());
			}
			this.poller?.set([]);
			return;
		}
		const union = new Map<string, Feed>();
		if (this.modeValue === 'poll') {
			for (const c of this.clients.values()) for (const f of c.list()) union.set(feedGroup(f), f);
		}
		this.poller?.set([...union.values()]);
		for (const hold of this.holds.values()) hold.close();
		this.holds.clear();
	}

	statusOf(client: FeedClient): FeedClientStatus {
		const feeds = client.list().map((feed): HeldFeedStatus => {
			const group = feedGroup(feed);
			const state =
				this.modeValue === 'stream'
					? (this.holds.get(client.name)?.stateOf(feed) ?? {
							held: false,
							reason: 'not subscribed'
						})
					: this.modeValue === 'poll'
						? (this.poller?.stateOf(feed) ?? { held: false, reason: 'no poller' })
						: { held: false, reason: HOLDER_DECIDING };
			return { feed, group, held: state.held, reason: state.held ? null : state.reason };
		});
		const relay = this.options.relay;
		const streaming = this.modeValue === 'stream' && relay !== undefined;
		const usage = streaming ? relay.status().usage : undefined;
		return {
			client: client.name,
			mode: this.modeValue,
			feeds,
			usage: usage ? { used: usage.used, limit: usage.limit } : null,
			streamProblem:
				streaming && BROKEN.includes(relay.state)
					? `${relay.state}: ${relay.reason ?? 'no reason given'}`
					: null
		};
	}

	/** Every client's status, by name. */
	status(): FeedClientStatus[] {
		return [...this.clients.values()].map((c) => this.statusOf(c));
	}

	close(): void {
		this.closed = true;
		this.modeValue = 'none';
		for (const hold of this.holds.values()) hold.close();
		this.holds.clear();
		this.poller?.close();
		this.fanout.close();
	}
}
