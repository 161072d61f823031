/**
 * One MCP server (one per session): the tools of tools.ts and the watchlist resource, with
 * resources/subscribe answered by the process-wide watch (watchlist.ts).
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import {
	SubscribeRequestSchema,
	UnsubscribeRequestSchema
} from '@modelcontextprotocol/sdk/types.js';
import { registerTools, type McpDeps } from './tools';
import { WATCHLIST_URI, watchlistContent, type WatchlistWatch } from './watchlist';

export const SERVER_INFO = { name: 'gexdeck', version: '1.0.0' };

export interface BuiltServer {
	server: McpServer;
	/** Ends this session's subscriptions. */
	close: () => void;
}

export function buildMcpServer(deps: McpDeps, watch: WatchlistWatch): BuiltServer {
	const server = new McpServer(SERVER_INFO, {
		capabilities: { resources: { subscribe: true, listChanged: false }, tools: {} },
		instructions:
			"Read-only access to a gexdeck dashboard's options gamma-exposure levels: live levels, per-strike profile, recorded days, alert firings. Prices are the underlying's unless `future` is asked."
	});
	registerTools(server, deps);
	server.registerResource(
		'watchlist-levels',
		WATCHLIST_URI,
		{
			title: 'Watchlist levels',
			description:
				'Current levels (gex_full) of every ticker on the watchlist (the always-record list); subscribe for updates, at most once a second.',
			mimeType: 'application/json'
		},
		async (uri) => ({
			contents: [
				{
					uri: uri.href,
					mimeType: 'application/json',
					text: JSON.stringify(await watchlistContent(deps))
				}
			]
		})
	);
	let unsubscribe: (() => void) | undefined;
	const low = server.server;
	low.setRequestHandler(SubscribeRequestSchema, async (req) => {
		if (req.params.uri !== WATCHLIST_URI) throw new Error(`No such resource: ${req.params.uri}`);
		unsubscribe ??= watch.add(
			() => {
				low.sendResourceUpdated({ uri: WATCHLIST_URI }).catch(() => undefined);
			},
			() => watchlistContent(deps)
		);
		return {};
	});
	low.setRequestHandler(UnsubscribeRequestSchema, async () => {
		unsubscribe?.();
		unsubscribe = undefined;
		return {};
	});
	return {
		server,
		close: () => {
			unsubscribe?.();
			unsubscribe = undefined;
		}
	};
}
