/**
 * Updates of held feeds, decoded once, handed to every subscriber. The holder's one listener on
 * the update tap reads each update's feed (a streamed frame's group, a polled snapshot's ticker
 * and stream); only when a subscriber wants that feed (or, for a spot frame, any feed of its
 * ticker) is the payload decoded, once, and the same decoded object goes to each of them. Frames
 * nobody wants cost a map lookup.
 */
import {
	feedGroup,
	feedOfGroup,
	feedOfStream,
	streamOfGroup,
	type Feed
} from '../../contract/feeds';
import { decodeFrame, type DecodedFrame } from '../../wire/decode';
import type { ReceivedUpdate, UpdateTap } from '../updates/tap';

/** A streamed frame of a feed, or of the spot of a held feed's ticker (`feed` undefined). */
export interface StreamedFeedUpdate {
	source: 'stream';
	ticker: string;
	feed: Feed | undefined;
	group: string;
	/** Server wall clock (unix ms) when the frame arrived. */
	receivedAt: number;
	frame: DecodedFrame;
}

/** A polled snapshot of a feed: the upstream's JSON body, parsed (not validated). */
export interface PolledFeedUpdate {
	source: 'snapshot';
	ticker: string;
	feed: Feed;
	receivedAt: number;
	body: unknown;
}

export type FeedUpdate = StreamedFeedUpdate | PolledFeedUpdate;
export type FeedListener = (update: FeedUpdate) => void;

export interface Subscriber {
	/** Does this subscriber want updates of `group` (a feed's group)? */
	wantsFeed(group: string): boolean;
	/** Does it hold any feed of `ticker` (then it also gets the ticker's spot frames)? */
	wantsTicker(ticker: string): boolean;
	listener: FeedListener;
}

export interface FanoutCounters {
	/** Payloads decoded (one per update some subscriber wanted, whatever their number). */
	decoded: number;
	/** Updates that did not decode (corrupt frame, bad JSON): counted and skipped. */
	decodeFailures: number;
	/** Subscriber calls that threw (the others still got the update). */
	listenerFailures: number;
	lastFailure: string | null;
}

export class Fanout {
	readonly counters: FanoutCounters = {
		decoded: 0,
		decodeFailures: 0,
		listenerFailures: 0,
		lastFailure: null
	};
	private readonly subscribers = new Set<Subscriber>();
	private readonly unsubscribeTap: () => void;

	constructor(tap: UpdateTap) {
		this.unsubscribeTap = tap.subscribe((u) => this.publish(u));
	}

	add(subscriber: Subscriber): () => void {
		this.subscribers.add(subscriber);
		return () => this.subscribers.delete(subscriber);
	}

	private publish(u: ReceivedUpdate): void {
		if (this.subscribers.size === 0) return;
		const where = locate(u);
		if (!where) return;
		const group = where.feed ? feedGroup(where.feed) : undefined;
		const wanting = [...this.subscribers].filter((s) =>
			group ? s.wantsFeed(group) : s.wantsTicker(where.ticker)
		);
		if (wanting.length === 0) return;
		let update: FeedUpdate;
		try {
			update = decodeUpdate(u, where);
		} catch (e) {
			this.counters.decodeFailures++;
			this.counters.lastFailure = (e as Error).message;
			return;
		}
		this.counters.decoded++;
		for (const s of wanting) {
			try {
				s.listener(update);
			} catch (e) {
				this.counters.listenerFailures++;
				this.counters.lastFailure = e instanceof Error ? e.message : String(e);
			}
		}
	}

	close(): void {
		this.unsubscribeTap();
		this.subscribers.clear();
	}
}

/** An update's ticker and feed (undefined feed: a spot frame); undefined when it is neither. */
export function locate(u: ReceivedUpdate): { ticker: string; feed: Feed | undefined } | undefined {
	if (u.source === 'snapshot') {
		const feed = feedOfStream(u.ticker, u.stream);
		return feed ? { ticker: u.ticker, feed } : undefined;
	}
	const s = streamOfGroup(u.group);
	if (!s) return undefined;
	const feed = feedOfGroup(u.group);
	return feed || s.stream === 'spot' ? { ticker: s.ticker, feed } : undefined;
}

/** The update decoded (a frame by the wire decoder, a snapshot's JSON parsed). Throws if corrupt. */
export function decodeUpdate(
	u: ReceivedUpdate,
	where: { ticker: string; feed: Feed | undefined }
): FeedUpdate {
	if (u.source === 'stream') {
		return {
			source: 'stream',
			ticker: where.ticker,
			feed: where.feed,
			group: u.group,
			receivedAt: u.receivedAt,
			frame: decodeFrame(u.any)
		};
	}
	if (!where.feed) throw new Error(`snapshot ${u.ticker} ${u.stream} is no feed`);
	return {
		source: 'snapshot',
		ticker: where.ticker,
		feed: where.feed,
		receivedAt: u.receivedAt,
		body: JSON.parse(u.json) as unknown
	};
}

/** locate + decodeUpdate: the update as a subscriber receives it (benchmarks, tests). */
export function toFeedUpdate(u: ReceivedUpdate): FeedUpdate | undefined {
	const where = locate(u);
	return where ? decodeUpdate(u, where) : undefined;
}
