/**
 * Helpers of the dashboard integration tests: a stub upstream (GEXDECK_UPSTREAM, so no embedded
 * service has to warm up), the built dashboard started the way users start it (`npm start` =
 * scripts/start.js, or adapter-node's own `node build`) on a free loopback port with a fresh data
 * folder (the starter is tests/support/processes.ts, shared with the benchmarks), and raw HTTP
 * requests whose Host/Origin/Cookie headers fetch() would not let us forge.
 */
import { createServer, request, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import WebSocket from 'ws';
import type { RunningDashboard } from '../support/processes';

export {
	freePort,
	root,
	runToExit,
	startDashboard,
	type RunningDashboard
} from '../support/processes';

export const TEST_KEY = `gexbot_custom_${'B'.repeat(43)}`;

export interface StubUpstream {
	server: Server;
	/** `http://127.0.0.1:<port>/v2` */
	url: string;
	/** The two variables that point a dashboard at it: GEXDECK_UPSTREAM and GEXDECK_API_KEY. */
	env: { GEXDECK_UPSTREAM: string; GEXDECK_API_KEY: string };
	userAgents: string[];
	close(): Promise<void>;
}

/** A stand-in upstream: /v2/tickers and /v2/whoami answer, everything else 404. */
export async function startStubUpstream(): Promise<StubUpstream> {
	const userAgents: string[] = [];
	const server = createServer((req, res) => {
		userAgents.push(String(req.headers['user-agent']));
		res.setHeader('content-type', 'application/json');
		if (req.url === '/v2/tickers') return res.end('{"stocks":[],"indexes":["SPX"],"futures":[]}');
		if (req.url === '/v2/whoami') {
			return res.end(
				JSON.stringify({
					_id: 'acct',
					role: 'user',
					max_level: 'quant',
					level: ['classic', 'state', 'orderflow', 'quant'],
					addons: ['research'],
					permissions: [],
					entitlements: {},
					api_key: { id: 'gexbot_custom_…BBBB', integration: 'custom' }
				})
			);
		}
		res.writeHead(404).end('{"error":"not found"}');
	});
	await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
	const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v2`;
	return {
		server,
		url,
		env: { GEXDECK_UPSTREAM: url, GEXDECK_API_KEY: TEST_KEY },
		userAgents,
		close: () => new Promise<void>((r) => server.close(() => r()))
	};
}

export interface RawAnswer {
	status: number;
	headers: IncomingMessage['headers'];
	body: string;
}

/** One request with exactly these headers (Host, Origin, Cookie included), to 127.0.0.1. */
export function rawRequest(
	port: number,
	method: string,
	path: string,
	headers: Record<string, string> = {},
	body?: string
): Promise<RawAnswer> {
	return new Promise((resolve, reject) => {
		const req = request(
			{
				host: '127.0.0.1',
				port,
				method,
				path,
				headers: { host: `127.0.0.1:${port}`, ...headers },
				setHost: false
			},
			(res) => {
				let text = '';
				res.setEncoding('utf8');
				res.on('data', (c: string) => (text += c));
				res.on('end', () =>
					resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text })
				);
				res.on('error', reject);
			}
		);
		req.on('error', reject);
		req.end(body);
	});
}

/** An upgrade request to `path`: the status line the server answered, or 101 on a WebSocket. */
export function upgradeStatus(
	port: number,
	path: string,
	headers: Record<string, string> = {}
): Promise<{ status: number; body: string }> {
	return new Promise((resolve, reject) => {
		const req = request({
			host: '127.0.0.1',
			port,
			path,
			setHost: false,
			headers: {
				host: `127.0.0.1:${port}`,
				connection: 'Upgrade',
				upgrade: 'websocket',
				'sec-websocket-version': '13',
				'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==',
				...headers
			}
		});
		req.on('upgrade', (res, socket) => {
			socket.destroy();
			resolve({ status: res.statusCode ?? 0, body: '' });
		});
		req.on('response', (res) => {
			let body = '';
			res.on('data', (c: Buffer) => (body += c.toString()));
			res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
		});
		req.on('error', reject);
		req.end();
	});
}

/** Cookies set by an answer, name -> value. */
export function setCookies(headers: Headers | IncomingMessage['headers']): Record<string, string> {
	const list =
		headers instanceof Headers
			? headers.getSetCookie()
			: ([] as string[]).concat(headers['set-cookie'] ?? []);
	const out: Record<string, string> = {};
	for (const c of list) {
		const [pair] = c.split(';');
		const i = pair.indexOf('=');
		out[pair.slice(0, i)] = pair.slice(i + 1);
	}
	return out;
}

/** A login form of this dashboard: its CSRF token and the headers a same-origin form sends. */
export async function loginForm(
	d: RunningDashboard
): Promise<{ csrf: string; headers: Record<string, string> }> {
	const page = await rawRequest(d.port, 'GET', '/login');
	const csrf = setCookies(page.headers).gexdeck_csrf;
	return {
		csrf,
		headers: {
			origin: d.base,
			accept: 'text/html',
			cookie: `gexdeck_csrf=${csrf}`,
			'content-type': 'application/x-www-form-urlencoded'
		}
	};
}

/** Posts the login form with `password` (and `next`); the answer and the session cookie. */
export async function logIn(
	d: RunningDashboard,
	password: string,
	next?: string
): Promise<{
	csrf: string;
	headers: Record<string, string>;
	session: string | undefined;
	answer: RawAnswer;
}> {
	const { csrf, headers } = await loginForm(d);
	const fields: Record<string, string> = { csrf, password };
	if (next !== undefined) fields.next = next;
	const answer = await rawRequest(
		d.port,
		'POST',
		'/login?/login',
		headers,
		new URLSearchParams(fields).toString()
	);
	return { csrf, headers, session: setCookies(answer.headers).gexdeck_session, answer };
}

/**
 * Opens `<base>/stream` (the dashboard's relay), subscribes to one group and resolves with the
 * socket and the first binary frame; the caller closes the socket.
 */
export function streamFrame(base: string): Promise<{ ws: WebSocket; frame: Buffer }> {
	const ws = new WebSocket(`${base.replace('http:', 'ws:')}/stream`);
	return new Promise<{ ws: WebSocket; frame: Buffer }>((resolve, reject) => {
		const timer = setTimeout(() => reject(new Error('no /stream frame within 60 s')), 60_000);
		ws.on('open', () =>
			ws.send(JSON.stringify({ type: 'subscribe', id: 1, groups: ['SPX_classic_gex_full'] }))
		);
		ws.on('message', (data, binary) => {
			if (!binary) return;
			clearTimeout(timer);
			resolve({ ws, frame: data as Buffer });
		});
		ws.on('error', reject);
	}).catch((e: unknown) => {
		ws.close();
		throw e;
	});
}
