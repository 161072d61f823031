/**
 * One session's MCP server over the SDK's in-memory transport: a subscription to the watchlist
 * is told of changes to the session's own watchlist (its token owner's list), not of another
 * user's tickers that the process-wide watch also follows.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { LevelsDocument } from '../../levels/document';
import { buildMcpServer } from './mcpServer';
import type { McpDeps } from './tools';
import { NOTIFY_EVERY_MS, WATCHLIST_URI, WatchlistWatch } from './watchlist';

const spots: Record<string, number> = {};

/** Deps whose watchlist is `tickers`, each ticker's spot read from `spots`. */
function depsOf(tickers: string[]): McpDeps {
	return {
		levels: async (r) => ({
			ok: true,
			doc: {
				ticker: r.ticker,
				spot: spots[r.ticker],
				levels: [],
				max_change: []
			} as unknown as LevelsDocument
		}),
		recorder: () => {
			throw new Error('not used');
		},
		firings: () => [],
		watchlist: () => ({ tickers, source: 'saved' }),
		held: () => []
	};
}

beforeEach(() => {
	vi.useFakeTimers({
		toFake: ['setTimeout', 'setInterval', 'clearTimeout', 'clearInterval', 'Date']
	});
	Object.assign(spots, { SPX: 100, NDX: 200 });
});
afterEach(() => vi.useRealTimers());

describe("a session's watchlist subscription", () => {
	it("is told of its own tickers' changes, not of another user's", async () => {
		let fire: () => void = () => undefined;
		// The recorder's union: this user's SPX and another user's NDX.
		const watch = new WatchlistWatch(depsOf(['SPX', 'NDX']), (listener) => {
			fire = listener;
			return () => (fire = () => undefined);
		});
		const built = buildMcpServer(depsOf(['SPX']), watch);
		const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
		await built.server.connect(serverSide);
		const client = new Client({ name: 'test', version: '1' });
		await client.connect(clientSide);
		const updates: string[] = [];
		client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => {
			updates.push(n.params.uri);
		});
		await client.subscribeResource({ uri: WATCHLIST_URI });
		await vi.advanceTimersByTimeAsync(0);

		spots.NDX = 201;
		fire();
		await vi.advanceTimersByTimeAsync(NOTIFY_EVERY_MS);
		expect(updates).toEqual([]);
		spots.SPX = 101;
		fire();
		await vi.advanceTimersByTimeAsync(NOTIFY_EVERY_MS);
		await vi.waitFor(() => expect(updates).toEqual([WATCHLIST_URI]));

		built.close();
		watch.stop();
		await client.close();
	});
});
