/**
 * The feeds alert rules need, and what the alerts page says of them: which groups the rules not
 * paused take (spot included), which the holder refused and why, and the memberships they cost.
 * Pure over the rules and the feed client's status, so the service keeps only its wiring.
 */
import { feedOfRule, groupOfRule, type AlertRule } from '../../alerts/rules';
import { feedGroup, type Feed } from '../../contract/feeds';
import type { FeedClient, FeedMode } from '../feeds';
import { SubscriptionBook } from '../stream/book';

/** Reasons of a feed not held that are a refusal to show on its rule (not a pause or a wait). */
const REFUSAL = /^(budget exhausted|not entitled|key rejected|refused)\b/;

export interface FeedStatus {
	mode: FeedMode;
	/** Groups of the feeds the rules need. */
	needed: string[];
	/** Feeds refused for the rules, with the reason (budget exhausted, not entitled, ...). */
	refused: { group: string; reason: string }[];
	/** Memberships of the whole union (tabs and rules) against the account's limit. */
	usage: { used: number; limit: number } | null;
	/** Memberships the rules' groups take on their own (spot included). */
	rulesNeed: number;
	/** Streaming: why the relay is not delivering (slot taken, upstream refusal), else null. */
	streamProblem: string | null;
}

/** The feeds the holder refused, with the reason a rule shows. */
export function refusedFeeds(feeds: FeedClient): { group: string; reason: string }[] {
	return feeds
		.status()
		.feeds.filter((f) => !f.held && f.reason && REFUSAL.test(f.reason))
		.map((f) => ({ group: f.group, reason: f.reason! }));
}

/** The groups the rules not paused need, sorted. */
export function neededGroups(rules: readonly AlertRule[]): string[] {
	return [...new Set(rules.filter((r) => !r.paused).map(groupOfRule))].sort();
}

/** The feeds of the rules not paused, one per group. */
export function feedsOfRules(rules: readonly AlertRule[]): Feed[] {
	const feeds = new Map(
		rules
			.filter((r) => !r.paused)
			.map(feedOfRule)
			.map((f) => [feedGroup(f), f])
	);
	return [...feeds.values()];
}

/** What the alerts page shows of the rules' feeds. */
export function feedStatusOf(feeds: FeedClient, rules: readonly AlertRule[]): FeedStatus {
	const status = feeds.status();
	const needed = neededGroups(rules);
	const own = new SubscriptionBook<string>(Number.MAX_SAFE_INTEGER);
	own.add('rules', needed);
	return {
		mode: status.mode,
		needed,
		rulesNeed: own.plan().usage.used,
		refused: refusedFeeds(feeds),
		usage: status.usage,
		streamProblem: status.streamProblem
	};
}
