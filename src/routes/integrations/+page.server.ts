/**
 * /integrations: every platform's feed URL for the chosen ticker (a token placeholder, never a
 * token), the paste strings built from what the server holds now, how fresh each held ticker's
 * levels are, and the tokens' last use.
 */
import { feedGroup, feedOf } from '$lib/contract/feeds';
import { buildLevels, STALE_AFTER_S } from '$lib/levels/document';
import { thinkScript } from '$lib/levels/formats';
import { tradingViewString } from '$lib/levels/pasteString';
import { feedDeps } from '$lib/server/feed/feedMount';
import { dashboardOrigin } from '$lib/server/publicOrigin';
import { tokenList } from '../account/tokens.server';
import type { PageServerLoad } from './$types';

const TICKER = /^[A-Z0-9_]{1,16}$/;

export const load = (async (event) => {
	const { url } = event;
	const asked = (url.searchParams.get('ticker') ?? 'SPX').toUpperCase();
	const ticker = TICKER.test(asked) ? asked : 'SPX';
	const { store } = feedDeps();
	const now = Date.now();
	const latest = store.get(feedGroup(feedOf(ticker, 'classic', 'gex_full')));
	const doc = latest
		? buildLevels({
				chain: latest.chain,
				category: 'gex_full',
				receivedAt: latest.receivedAt,
				now,
				source: latest.source,
				staleAfterSeconds: STALE_AFTER_S
			})
		: undefined;
	return {
		ticker,
		origin: dashboardOrigin(url),
		tradingView: doc ? tradingViewString(doc) : null,
		thinkScript: doc ? thinkScript(doc) : null,
		asOf: doc?.as_of.et ?? null,
		held: store
			.entries()
			.map((e) => ({ ...e, ageSeconds: Math.round((now - e.receivedAt) / 1000) }))
			.sort((a, b) => a.ticker.localeCompare(b.ticker) || a.category.localeCompare(b.category)),
		tokens: (await tokenList(event)).map((t) => ({
			id: t.id,
			name: t.name,
			lastUsedAt: t.lastUsedAt,
			lastUsedFrom: t.lastUsedFrom
		}))
	};
}) satisfies PageServerLoad;
