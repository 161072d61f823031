/**
 * The levels feed's answer while a ticker has no value yet: the first request starts holding it
 * and says so with a 503 and Retry-After, also when the feed holder has not yet decided how to
 * hold (the account's first check under way, as on a busy start): that is a wait, not a reason
 * to show. A refusal the holder reports is still named.
 */
import { describe, expect, it } from 'vitest';
import { FeedHolder } from '../feeds';
import { UpdateTap } from '../updates/tap';
import { FIRST_VALUE_RETRY_S, levelsAnswer } from './levelsAnswer';
import type { LevelsRequest } from './levelsRequest';

const request: LevelsRequest = { ticker: 'IWM', category: 'gex_full', format: 'json', strikes: 5 };

function deps(holder: FeedHolder) {
	return {
		client: holder.client('levels'),
		store: { get: () => undefined },
		basis: { get: async () => ({ ok: false as const, status: 503, reason: 'unused' }) },
		fetchOnce: async () => {
			throw new Error('unused');
		}
	} as unknown as Parameters<typeof levelsAnswer>[1];
}

describe('levelsAnswer without a value yet', () => {
	it('answers "holding ... started" while the holder is still deciding', async () => {
		// The account's check never ends here: the holder stays undecided.
		const holder = new FeedHolder({ tap: new UpdateTap(), account: () => new Promise(() => {}) });
		void holder.decide();
		const answer = await levelsAnswer(request, deps(holder));
		expect(answer).toEqual({
			ok: false,
			status: 503,
			error: 'holding IWM gex_full started; waiting for its first value',
			retryAfter: FIRST_VALUE_RETRY_S
		});
		holder.close();
	});

	it('names the reason the holder gives once it has decided', async () => {
		const holder = new FeedHolder({
			tap: new UpdateTap(),
			account: async () => ({ streams: false })
		});
		await holder.decide();
		const answer = await levelsAnswer(request, deps(holder));
		expect(answer.ok).toBe(false);
		// Polling without a poller: the holder cannot hold it, and says why.
		expect(!answer.ok && answer.error).toBe('IWM gex_full: no poller');
		holder.close();
	});
});
