/**
 * `/mcp` on the dashboard's node:http server (before SvelteKit, like /feed): the MCP Streamable
 * HTTP transport in session mode. Sessions, not stateless, because the watchlist resource is
 * subscribed to: notifications/resources/updated travel on the session's standing GET stream,
 * and a stateless server has neither the stream nor anyone to remember the subscription.
 *
 * Every request (each POST, the GET stream, DELETE) needs an integration token with the `mcp`
 * scope in `Authorization: Bearer` (a `feed` token is refused; no `?token=`: assistants send
 * headers). A session belongs to the token that opened it; a revoked token's requests are 401 at
 * once and its sessions are closed by the next sweep (every SWEEP_MS). The request gate runs
 * first as for /feed: loopback-only without a password, the Host allowlist, Origin.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { config } from '../config';
import { errorText, log } from '../log';
import { checkNodeRequest, clientAddressOf } from '../requestGate';
import { sendApiAnswer } from '../securityHeaders';
import { presentedToken } from '../tokens/presented';
import type { RateLimiter } from '../tokens/rateLimit';
import type { TokenStore } from '../tokens/tokenStore';
import type { Asker } from '../alerts/store';
import { buildMcpServer, type BuiltServer } from './mcpServer';
import type { McpDeps } from './tools';
import type { WatchlistWatch } from './watchlist';

export const MCP_PATH = '/mcp';
/** Open sessions at most (an assistant holds one; a runaway client cannot hold thousands). */
export const MAX_SESSIONS = 32;
/** A session without a request for this long is closed. */
export const SESSION_IDLE_MS = 30 * 60_000;
export const SWEEP_MS = 5_000;
/** A request body larger than this is refused (tool calls are a few hundred bytes). */
const MAX_BODY_BYTES = 64 * 1024;

export interface McpHttpDeps {
	tokens: TokenStore;
	limiter: RateLimiter;
	/** The tools' view for a session, as the token's owner sees the dashboard (their role). */
	tools: (who: Asker) => McpDeps;
	watch: WatchlistWatch;
}

interface Session {
	transport: StreamableHTTPServerTransport;
	built: BuiltServer;
	tokenId: string;
	lastSeen: number;
}

function refuse(
	res: ServerResponse,
	status: number,
	error: string,
	extra: Record<string, string> = {}
): void {
	const body = { jsonrpc: '2.0', error: { code: -32000, message: error }, id: null };
	sendApiAnswer(
		res,
		config().secureCookies,
		status,
		'application/json',
		JSON.stringify(body),
		extra
	);
}

export class McpSessions {
	private readonly sessions = new Map<string, Session>();

	constructor(private readonly deps: () => McpHttpDeps) {}

	get size(): number {
		return this.sessions.size;
	}

	/** Answers a /mcp request (returns true), or returns false for any other path. */
	handle(req: IncomingMessage, res: ServerResponse): boolean {
		const rawUrl = req.url ?? '/';
		const path = rawUrl.split('?')[0];
		if (path !== MCP_PATH && path !== MCP_PATH + '/') return false;
		this.serve(req, res).catch((err: unknown) => this.failed(res, err));
		return true;
	}

	private async serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
		const verdict = checkNodeRequest(req, MCP_PATH);
		// 401 is the session check: the token replaces it below.
		if (!verdict.ok && verdict.status !== 401) return refuse(res, verdict.status, verdict.error);
		const method = req.method ?? 'GET';
		if (method !== 'POST' && method !== 'GET' && method !== 'DELETE') {
			return refuse(res, 405, 'MCP answers POST, GET and DELETE.', {
				allow: 'POST, GET, DELETE'
			});
		}
		const d = this.deps();
		const address = clientAddressOf(req);
		const auth = await d.tokens.check(presentedToken(req, new URLSearchParams()), 'mcp', address);
		if (!auth.ok) {
			log.warn('mcp: token refused', { from: address, why: auth.error });
			return refuse(res, 401, auth.error, { 'www-authenticate': 'Bearer realm="gexdeck mcp"' });
		}
		const rate = d.limiter.take(auth.token.id);
		if (!rate.ok) {
			return refuse(res, 429, `Too many requests for token "${auth.token.name}".`, {
				'retry-after': String(rate.retryAfterSeconds)
			});
		}
		const sid = req.headers['mcp-session-id'];
		if (typeof sid === 'string') {
			const s = this.sessions.get(sid);
			// Another token's session is as unknown as a closed one.
			if (!s || s.tokenId !== auth.token.id) return refuse(res, 404, 'Session not found.');
			s.lastSeen = Date.now();
			void s.transport.handleRequest(req, res).catch((err: unknown) => this.failed(res, err));
			return;
		}
		if (method !== 'POST') return refuse(res, 400, 'No session: initialize with a POST first.');
		if (this.sessions.size >= MAX_SESSIONS) await this.sweep();
		if (this.sessions.size >= MAX_SESSIONS) {
			return refuse(res, 503, `Too many MCP sessions open (${MAX_SESSIONS}).`, {
				'retry-after': '30'
			});
		}
		const who: Asker = { id: auth.token.owner, role: auth.role };
		void this.open(req, res, auth.token.id, who).catch((err: unknown) => this.failed(res, err));
	}

	private async open(
		req: IncomingMessage,
		res: ServerResponse,
		tokenId: string,
		who: Asker
	): Promise<void> {
		const d = this.deps();
		const built = buildMcpServer(d.tools(who), d.watch);
		let session: Session | undefined;
		const transport = new StreamableHTTPServerTransport({
			sessionIdGenerator: () => randomUUID(),
			onsessioninitialized: (id) => {
				session = { transport, built, tokenId, lastSeen: Date.now() };
				this.sessions.set(id, session);
			},
			maxRequestBodySize: MAX_BODY_BYTES
		});
		transport.onclose = () => {
			if (transport.sessionId) this.sessions.delete(transport.sessionId);
			built.close();
		};
		await built.server.connect(transport);
		await transport.handleRequest(req, res);
		// Not an initialize request: the transport refused it and no session exists.
		if (!session) await built.server.close();
	}

	private failed(res: ServerResponse, err: unknown): void {
		log.error('mcp request failed', { error: errorText(err) });
		refuse(res, 500, 'Internal error; see the dashboard log.');
	}

	/** Closes idle sessions and those whose token was revoked or whose owner may no longer act. */
	async sweep(now = Date.now()): Promise<void> {
		const live = await this.deps().tokens.liveIds();
		for (const [id, s] of this.sessions) {
			if (now - s.lastSeen > SESSION_IDLE_MS || !live.has(s.tokenId)) {
				this.sessions.delete(id);
				void s.built.server.close().catch(() => undefined);
			}
		}
	}

	closeAll(): void {
		for (const s of this.sessions.values()) void s.built.server.close().catch(() => undefined);
		this.sessions.clear();
	}
}
