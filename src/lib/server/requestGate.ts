/**
 * The dashboard's one request gate. Every entry point asks it before doing anything: SvelteKit
 * pages and forms (src/hooks.server.ts), the /api fast path (fastApi.ts), the /stream upgrade
 * (stream/relayMount.ts) and, through the init hook and the http.Server attacher (httpServer.ts),
 * adapter-node's `node build`, `npm start` (the same entry) and `vite preview`.
 *
 * In order, a request is refused when:
 * 1. no password is set and it did not arrive on loopback (the address its socket is bound to,
 *    or the client address): 403. This holds however the server was started, even when
 *    adapter-node bound 0.0.0.0.
 * 2. its Host is not one this dashboard answers to (421): loopback names and the literal address
 *    the connection arrived on, with the port it arrived on, the bound HOST name and ORIGIN's
 *    host. A DNS-rebinding page (Host: evil.example:3000) is refused here.
 * 3. it carries an Origin that is not on the same list (403).
 * 4. a password is set or users exist (teams mode), the session cookie is not valid and the
 *    path is not public (401);
 * 5. the session's role may not make this request (403; users/roles.ts's table).
 * State-changing requests then need the CSRF double-submit token (csrfFailure, for forms).
 */
import type { IncomingMessage, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { SESSION_COOKIE, sessionOf, type SessionUser } from './auth';
import { config } from './config';
import { parseCookies } from './cookies';
import { isForeignUpgrade, refuseSocket } from './httpServer';
import { errorText, log } from './log';
import { allowed, permissionFor, type Permission } from './users/roles';
import { teamsMode } from './users/teams';

export const CSRF_COOKIE = 'gexdeck_csrf';
export const CSRF_HEADER = 'x-csrf-token';
export const CSRF_FIELD = 'csrf';

/** What the gate needs to know about the deployment (from config() in production). */
export interface GatePolicy {
	passwordRequired: boolean;
	/** Teams mode (users exist): a session must belong to a user, whose role decides. */
	teams?: boolean;
	/** Host (name[:port]) of ORIGIN, when the dashboard is served under a public URL. */
	originHost?: string;
	/** The HOST the server was told to bind, when it is a name or address rather than a wildcard. */
	bindHost?: string;
}

/** The parts of a request the gate looks at, whatever server received it. */
export interface GateRequest {
	method: string;
	/** Decoded pathname (only `/login` is public). */
	pathname: string;
	/** The URL's query (a form action is `?/name`: roles.ts). */
	search?: string;
	host?: string;
	origin?: string;
	cookie?: string | string[];
	/** Address and port the request's socket is bound to (the address actually bound). */
	localAddress?: string;
	localPort?: number;
	/** The client's address (adapter-node's getClientAddress, honouring ADDRESS_HEADER). */
	clientAddress?: string;
}

/** Without teams mode the one who passed the gate is the dashboard's implicit admin. */
export const IMPLICIT_ADMIN: SessionUser = { id: '', name: 'owner', role: 'admin' };

export type GateVerdict =
	| { ok: true; authenticated: boolean; user?: SessionUser; cookies: Map<string, string> }
	| {
			ok: false;
			status: 401 | 403 | 421;
			error: string;
			cookies: Map<string, string>;
			/** A signed-in user whose role may not do this (the 403 page says what it needs). */
			forbidden?: { user: SessionUser; needs: Permission };
	  };

/** Loopback addresses and names need no password: only this machine can reach them. */
export function isLoopbackAddress(address: string): boolean {
	let a = address.trim().toLowerCase();
	if (a.startsWith('[') && a.endsWith(']')) a = a.slice(1, -1);
	if (a.startsWith('::ffff:')) a = a.slice(7);
	return a === 'localhost' || a === '::1' || /^127(\.\d{1,3}){3}$/.test(a);
}

const WILDCARDS = new Set(['', '0.0.0.0', '::', '[::]']);

/** Why a server must not bind `host` (undefined when it may): non-loopback needs a password. */
export function bindRefusal(host: string, passwordRequired: boolean): string | undefined {
	if (passwordRequired || isLoopbackAddress(host)) return undefined;
	return (
		`gexdeck: HOST=${host || '0.0.0.0'} would expose the dashboard (and your API key's quota) ` +
		'to the network. Set GEXDECK_PASSWORD to require a login, or leave HOST unset to stay on ' +
		'127.0.0.1.'
	);
}

/**
 * Why the dashboard must not start with this proxy configuration (undefined when it may): ORIGIN
 * naming a public host, or ADDRESS_HEADER, says a reverse proxy publishes the dashboard; behind a
 * proxy on this machine every visitor arrives from loopback, so without a password the internet
 * would get the account.
 */
export function proxyRefusal(cfg: {
	password?: string;
	origin?: string;
	addressHeader?: string;
}): string | undefined {
	if (cfg.password) return undefined;
	const setting = cfg.addressHeader
		? `ADDRESS_HEADER=${cfg.addressHeader}`
		: cfg.origin && !isLoopbackAddress(new URL(cfg.origin).hostname)
			? `ORIGIN=${cfg.origin}`
			: undefined;
	if (!setting) return undefined;
	return (
		`gexdeck: ${setting} says a reverse proxy publishes the dashboard, but GEXDECK_PASSWORD is ` +
		'not set: a proxy on this machine connects from loopback, so every visitor would get the ' +
		'dashboard (and your API key) without a login. Set GEXDECK_PASSWORD, or unset ORIGIN and ' +
		'ADDRESS_HEADER to use gexdeck on this machine only.'
	);
}

/** The gate's policy from the dashboard's configuration. */
export function currentPolicy(): GatePolicy {
	const cfg = config();
	const bind = cfg.host.trim().toLowerCase();
	return {
		passwordRequired: Boolean(cfg.password) || teamsMode(),
		teams: teamsMode(),
		originHost: cfg.origin ? new URL(cfg.origin).host : undefined,
		bindHost: WILDCARDS.has(bind) ? undefined : bind
	};
}

/**
 * Paths reachable without a session: the login page, the identity provider's sign-in start and
 * callback (users/oidcClient.ts) and nothing else below them, and the health probes (/healthz,
 * /readyz), which answer only a fixed vocabulary (health.ts).
 */
export const PUBLIC_PATHS: ReadonlySet<string> = new Set([
	'/login',
	'/login/oidc',
	'/login/oidc/callback',
	'/healthz',
	'/readyz'
]);

export function isPublicPath(pathname: string): boolean {
	return PUBLIC_PATHS.has(pathname);
}

/** A header value shown in an error body: printable and short. */
function shown(value: string): string {
	const clean = value.replace(/[^\x20-\x7e]/g, '?');
	return clean.length > 80 ? `${clean.slice(0, 80)}…` : clean;
}

/** Port a URL's host means: explicit, else the scheme's default. */
function portOf(url: URL): number {
	return url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : 80;
}

/** The URL of `host` as a browser would address it, or undefined for anything that is not. */
function hostUrl(host: string): URL | undefined {
	const h = host.trim().toLowerCase();
	if (!h || /[\s/\\@?#]/.test(h)) return undefined;
	try {
		const url = new URL(`http://${h}`);
		return url.host === h || `${url.hostname}:${portOf(url)}` === h ? url : undefined;
	} catch {
		return undefined;
	}
}

/** Whether a browser addressing `url` is addressing this dashboard. */
function allowedUrl(url: URL, req: GateRequest, policy: GatePolicy): boolean {
	if (policy.originHost && url.host === policy.originHost) return true;
	const name = url.hostname;
	if (req.localPort !== undefined && portOf(url) !== req.localPort) return false;
	if (isLoopbackAddress(name)) return true;
	if (policy.bindHost && (name === policy.bindHost || name === `[${policy.bindHost}]`)) return true;
	// The literal address the connection arrived on: a rebinding page names its own domain.
	if (req.localAddress) {
		const local = req.localAddress.toLowerCase().replace(/^::ffff:/, '');
		if (name === local || name === `[${local}]`) return true;
	}
	return false;
}

/** Decide on a request (pure: policy and request in, verdict out). */
export function checkRequest(req: GateRequest, policy: GatePolicy): GateVerdict {
	const cookies = parseCookies(req.cookie);
	const refuse = (status: 401 | 403 | 421, error: string): GateVerdict => ({
		ok: false,
		status,
		error,
		cookies
	});
	if (!policy.passwordRequired) {
		for (const address of [req.localAddress, req.clientAddress]) {
			if (address && !isLoopbackAddress(address)) {
				return refuse(
					403,
					'gexdeck answers only on this machine (loopback) unless GEXDECK_PASSWORD is set; ' +
						'this request came over the network.'
				);
			}
		}
	}
	const hostUrlOf = req.host === undefined ? undefined : hostUrl(req.host);
	if (!hostUrlOf || !allowedUrl(hostUrlOf, req, policy)) {
		const port = req.localPort ?? 3000;
		return refuse(
			421,
			`Misdirected request: this dashboard does not answer to the host "${shown(req.host ?? '')}". ` +
				`Open it as http://127.0.0.1:${port}/, or set ORIGIN to the URL it is served under.`
		);
	}
	if (req.origin !== undefined) {
		let origin: URL | undefined;
		try {
			origin = new URL(req.origin);
		} catch {
			origin = undefined;
		}
		if (
			!origin ||
			(origin.protocol !== 'http:' && origin.protocol !== 'https:') ||
			!allowedUrl(origin, req, policy)
		) {
			return refuse(
				403,
				`Cross-origin request refused: Origin "${shown(req.origin)}" is not this dashboard.`
			);
		}
	}
	const session = policy.passwordRequired ? sessionOf(cookies.get(SESSION_COOKIE)) : undefined;
	const user = policy.passwordRequired
		? policy.teams
			? session?.user
			: session && (session.user ?? IMPLICIT_ADMIN)
		: IMPLICIT_ADMIN;
	const authenticated = user !== undefined;
	if (isPublicPath(req.pathname)) return { ok: true, authenticated, user, cookies };
	if (!user) return refuse(401, 'Log in first.');
	if (!allowed(user.role, req.method, req.pathname, req.search)) {
		return {
			ok: false,
			status: 403,
			error: `Forbidden: the ${user.role} role may not do this.`,
			cookies,
			forbidden: { user, needs: permissionFor(req.method, req.pathname, req.search) }
		};
	}
	return { ok: true, authenticated, user, cookies };
}

function header(req: IncomingMessage, name: string): string | undefined {
	const v = req.headers[name];
	return Array.isArray(v) ? v[0] : v;
}

/**
 * The client's address as adapter-node's getClientAddress sees it: the ADDRESS_HEADER set by a
 * reverse proxy (X-Forwarded-For read XFF_DEPTH entries from the right), else the socket's peer.
 */
export function clientAddressOf(req: IncomingMessage): string | undefined {
	const { addressHeader, xffDepth } = config();
	if (addressHeader) {
		const value = header(req, addressHeader);
		if (value !== undefined) {
			if (addressHeader !== 'x-forwarded-for') return value.trim();
			const parts = value.split(',');
			return parts[parts.length - xffDepth]?.trim() ?? parts[0].trim();
		}
	}
	return req.socket?.remoteAddress;
}

/** The gate for a raw node:http request (the /api fast path, the /stream upgrade). */
export function checkNodeRequest(req: IncomingMessage, pathname: string): GateVerdict {
	const url = req.url ?? '';
	const q = url.indexOf('?');
	return checkRequest(
		{
			method: req.method ?? 'GET',
			pathname,
			search: q === -1 ? '' : url.slice(q),
			host: header(req, 'host'),
			origin: header(req, 'origin'),
			cookie: req.headers.cookie,
			localAddress: req.socket?.localAddress,
			localPort: req.socket?.localPort,
			clientAddress: clientAddressOf(req)
		},
		currentPolicy()
	);
}

/** A refusal as a JSON body. */
export function refusalBody(verdict: { error: string }): string {
	return JSON.stringify({ error: verdict.error });
}

// ---------------------------------------------------------------------------------------------
// CSRF for state-changing requests (forms and fetches from the dashboard's own pages).

export function newCsrfToken(): string {
	return randomBytes(24).toString('base64url');
}

export function isSafeMethod(method: string): boolean {
	return method === 'GET' || method === 'HEAD' || method === 'OPTIONS';
}

function equalTokens(a: string, b: string): boolean {
	const x = Buffer.from(a);
	const y = Buffer.from(b);
	return x.length === y.length && timingSafeEqual(x, y);
}

/** The submitted token: header first, else the form field (read from a clone of the body). */
async function submittedToken(request: Request): Promise<string | undefined> {
	const headerToken = request.headers.get(CSRF_HEADER);
	if (headerToken) return headerToken;
	const type = request.headers.get('content-type') ?? '';
	if (
		type.startsWith('application/x-www-form-urlencoded') ||
		type.startsWith('multipart/form-data')
	) {
		try {
			const field = (await request.clone().formData()).get(CSRF_FIELD);
			return typeof field === 'string' ? field : undefined;
		} catch {
			// A malformed body carries no token.
			return undefined;
		}
	}
	return undefined;
}

/**
 * undefined when a request passed by checkRequest may go on, else why it is refused (403).
 * A state-changing request must name its origin (Origin, already checked against the allowlist,
 * or Sec-Fetch-Site: same-origin) and repeat the CSRF cookie in the header or the form field.
 */
export async function csrfFailure(
	request: Request,
	cookieToken: string | undefined
): Promise<string | undefined> {
	if (isSafeMethod(request.method)) return undefined;
	const fromPage =
		request.headers.get('origin') !== null ||
		request.headers.get('sec-fetch-site') === 'same-origin';
	if (!fromPage || request.headers.get('sec-fetch-site') === 'cross-site') {
		return 'cross-origin request refused';
	}
	const token = await submittedToken(request);
	if (!cookieToken || !token || !equalTokens(cookieToken, token)) {
		return 'missing or wrong CSRF token';
	}
	return undefined;
}

// ---------------------------------------------------------------------------------------------
// The http.Server itself (whichever entry made it, see httpServer.ts): nothing a client sends
// may take the process down.

/**
 * Guards the dashboard's http.Server: every upgrade socket gets an 'error' listener before any
 * other code sees it, and an upgrade no endpoint claims (anything but /stream, or under `vite
 * dev` Vite's own HMR socket: httpServer.ts isForeignUpgrade) is answered 404 instead of
 * hanging without a listener. After listening, the address actually bound is checked.
 */
export function guardHttpServer(server: Server, claimedPaths: readonly string[]): void {
	server.prependListener('upgrade', (req: IncomingMessage, socket: Duplex) => {
		socket.on('error', (err) => {
			// A peer that went away (reset, or closed before our answer) is not worth a log line.
			const code = (err as NodeJS.ErrnoException).code;
			if (code !== 'ECONNRESET' && code !== 'EPIPE') {
				log.error('upgrade socket error', { error: err.message });
			}
		});
		const raw = req.url ?? '/';
		const q = raw.indexOf('?');
		const path = q === -1 ? raw : raw.slice(0, q);
		if (claimedPaths.includes(path) || isForeignUpgrade(req)) return;
		refuseSocket(socket, 404, 'No WebSocket endpoint here.');
	});
	const checkBound = () => {
		const bound = server.address();
		if (!bound || typeof bound === 'string') return;
		const refusal = bindRefusal((bound as AddressInfo).address, currentPolicy().passwordRequired);
		if (refusal) {
			log.error(refusal);
			process.exit(1);
		}
	};
	// The server is handed over at its first connection (httpServer.ts), when it already listens.
	if (server.listening) checkBound();
	else server.on('listening', checkBound);
}

let processGuarded = false;

/**
 * A stray rejected promise (a handler that forgot a catch) is logged, not fatal: one request's
 * bug must not take the dashboard and its embedded service down.
 */
export function guardProcess(): void {
	if (processGuarded) return;
	processGuarded = true;
	process.on('unhandledRejection', (reason) => {
		log.error('unhandled rejection', { error: errorText(reason) });
	});
}
