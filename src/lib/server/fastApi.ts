/**
 * The proxy's fast path for the built server: `scripts/start.js` hands GET/HEAD /api/* requests
 * straight to this node:http handler instead of SvelteKit's request pipeline (Request/Response
 * conversion, cookies, page machinery), which costs more than the proxy itself. The checks are
 * the same as in hooks.server.ts: session when a password is set, the allowlisted proxy, the
 * security headers. Anything else (other methods, pages) still goes through SvelteKit, where the
 * CSRF check applies.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { SESSION_COOKIE, sessionValid } from './auth';
import { config, isLoopbackHost } from './config';
import { API_CSP, SECURITY_HEADERS } from './securityHeaders';
import { upstreamProxy } from './services';

export const FAST_API = Symbol.for('gexdeck.fastApi');

export type FastApiHandler = (req: IncomingMessage, res: ServerResponse) => boolean;

function cookie(header: string | undefined, name: string): string | undefined {
	if (!header) return undefined;
	for (const part of header.split(';')) {
		const i = part.indexOf('=');
		if (i > 0 && part.slice(0, i).trim() === name)
			return decodeURIComponent(part.slice(i + 1).trim());
	}
	return undefined;
}

function send(
	res: ServerResponse,
	status: number,
	headers: Record<string, string>,
	body: Uint8Array | string,
	head: boolean
) {
	res.writeHead(status, { ...SECURITY_HEADERS, 'content-security-policy': API_CSP, ...headers });
	res.end(head ? undefined : body);
}

/** Handles the request and returns true, or returns false to let SvelteKit handle it. */
export const handleFastApi: FastApiHandler = (req, res) => {
	const method = req.method ?? 'GET';
	const rawUrl = req.url ?? '/';
	if ((method !== 'GET' && method !== 'HEAD') || !rawUrl.startsWith('/api/')) return false;
	const cfg = config();
	const head = method === 'HEAD';
	const json = { 'content-type': 'application/json', 'cache-control': 'no-store' };
	if (!isLoopbackHost(cfg.host) && !cfg.password) {
		send(
			res,
			503,
			json,
			JSON.stringify({ error: 'Non-loopback bind without GEXDECK_PASSWORD.' }),
			head
		);
		return true;
	}
	if (cfg.password && !sessionValid(cookie(req.headers.cookie, SESSION_COOKIE))) {
		send(res, 401, json, JSON.stringify({ error: 'Log in first.' }), head);
		return true;
	}
	const q = rawUrl.indexOf('?');
	let path: string;
	try {
		// Decoded like SvelteKit decodes a rest parameter.
		path = decodeURIComponent(rawUrl.slice(5, q === -1 ? undefined : q));
	} catch {
		send(res, 400, json, JSON.stringify({ error: 'Malformed path.', reason: 'invalid' }), head);
		return true;
	}
	const query = new URLSearchParams(q === -1 ? '' : rawUrl.slice(q + 1));
	upstreamProxy()
		.handle(method, path, query)
		.then(
			(result) => send(res, result.status, result.headers, result.body, head),
			(err: unknown) =>
				send(
					res,
					500,
					json,
					JSON.stringify({ error: `Proxy failure: ${(err as Error).message}` }),
					head
				)
		);
	return true;
};
