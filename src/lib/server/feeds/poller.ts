/**
 * The feed holder's polling half: the union of every client's feeds, each asked once per tick
 * (one request per feed however many clients hold it) through the REST proxy, only in market
 * hours. The proxy publishes each fresh snapshot on the update tap (the holder's subscribers and
 * the recorder read it there) and keeps the quota ledger; this remembers each feed's last answer
 * as the reason it is or is not held.
 */
import { feedGroup, feedRoute, type Feed } from '../../contract/feeds';

/** What a poll answered, as far as the holder cares (the proxy's ProxyResult fits). */
export interface PollAnswer {
	status: number;
	headers?: Record<string, string>;
	body?: string | Uint8Array;
}

/** GET of a feed's route (`SPX/classic/gex_full`) through the proxy. */
export type PollFn = (route: string) => Promise<PollAnswer>;

export interface PollerOptions {
	poll: PollFn;
	/** Poll only while this says the market is open (unix ms in). */
	isMarketOpen: (now: number) => boolean;
	intervalMs: number;
	now: () => number;
}

/** A feed's polling state: held (answered 200), or why not. */
export type PollState = { held: true } | { held: false; reason: string };

/** The proxy's refusal as a reason a person reads (the body's `error` when there is one). */
export function reasonOfAnswer(answer: PollAnswer): string {
	let detail = '';
	try {
		const body =
			typeof answer.body === 'string' ? answer.body : new TextDecoder().decode(answer.body);
		detail = (JSON.parse(body) as { error?: string }).error ?? '';
	} catch {
		// no JSON body
	}
	const refused = answer.headers?.['x-gexdeck-refused'];
	const tail = detail ? `: ${detail}` : '';
	if (answer.status === 429 || refused === 'backoff') return `budget exhausted${tail}`;
	if (refused === 'locked' || refused === 'no-key' || answer.status === 403) {
		return `not entitled${tail}`;
	}
	if (refused === 'key-rejected' || answer.status === 401) return `key rejected${tail}`;
	return `upstream answered ${answer.status}${tail}`;
}

export class FeedPoller {
	/** Ticks that polled (market open, something to poll) and requests sent, for tests. */
	readonly counters = { ticks: 0, polls: 0 };
	private feeds = new Map<string, Feed>();
	private readonly states = new Map<string, PollState>();
	private timer: ReturnType<typeof setInterval> | undefined;

	constructor(private readonly options: PollerOptions) {}

	/** The feeds to poll from now on (the union of the clients' sets); [] stops the timer. */
	set(feeds: readonly Feed[]): void {
		this.feeds = new Map(feeds.map((f) => [feedGroup(f), f]));
		for (const group of [...this.states.keys()]) {
			if (!this.feeds.has(group)) this.states.delete(group);
		}
		if (this.feeds.size === 0) {
			clearInterval(this.timer);
			this.timer = undefined;
			return;
		}
		if (!this.timer) {
			this.timer = setInterval(() => this.tick(), this.options.intervalMs);
			this.timer.unref?.();
		}
	}

	/** Held, or why not ('market closed' outside market hours, the last refusal, 'waiting'). */
	stateOf(feed: Feed): PollState {
		if (!this.options.isMarketOpen(this.options.now()))
			return { held: false, reason: 'market closed' };
		return (
			this.states.get(feedGroup(feed)) ?? { held: false, reason: 'waiting for the first poll' }
		);
	}

	private tick(): void {
		if (!this.options.isMarketOpen(this.options.now())) return;
		this.counters.ticks++;
		for (const [group, feed] of this.feeds) {
			this.counters.polls++;
			this.options
				.poll(feedRoute(feed))
				.then((answer) => {
					if (!this.feeds.has(group)) return;
					this.states.set(
						group,
						answer.status === 200 ? { held: true } : { held: false, reason: reasonOfAnswer(answer) }
					);
				})
				.catch((e: unknown) => {
					if (this.feeds.has(group)) {
						this.states.set(group, { held: false, reason: `poll failed: ${(e as Error).message}` });
					}
				});
		}
	}

	close(): void {
		this.set([]);
	}
}
