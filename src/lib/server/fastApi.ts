/**
 * The proxy's fast path: GET/HEAD /api/* requests go straight to this node:http handler
 * (attached to the dashboard's http.Server by the init hook through httpServer.ts, under every
 * entry point) instead of SvelteKit's request pipeline (Request/Response conversion, cookies,
 * page machinery), which costs more than the proxy itself. It passes the same request gate as
 * every other entry point (requestGate.ts) and sends the same security headers. Anything else
 * (other methods, pages) still goes through SvelteKit, where the CSRF check applies. No
 * exception escapes: a failure is a 500 for this request and a log line.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { config } from './config';
import { errorText, log } from './log';
import { checkNodeRequest, refusalBody } from './requestGate';
import { API_CSP, securityHeaders } from './securityHeaders';
import { upstreamProxy } from './services';

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

/** Handles the request and returns true, or returns false to let SvelteKit handle it. */
export const handleFastApi: FastApiHandler = (req, res) => {
	const method = req.method ?? 'GET';
	const rawUrl = req.url ?? '/';
	if ((method !== 'GET' && method !== 'HEAD') || !rawUrl.startsWith('/api/')) return false;
	const head = method === 'HEAD';
	try {
		const q = rawUrl.indexOf('?');
		const verdict = checkNodeRequest(req, '/api');
		if (!verdict.ok) {
			send(res, verdict.status, JSON_HEADERS, refusalBody(verdict), head);
			return true;
		}
		let path: string;
		try {
			// Decoded like SvelteKit decodes a rest parameter.
			path = decodeURIComponent(rawUrl.slice(5, q === -1 ? undefined : q));
		} catch {
			send(
				res,
				400,
				JSON_HEADERS,
				JSON.stringify({ error: 'Malformed path.', reason: 'invalid' }),
				head
			);
			return true;
		}
		const query = new URLSearchParams(q === -1 ? '' : rawUrl.slice(q + 1));
		upstreamProxy()
			.handle(method, path, query)
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
