/**
 * The MCP endpoint's process-wide parts: its tools' view of the dashboard (the levels feed's
 * answer and store, the recorder, the alerts service, the always-record list), the watchlist
 * watch, the sessions and their sweep; and the /mcp entry on the http.Server.
 * SvelteKit-only (reads the config): call mountMcp() once from the init hook, after mountFeed().
 */
import { alertService } from '../alerts/alertsMount';
import { feedDeps, tokenStore } from '../feed/feedMount';
import { levelsAnswer } from '../feed/levelsAnswer';
import { interceptRequests, onHttpServer } from '../httpServer';
import { errorText, log } from '../log';
import { OWNER_ASKER, type Asker } from '../alerts/store';
import { alwaysRecordOf, currentAlwaysRecord, sessionRecorder } from '../recorder/recorderMount';
import { RateLimiter, type RateLimitOptions } from '../tokens/rateLimit';
import { McpSessions, SWEEP_MS, type McpHttpDeps } from './mcpHandler';
import type { McpDeps } from './tools';
import { WatchlistWatch } from './watchlist';

/** An assistant fires a few calls at once (initialize, the stream, tools in parallel). */
export const MCP_RATE_LIMIT: RateLimitOptions = { burst: 30, perSecond: 10 };

let deps: McpHttpDeps | undefined;
let sessions: McpSessions | undefined;
let sweep: ReturnType<typeof setInterval> | undefined;

export function mcpDeps(): McpHttpDeps {
	if (deps) return deps;
	// A session sees what its token's owner sees: their firings (an admin's: everyone's), their list.
	const tools = (who: Asker): McpDeps => ({
		levels: (r) => levelsAnswer(r, feedDeps()),
		recorder: sessionRecorder,
		firings: () => alertService().firings(who),
		watchlist: async () => (await alwaysRecordOf(who.id)).list,
		held: () => feedDeps().store.entries()
	});
	// The watch compares the levels of what the recorder holds: every user's list.
	const union: McpDeps = { ...tools(OWNER_ASKER), watchlist: currentAlwaysRecord };
	deps = {
		tokens: tokenStore(),
		limiter: new RateLimiter(MCP_RATE_LIMIT),
		tools,
		watch: new WatchlistWatch(union, (listener) => feedDeps().client.subscribe(listener))
	};
	return deps;
}

export function mountMcp(): void {
	if (sessions) return;
	const s = new McpSessions(mcpDeps);
	sessions = s;
	sweep = setInterval(() => {
		s.sweep().catch((err: unknown) => log.error('mcp: sweep failed', { error: errorText(err) }));
	}, SWEEP_MS);
	sweep.unref?.();
	onHttpServer((server) => interceptRequests(server, (req, res) => s.handle(req, res)));
}

/** Closes every session (their streams) at shutdown. */
export function stopMcp(): void {
	clearInterval(sweep);
	sessions?.closeAll();
	deps?.watch.stop();
}
