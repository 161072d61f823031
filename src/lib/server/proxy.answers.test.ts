/**
 * The proxy's key guard and what it makes of upstream answers, against a stand-in upstream over
 * a real socket: which refusal a missing, rejected or rate-limited key gets (and that no data
 * request goes out), the whoami cache, and how redirects, gateway pages and passed headers
 * reach the browser.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { generateKey } from '$lib/contract/keys';
import { PoolBackoff } from './backoff';
import { QuotaLedger } from './quotaLedger';
import { UpstreamProxy } from './proxy';
import type { UpstreamTarget } from './upstream';

const customKey = generateKey('custom');
const researchKey = generateKey('research');
const ACCOUNT = { _id: 'acct-q', max_level: 'quant', addons: ['research'] };
const seen: IncomingMessage[] = [];
let whoami: (res: ServerResponse) => void;
let data: (res: ServerResponse) => void;
let server: Server;
let base: string;

beforeAll(async () => {
	server = createServer((req, res) => {
		seen.push(req);
		if (req.url === '/v2/whoami') return whoami(res);
		data(res);
	});
	await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
	base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));
beforeEach(() => {
	seen.length = 0;
	whoami = (res) => res.setHeader('content-type', 'application/json').end(JSON.stringify(ACCOUNT));
	data = (res) =>
		res.setHeader('content-type', 'application/json').end('{"timestamp":1,"ticker":"SPX"}');
});

function proxyWith(
	keys: { custom?: string; research?: string } = { custom: customKey },
	root = base
) {
	const target: UpstreamTarget = {
		baseUrl: `${root}/v2`,
		rootUrl: root,
		kind: 'configured',
		customKey: keys.custom,
		researchKey: keys.research,
		customKeySource: 'environment',
		researchKeySource: 'environment',
		demoAccounts: [],
		demoAccountId: undefined
	};
	const ledger = new QuotaLedger();
	return new UpstreamProxy({
		target: async () => target,
		ledger,
		userAgent: 'gexdeck/test',
		backoff: new PoolBackoff({ baseMs: 60_000, random: () => 0.5 }),
		coalesceMs: 0
	});
}

const get = (proxy: UpstreamProxy, path: string) =>
	proxy.handle('GET', path, new URLSearchParams());
const bodyOf = (r: { body: Uint8Array | string }) =>
	JSON.parse(typeof r.body === 'string' ? r.body : Buffer.from(r.body).toString());
const whoamiCalls = () => seen.filter((r) => r.url === '/v2/whoami').length;
const dataCalls = () => seen.filter((r) => r.url !== '/v2/whoami').length;

describe('the key guard', () => {
	it('refuses a keyless route it cannot serve with what to configure, asking nothing', async () => {
		const none = await get(proxyWith({}), 'SPX/classic/gex_full');
		expect(none.status).toBe(403);
		expect(none.headers['x-gexdeck-refused']).toBe('no-key');
		expect(none.headers['cache-control']).toBe('no-store');
		expect(bodyOf(none)).toMatchObject({
			reason: 'no-key',
			route: 'classicChain',
			requires: 'Classic package',
			error: expect.stringContaining('GEXDECK_API_KEY')
		});
		const research = await get(proxyWith({ custom: customKey }), 'research/SPX/gex_oi');
		expect(bodyOf(research)).toMatchObject({
			reason: 'no-key',
			requires: 'Research add-on and a Research key',
			error: expect.stringContaining('No Research key is configured')
		});
		expect(seen).toHaveLength(0);
	});

	it('a key the upstream rejects, rate-limits or cannot check is refused without a data request', async () => {
		const cases: [number, number, string, RegExp][] = [
			[401, 401, 'key-rejected', /rejected the configured custom key \(whoami answered 401\)/],
			[403, 401, 'key-rejected', /whoami answered 403/],
			[429, 429, 'backoff', /rate limiting this account/],
			[500, 502, 'unreachable', /failing: whoami answered 500/],
			[503, 502, 'unreachable', /whoami answered 503/]
		];
		for (const [upstream, status, reason, error] of cases) {
			whoami = (res) => res.writeHead(upstream).end('{"error":"no"}');
			const res = await get(proxyWith(), 'SPX/classic/gex_full');
			expect(res.status, String(upstream)).toBe(status);
			expect(bodyOf(res), String(upstream)).toMatchObject({ reason });
			expect(bodyOf(res).error, String(upstream)).toMatch(error);
		}
		expect(dataCalls()).toBe(0);
	});

	it('an unreachable upstream is a 502 that names no key', async () => {
		const closed = createServer();
		await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
		const port = (closed.address() as AddressInfo).port;
		await new Promise<void>((r) => closed.close(() => r()));
		const r = await get(
			proxyWith({ custom: customKey }, `http://127.0.0.1:${port}`),
			'SPX/classic/gex_full'
		);
		expect(r.status).toBe(502);
		expect(r.headers['x-gexdeck-refused']).toBe('unreachable');
		expect(bodyOf(r).error).toMatch(/^Upstream unreachable: /);
		expect(JSON.stringify(r)).not.toContain(customKey);
	});

	it('keeps a good whoami for a minute per key; a failed one is asked again', async () => {
		const proxy = proxyWith();
		await get(proxy, 'SPX/classic/gex_full');
		await get(proxy, 'SPX/classic/gex_zero');
		expect(whoamiCalls()).toBe(1);
		proxy.forgetAccounts();
		await get(proxy, 'SPX/classic/gex_one');
		expect(whoamiCalls()).toBe(2);

		seen.length = 0;
		const failing = proxyWith();
		whoami = (res) => res.writeHead(500).end();
		await get(failing, 'SPX/classic/gex_full');
		whoami = (res) => res.writeHead(401).end();
		expect((await get(failing, 'SPX/classic/gex_full')).status).toBe(401);
		whoami = (res) =>
			res.setHeader('content-type', 'application/json').end(JSON.stringify(ACCOUNT));
		expect((await get(failing, 'SPX/classic/gex_full')).status).toBe(200);
		expect(whoamiCalls()).toBe(3);
	});

	it('sends the account key as a Bearer token, the research key on research routes', async () => {
		const proxy = proxyWith({ custom: customKey, research: researchKey });
		await get(proxy, 'SPX/classic/gex_full');
		await get(proxy, 'research/SPX/gex_oi');
		const auth = seen.filter((r) => r.url !== '/v2/whoami').map((r) => r.headers.authorization);
		expect(auth).toEqual([`Bearer ${customKey}`, `Bearer ${researchKey}`]);
	});
});

describe('upstream answers', () => {
	it('hands a redirect over as data, never as a redirect', async () => {
		data = (res) => res.writeHead(302, { location: 'https://dl.example/SPX.zip?sig=abc' }).end();
		const r = await get(proxyWith(), 'hist/SPX/classic/gex_full/2026-11-20');
		expect(r.status).toBe(200);
		expect(r.headers['content-type']).toBe('application/json; charset=utf-8');
		expect(r.headers.location).toBeUndefined();
		expect(bodyOf(r)).toEqual({ url: 'https://dl.example/SPX.zip?sig=abc' });
		// A 3xx without a Location is passed as it is.
		data = (res) => res.writeHead(304).end();
		expect((await get(proxyWith(), 'hist/SPX/classic/gex_full/2026-11-19')).status).toBe(304);
		// Only a 3xx with a Location is handed over as data: 300 is one, a 201 or 400 that names
		// a Location is the upstream's own answer.
		data = (res) => res.writeHead(300, { location: 'https://dl.example/a.zip' }).end();
		expect(bodyOf(await get(proxyWith(), 'hist/SPX/classic/gex_full/2026-11-18'))).toEqual({
			url: 'https://dl.example/a.zip'
		});
		for (const status of [201, 400]) {
			data = (res) =>
				res
					.writeHead(status, { location: '/x', 'content-type': 'application/json' })
					.end('{"ok":1}');
			const r = await get(proxyWith(), 'hist/SPX/classic/gex_full/2026-11-17');
			expect(r.status, String(status)).toBe(status);
			expect(bodyOf(r), String(status)).toEqual({ ok: 1 });
		}
	});

	it("turns a gateway's HTML error page into a refusal; a JSON error passes", async () => {
		data = (res) => res.writeHead(502, { 'content-type': 'text/html' }).end('<h1>Bad gateway</h1>');
		const html = await get(proxyWith(), 'SPX/classic/gex_full');
		expect(html.status).toBe(502);
		expect(html.headers['x-gexdeck-refused']).toBe('upstream-error');
		expect(bodyOf(html).error).toBe(
			'The upstream answered 502 without an error message; try again shortly.'
		);
		data = (res) => res.writeHead(500).end('oops');
		expect((await get(proxyWith(), 'SPX/classic/gex_full')).headers['x-gexdeck-refused']).toBe(
			'upstream-error'
		);
		data = (res) =>
			res
				.writeHead(500, { 'content-type': 'application/json; charset=utf-8' })
				.end('{"error":"Internal"}');
		const json = await get(proxyWith(), 'SPX/classic/gex_full');
		expect(json.status).toBe(500);
		expect(json.headers['x-gexdeck-refused']).toBeUndefined();
		expect(bodyOf(json)).toEqual({ error: 'Internal' });
		// A 4xx page is the upstream's own answer.
		data = (res) => res.writeHead(404, { 'content-type': 'text/plain' }).end('none');
		expect((await get(proxyWith(), 'SPX/classic/gex_full')).status).toBe(404);
	});

	it('labels an answer with its route and pool, no-store, and passes Retry-After only', async () => {
		data = (res) => res.writeHead(200, { 'retry-after': '7', 'x-secret': 's' }).end('raw');
		const r = await get(proxyWith(), 'SPX/classic/gex_full');
		expect(r.headers).toEqual({
			'content-type': 'application/octet-stream',
			'cache-control': 'no-store',
			'x-gexdeck-route': 'classicChain',
			'x-gexdeck-coalesced': 'miss',
			'x-gexdeck-pool': expect.any(String),
			'retry-after': '7'
		});
		data = (res) => res.setHeader('content-type', 'application/json').end('[]');
		const pub = await get(proxyWith(), 'tickers/quant');
		expect(pub.headers['x-gexdeck-pool']).toBeUndefined();
		expect('retry-after' in pub.headers).toBe(false);
		expect(pub.headers['content-type']).toBe('application/json');
	});
});
