import type { Handle, HandleServerError, ServerInit } from '@sveltejs/kit';
import type { IncomingMessage } from 'node:http';
import { config } from '$lib/server/config';
import { dev } from '$app/environment';
import { mountFastApi } from '$lib/server/fastApi';
import { mountFastAnswers } from '$lib/server/fastAnswers';
import { mountFeed } from '$lib/server/feed/feedMount';
import { mountMcp } from '$lib/server/mcp/mcpMount';
import { onHttpServer } from '$lib/server/httpServer';
import { errorText, log } from '$lib/server/log';
import { startProductionServer } from '$lib/server/production';
import {
	bindRefusal,
	checkRequest,
	CSRF_COOKIE,
	csrfFailure,
	currentPolicy,
	guardHttpServer,
	guardProcess,
	newCsrfToken,
	proxyRefusal,
	refusalBody
} from '$lib/server/requestGate';
import { API_CSP, securityHeaders } from '$lib/server/securityHeaders';
import { forbiddenAnswer, wantsPage } from '$lib/server/forbiddenPage';
import { openAppDatabase } from '$lib/server/db/appDb';
import { SESSION_COOKIE } from '$lib/server/auth';
import { touchSession } from '$lib/server/users/sessionStore';
import { adoptClusterSession, followClusterSessionEnds } from '$lib/server/users/clusterSession';
import { startTeams, teamsMode } from '$lib/server/users/teams';
import { startOidc } from '$lib/server/users/oidcClient';
import { loadQuotaLedger, sharedLimits } from '$lib/server/services';
import { loadSettings } from '$lib/server/settings';
import { mountAlerts } from '$lib/server/alerts/alertsMount';
import { mountRecorder } from '$lib/server/recorder/recorderMount';
import { warmNewestOverviews } from '$lib/server/overview/overviewWarmup';
import { loadRecordingStore } from '$lib/server/recorder/recordingStore';
import { mountStreamRelay } from '$lib/server/stream/relayMount';
import { warmUp } from '$lib/server/upstream';
import { fetchPreloads, withFetchPreloads } from '$lib/server/preloadHeader';
import { STREAM_PATH } from '$lib/relay/protocol';

export const init: ServerInit = async () => {
	guardProcess();
	// adapter-node's own entry (`node build`) reads HOST only after this hook ran and would bind
	// 0.0.0.0: an unset HOST means loopback here, as with `npm start`.
	if (!process.env.HOST?.trim() && !process.env.SOCKET_PATH?.trim()) {
		process.env.HOST = '127.0.0.1';
	}
	const cfg = config();
	// The records are read now: a corrupt, unreachable or newer database (or an older release's
	// corrupt settings or ledger file, imported now) stops the start with an error naming it,
	// rather than surfacing later or being silently reset.
	const db = await openAppDatabase();
	// Teams mode (users in the database; a GEXDECK_PASSWORD setup becomes the admin user).
	await startTeams(db, cfg.password, cfg.oidc !== undefined);
	// Sign-in through the team's identity provider: an issuer that cannot be discovered stops here.
	if (cfg.oidc) await startOidc(cfg.oidc);
	const locked = Boolean(cfg.password) || teamsMode();
	const refusal =
		bindRefusal(process.env.HOST ?? cfg.host, locked) ??
		proxyRefusal({ ...cfg, password: locked ? 'set' : undefined });
	if (refusal) throw new Error(refusal);
	await loadSettings(db);
	await loadQuotaLedger(db);
	await loadRecordingStore(db);
	// Cluster mode (GEXDECK_REDIS_URL): connect and join the replica list now; a session ended
	// on one replica ends at once on all of them.
	sharedLimits();
	followClusterSessionEnds();
	onHttpServer((server) => guardHttpServer(server, [STREAM_PATH]));
	// The account's single WebSocket slot is held here and shared by every tab (/stream).
	mountStreamRelay();
	// Everything relayed or polled is recorded per ticker, stream and day (/history backfills).
	const recorder = mountRecorder();
	// The newest day's overviews made now, so the first whole-day view after a start finds them.
	void warmNewestOverviews(recorder);
	// Alert rules run on every update the server receives, with or without a tab (/alerts).
	await mountAlerts();
	// GET /api/* skips SvelteKit's pipeline: the proxy's node:http fast path (fastApi.ts).
	mountFastApi();
	// /healthz and /history's 503 past its cap answer at once under load (fastAnswers.ts).
	mountFastAnswers();
	// GET /feed/v1/levels/* for charting platforms, with integration tokens (feed/feedHandler.ts).
	mountFeed();
	// /mcp for AI assistants (Streamable HTTP, tokens with the mcp scope: mcp/mcpHandler.ts).
	mountMcp();
	// The server hand-over and graceful shutdown under every production entry (under `vite dev`
	// the plugin in vite.config.ts hands Vite's server over: devServer.ts).
	if (!dev) startProductionServer();
	try {
		await warmUp();
	} catch (err) {
		// The pages show the error; the server itself stays up so the Account page can help.
		log.error((err as Error).message);
	}
};

const THEME_COOKIE = 'gexdeck_theme';
const PALETTE_COOKIE = 'gexdeck_palette';

/** No choice (no parameter, no cookie) follows the system's setting (app.css). */
function themeOf(value: string | undefined | null): 'dark' | 'light' | 'system' {
	return value === 'light' || value === 'dark' ? value : 'system';
}

export const handle: Handle = async ({ event, resolve }) => {
	const cfg = config();
	const headers = securityHeaders(cfg.secureCookies);
	const json = (status: number, body: string) =>
		new Response(body, {
			status,
			headers: { 'content-type': 'application/json', 'cache-control': 'no-store', ...headers }
		});
	// adapter-node hands over the node request: its socket says which address was really bound.
	const req = (event.platform as { req?: IncomingMessage } | undefined)?.req;
	let clientAddress: string | undefined;
	try {
		clientAddress = event.getClientAddress();
	} catch {
		clientAddress = undefined; // ADDRESS_HEADER configured but absent: the socket decides
	}
	// Cluster mode: a session another replica created moments ago is looked up, not refused.
	await adoptClusterSession(
		event.request.headers.get('cookie') ?? undefined,
		event.url.pathname === '/alerts/events'
	);
	const verdict = checkRequest(
		{
			method: event.request.method,
			pathname: event.url.pathname,
			search: event.url.search,
			host: req?.headers.host ?? event.request.headers.get('host') ?? undefined,
			origin: event.request.headers.get('origin') ?? undefined,
			cookie: event.request.headers.get('cookie') ?? undefined,
			localAddress: req?.socket.localAddress,
			localPort: req?.socket.localPort,
			clientAddress
		},
		currentPolicy()
	);
	const passwordRequired = Boolean(cfg.password) || teamsMode();
	if (!verdict.ok) {
		const { pathname } = event.url;
		if (verdict.status === 401 && event.request.method === 'GET' && !pathname.startsWith('/api/')) {
			// Returned, not thrown: a redirect thrown from handle on an undecodable path escaped
			// SvelteKit as an unhandled rejection. For a client-side navigation (__data.json)
			// SvelteKit turns this answer into its JSON redirect, so the page goes to the login.
			return new Response(null, {
				status: 303,
				headers: {
					location: `/login?next=${encodeURIComponent(pathname + event.url.search)}`,
					...headers
				}
			});
		}
		// A signed-in user's role refused a page: a page saying what it needs and who can grant it.
		if (
			verdict.forbidden &&
			wantsPage(event.request.method, pathname, event.request.headers.get('accept'))
		) {
			return forbiddenAnswer(verdict.forbidden.user, verdict.forbidden.needs, headers);
		}
		return json(verdict.status, refusalBody(verdict));
	}

	let csrf = verdict.cookies.get(CSRF_COOKIE);
	if (!csrf) {
		csrf = newCsrfToken();
		event.cookies.set(CSRF_COOKIE, csrf, {
			path: '/',
			httpOnly: true,
			sameSite: 'strict',
			secure: cfg.secureCookies
		});
	}
	event.locals.csrf = csrf;
	event.locals.authenticated = verdict.authenticated;
	event.locals.passwordRequired = passwordRequired;
	event.locals.teams = teamsMode();
	event.locals.user = verdict.user;
	const sessionId = verdict.cookies.get(SESSION_COOKIE);
	if (verdict.user?.id && sessionId) touchSession(sessionId);

	const refused = await csrfFailure(event.request, verdict.cookies.get(CSRF_COOKIE));
	if (refused) return json(403, JSON.stringify({ error: `Forbidden: ${refused}.` }));

	// The theme is applied in the server's HTML, so a light-theme user never sees a dark flash.
	const theme = themeOf(event.url.searchParams.get('theme') ?? verdict.cookies.get(THEME_COOKIE));
	const palette = verdict.cookies.get(PALETTE_COOKIE) === 'cb' ? 'cb' : 'standard';
	const preloads: string[] = [];
	const response = await resolve(event, {
		// A load's /history answers inlined in the page keep what the views read of their headers
		// (a day still being recorded, its last record: daySeed.ts).
		filterSerializedResponseHeaders: (name) => name.startsWith('x-gexdeck-'),
		transformPageChunk: ({ html }) => {
			preloads.push(...fetchPreloads(html));
			return html.replace('data-theme="dark"', `data-theme="${theme}" data-palette="${palette}"`);
		}
	});
	// A whole-day view's overview goes first in the Link header, before the page's scripts.
	const link = withFetchPreloads(response.headers.get('link'), preloads);
	if (link !== null && preloads.length > 0) response.headers.set('link', link);
	for (const [name, value] of Object.entries(headers)) {
		if (!response.headers.has(name)) response.headers.set(name, value);
	}
	// Pages get SvelteKit's hashed CSP from svelte.config.js; API answers get the strictest one.
	if (!response.headers.has('content-security-policy')) {
		response.headers.set('content-security-policy', API_CSP);
	}
	return response;
};

/** One log line per failed request (a stack only for real faults); the page never sees internals. */
export const handleError: HandleServerError = ({ error, event, status, message }) => {
	const where = `${event.request.method} ${event.url.pathname}`;
	if (status >= 500) log.error(`${status} ${where}`, { error: errorText(error) });
	else log.error(`${status} ${where}: ${message}`);
	return { message: status >= 500 ? 'Internal error; see the dashboard log.' : message };
};
