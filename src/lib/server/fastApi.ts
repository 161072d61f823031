/**
 * The one way /api reaches the proxy. forwardApi() turns the raw path after `/api/` into a proxy
 * call (decoding the path as SvelteKit decodes a rest parameter); two thin adapters call it:
 *
 * - the fast path, handleFastApi: GET/HEAD /api/* go straight to this node:http handler
 *   (attached to the dashboard's http.Server through httpServer.ts by mountFastApi(), from the
 *   init hook, under every entry: `node build`, `npm start`, `vite preview` and `vite dev`)
 *   instead of SvelteKit's request pipeline (Request/Response conversion, cookies, page
 *   machinery), which costs more than the proxy itself. It passes the same request gate as every
 *   other entry point (requestGate.ts) and sends the same security headers;
 * - the route src/routes/api/[...path]/+server.ts, for what the fast path leaves to SvelteKit:
 *   other methods (after the CSRF check, the proxy refuses them with 405) and, under `vite dev`,
 *   the requests that arrive before SvelteKit has run the init hook that mounts the fast path.
 *
 * No exception escapes: a failure is a 500 for this request and a log line.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { config } from './config';
import { errorText, log } from './log';
import { checkNodeRequest, refusalBody } from './requestGate';
import { API_CSP, securityHeaders } from './securityHeaders';
import { onHttpServer, interceptRequests } from './httpServer';
import type { ProxyResult } from './proxy';
import { upstreamProxy } from './services';
import { userCaller } from './usage/callShares';

export type FastApiHandler = (req: IncomingMessage, res: ServerResponse) => boolean;

const JSON_HEADERS = { 'content-type': 'application/json', 'cache-control': 'no-store' };
const INTERNAL = JSON.stringify({ error: 'Internal error; see the dashboard log.' });

function send(
	res: ServerResponse,
	status: number,
	headers: Record<string, string>,
	body: Uint8Array | string,
	head: boolean
) {
	if (res.headersSent || res.destroyed) return;
	const base = { ...securityHeaders(config().secureCookies), 'content-security-policy': API_CSP };
	try {
		res.writeHead(status, { ...base, ...headers });
	} catch (err) {
		// A header value node refuses (e.g. a control character from upstream): answer 500.
		log.error('/api answer not sendable', { error: (err as Error).message });
		res.writeHead(500, { ...base, ...JSON_HEADERS });
		res.end(head ? undefined : INTERNAL);
		return;
	}
	res.end(head ? undefined : body);
}

function fail(res: ServerResponse, head: boolean, err: unknown): void {
	log.error('/api request failed', { error: errorText(err) });
	send(res, 500, JSON_HEADERS, INTERNAL, head);
}

/**
 * The proxy's answer to `method` on `/api/<target>`, target being the raw (percent-encoded)
 * path and query after `/api/`: a 400 for an undecodable path, else the proxy's result. `userId`
 * is the signed-in user the gate let through (its calls count as theirs: usage/callShares.ts).
 */
export function forwardApi(method: string, target: string, userId = ''): Promise<ProxyResult> {
	const q = target.indexOf('?');
	let path: string;
	try {
		// Decoded like SvelteKit decodes a rest parameter.
		path = decodeURIComponent(target.slice(0, q === -1 ? undefined : q));
	} catch {
		return Promise.resolve({
			status: 400,
			headers: JSON_HEADERS,
			body: JSON.stringify({ error: 'Malformed path.', reason: 'invalid' })
		});
	}
	const query = new URLSearchParams(q === -1 ? '' : target.slice(q + 1));
	return upstreamProxy().handle(method, path, query, userCaller(userId));
}

/** Handles the request and returns true, or returns false to let SvelteKit handle it. */
export const handleFastApi: FastApiHandler = (req, res) => {
	const method = req.method ?? 'GET';
	const rawUrl = req.url ?? '/';
	if ((method !== 'GET' && method !== 'HEAD') || !rawUrl.startsWith('/api/')) return false;
	const head = method === 'HEAD';
	try {
		const verdict = checkNodeRequest(req, '/api');
		if (!verdict.ok) {
			send(res, verdict.status, JSON_HEADERS, refusalBody(verdict), head);
			return true;
		}
		forwardApi(method, rawUrl.slice(5), verdict.user?.id)
			.then(
				(result) => send(res, result.status, result.headers, result.body, head),
				(err: unknown) => fail(res, head, err)
			)
			.catch((err: unknown) => fail(res, head, err));
	} catch (err) {
		fail(res, head, err);
	}
	return true;
};

let mounted = false;

/** Puts the fast path in front of the dashboard's http.Server once it is known (httpServer.ts). */
export function mountFastApi(): void {
	if (mounted) return;
	mounted = true;
	onHttpServer((server) => interceptRequests(server, handleFastApi));
}
