/**
 * The feed holder: the one place the dashboard server holds feeds (a ticker + package +
 * category, see src/lib/contract/feeds.ts) on its own, for named clients, with no tab open.
 *
 * ## How a feed is held
 *
 * - The account streams (Quant, asked through `account()`): each client is one viewer of the
 *   stream relay with no browser behind it. The relay reference-counts groups over all its
 *   viewers (tabs included), so N clients holding the same feed take ONE membership; the
 *   account's membership limit is the relay's (a feed past it is "budget exhausted").
 * - Any other account: the union of all clients' feeds is polled through the REST proxy, each
 *   feed ONCE per second (not once per client), only while `isMarketOpen` says so. The proxy
 *   keeps the quota ledger and its pool backoff (a feed it holds back is "budget exhausted", a
 *   locked route "not entitled"), coalesces with tabs polling the same route, and publishes each
 *   fresh snapshot on the update tap.
 * - `decide()` asks the account again and re-holds everything at once. It is an event, not a
 *   timer: feedsMount.ts calls it when the settings (keys, demo account) change.
 *
 * ## API
 *
 *   const holder = new FeedHolder({ tap, relay, poll, account, isMarketOpen });
 *   await holder.decide();                        // at start, and on every account change
 *   const c = holder.client('alerts');            // one named client (created on first use)
 *   c.hold([feedOf('SPX', 'classic', 'gex_full')]); // exactly this set from now on
 *   const off = c.subscribe((u) => ...);          // FeedUpdate of the client's feeds + their spot
 *   c.status();   // { client, mode, feeds: [{ feed, group, held, reason }] }
 *   holder.status();                              // every client's
 *
 * On-demand clients (the levels feed): `holder.client('levels', { idleMs: 120_000 })` and
 * `c.want([feed])` on each request: the feed is held from the first want() and let go idleMs
 * after the last one; `c.release([feed])` lets go at once.
 *
 * Subscribers get every update of the client's feeds whoever brought it (this client, another
 * one, a tab), decoded once (a frame by the wire decoder, a snapshot's JSON parsed, not
 * validated) and the same object handed to every subscriber: N consumers of a held feed cost no
 * extra upstream call and no extra decode. Spot frames of a held feed's ticker come with
 * `feed: undefined`.
 *
 * Reasons a feed is not held (status().feeds[].reason): 'market closed', 'waiting for the first
 * poll', 'budget exhausted: <why>', 'not entitled: <why>', 'key rejected: <why>', 'refused:
 * <why>' (relay/upstream), 'stream <state>: <why>' (relay slot taken, reconnecting), 'upstream
 * answered <status>', 'poll failed: <why>'.
 *
 * Clients today: 'recorder' (the always-record list, server/recorder/recorderMount.ts) and
 * 'alerts' (the rules' feeds, server/alerts/alertsMount.ts). The process's holder is
 * feedHolder() in ./feedsMount.ts (SvelteKit-only); FeedHolder itself needs no SvelteKit, so
 * integration tests run it against a real relay, proxy and embedded service.
 */
export {
	FeedClient,
	FeedHolder,
	HOLDER_DECIDING,
	type FeedAccount,
	type FeedClientOptions,
	type FeedClientStatus,
	type FeedHolderOptions,
	type FeedMode,
	type HeldFeedStatus
} from './holder';
export type { FeedListener, FeedUpdate, PolledFeedUpdate, StreamedFeedUpdate } from './fanout';
export type { PollAnswer, PollFn } from './poller';
