/**
 * The latest Classic chain of every feed the levels client holds, from the feed holder's
 * updates (stream frames and polled snapshots, decoded once by the holder for all its
 * subscribers). A polled body is validated only when a feed request reads it, once per update.
 */
import { classicChainSchema, type ClassicChain } from '../../contract/schemas';
import { safeParse } from '../../contract/validate';
import { feedGroup } from '../../contract/feeds';
import type { FeedListener, FeedUpdate } from '../feeds';

interface Held {
	update: FeedUpdate;
	chain?: ClassicChain | null;
}

export interface LatestChain {
	chain: ClassicChain;
	receivedAt: number;
	source: 'stream' | 'poll';
}

export class LevelsStore {
	private readonly latest = new Map<string, Held>();
	private readonly unsubscribe: () => void;

	constructor(subscribe: (listener: FeedListener) => () => void) {
		this.unsubscribe = subscribe((u) => {
			if (!u.feed || u.feed.package !== 'classic') return;
			if (u.source === 'stream' && u.frame.kind !== 'gex') return;
			this.latest.set(feedGroup(u.feed), { update: u });
		});
	}

	/** The newest chain received for a feed's group, or undefined. */
	get(group: string): LatestChain | undefined {
		const held = this.latest.get(group);
		if (!held) return undefined;
		if (held.chain === undefined) held.chain = chainOf(held.update);
		if (!held.chain) return undefined;
		return {
			chain: held.chain,
			receivedAt: held.update.receivedAt,
			source: held.update.source === 'stream' ? 'stream' : 'poll'
		};
	}

	/** (ticker, category, receivedAt) of every chain held, for the /integrations page. */
	entries(): { ticker: string; category: string; receivedAt: number }[] {
		return [...this.latest.values()].map(({ update }) => ({
			ticker: update.ticker,
			category: update.feed!.category,
			receivedAt: update.receivedAt
		}));
	}

	close(): void {
		this.unsubscribe();
	}
}

function chainOf(u: FeedUpdate): ClassicChain | null {
	if (u.source === 'stream') return u.frame.kind === 'gex' ? u.frame.value : null;
	const r = safeParse(classicChainSchema, u.body);
	return r.ok ? r.value : null;
}
