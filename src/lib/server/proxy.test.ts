import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import fc from 'fast-check';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { generateKey } from '$lib/contract/keys';
import { PoolBackoff } from './backoff';
import { QuotaLedger } from './quotaLedger';
import { UpstreamProxy } from './proxy';
import type { UpstreamTarget } from './upstream';
import { UpdateTap, type ReceivedUpdate } from './updates/tap';

/** A stand-in upstream that records what reaches it. */
const classicKey = generateKey('custom');
const quantKey = generateKey('custom');
const researchKey = generateKey('research');
const seen: IncomingMessage[] = [];
let mode:
	| 'ok'
	| '429'
	| 'leak-location'
	| 'leak-disposition'
	| 'leak-body'
	| 'leak-body-large'
	| 'disposition-ok'
	| 'disposition-bad'
	| 'disposition-research' = 'ok';
let server: Server;
let base: string;

function account(key: string | undefined) {
	if (key === classicKey) return { _id: 'acct-classic', max_level: 'classic', addons: [] };
	if (key === quantKey || key === researchKey) {
		return {
			_id: 'acct-quant',
			max_level: 'quant',
			addons: ['research'],
			api_key: { id: 'gexbot_custom_…abcd' }
		};
	}
	return undefined;
}

beforeAll(async () => {
	server = createServer((req, res) => {
		seen.push(req);
		const key = req.headers.authorization?.replace(/^Bearer /, '');
		const acct = account(key);
		res.setHeader('content-type', 'application/json');
		if (req.url === '/v2/whoami') {
			if (!acct) return res.writeHead(401).end('{"error":"Invalid API key."}');
			return res.end(JSON.stringify(acct));
		}
		if (mode === '429') return res.writeHead(429).end('{"error":"Rate limit exceeded."}');
		if (mode === 'leak-location') {
			return res.writeHead(302, { location: `https://dl.example/x.zip?k=${key}` }).end();
		}
		// An upstream that echoes the request's credentials in its answer (a debugging proxy,
		// an error page quoting the header); the large one splits the key across TCP chunks.
		if (mode === 'leak-body') {
			return res.end(JSON.stringify({ error: `Bad request`, authorization: `Bearer ${key}` }));
		}
		if (mode === 'leak-body-large') {
			const pad = 'x'.repeat(256 * 1024 - 7);
			return res.end(`{"a":"${pad}","echo":"${key}","b":"${pad}"}`);
		}
		const disposition = {
			'leak-disposition': `attachment; filename="${key}.zip"`,
			'disposition-ok': 'attachment; filename="SPX_2026-11-20.zip"',
			'disposition-bad': 'attachment; filename="../../etc/passwd"; x=\\evil',
			'disposition-research': 'inline; filename="^SPX_gex_oi.csv"'
		}[mode as string];
		if (disposition) res.setHeader('content-disposition', disposition);
		// Answer slowly so concurrent requests overlap.
		setTimeout(() => res.end(JSON.stringify({ path: req.url, timestamp: 1 })), 30);
	});
	await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
	base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => new Promise<void>((r) => server.close(() => r())));

function proxyWith(
	customKey: string | undefined,
	research: string | null = researchKey,
	tap?: UpdateTap
) {
	const target: UpstreamTarget = {
		baseUrl: `${base}/v2`,
		rootUrl: base,
		kind: 'configured',
		customKey,
		researchKey: research ?? undefined,
		customKeySource: 'environment',
		researchKeySource: 'environment',
		demoAccounts: [],
		demoAccountId: undefined
	};
	const ledger = new QuotaLedger();
	const backoff = new PoolBackoff({ baseMs: 60_000, random: () => 0.5 });
	return {
		proxy: new UpstreamProxy({
			target: async () => target,
			ledger,
			userAgent: 'gexdeck/test',
			backoff,
			tap
		}),
		ledger
	};
}

const dataCalls = () => seen.filter((r) => r.url !== '/v2/whoami');
const text = (b: Uint8Array | string) => (typeof b === 'string' ? b : Buffer.from(b).toString());

beforeEach(() => {
	seen.length = 0;
	mode = 'ok';
});

describe('UpstreamProxy', () => {
	it('publishes each upstream snapshot of a live route once on the update tap', async () => {
		const tap = new UpdateTap();
		const got: ReceivedUpdate[] = [];
		tap.subscribe((u) => got.push(u));
		const { proxy } = proxyWith(quantKey, researchKey, tap);
		// Two tabs asking within the 1 s cadence share one upstream call: one update.
		await Promise.all([
			proxy.handle('GET', 'SPX/classic/full', new URLSearchParams()),
			proxy.handle('GET', 'SPX/classic/gex_full', new URLSearchParams())
		]);
		await proxy.handle('GET', 'SPX/classic/full/majors', new URLSearchParams());
		expect(got).toHaveLength(1);
		expect(got[0]).toMatchObject({ source: 'snapshot', ticker: 'SPX', stream: 'classic_gex_full' });
		expect(got[0].source === 'snapshot' && JSON.parse(got[0].json).path).toBe(
			'/v2/SPX/classic/gex_full'
		);
	});

	it('forwards a documented route with key, User-Agent and Accept, canonical category', async () => {
		const { proxy } = proxyWith(quantKey);
		const res = await proxy.handle('GET', 'SPX/classic/full', new URLSearchParams());
		expect(res.status).toBe(200);
		expect(JSON.parse(text(res.body)).path).toBe('/v2/SPX/classic/gex_full');
		const call = dataCalls()[0];
		expect(call.headers.authorization).toBe(`Bearer ${quantKey}`);
		expect(call.headers['user-agent']).toBe('gexdeck/test');
		expect(call.headers.accept).toBe('application/json');
	});

	it('serves root routes at the root and public routes without a key', async () => {
		const { proxy } = proxyWith(quantKey);
		await proxy.handle('GET', 'tickers/quant', new URLSearchParams());
		await proxy.handle('GET', 'classic/categories', new URLSearchParams());
		const calls = dataCalls();
		expect(calls.map((c) => c.url)).toEqual(['/tickers/quant', '/classic/categories']);
		expect(calls.every((c) => c.headers.authorization === undefined)).toBe(true);
	});

	it('refuses off-list paths, bad parameters and unknown query names without calling upstream', async () => {
		const { proxy } = proxyWith(quantKey);
		const cases: [string, string, number][] = [
			['etc/passwd', '', 404],
			['..%2F..%2Fadmin', '', 404],
			['http:%2F%2Fevil.example/x', '', 404],
			['SPX/classic/bogus', '', 400],
			['NOPE/classic/gex_full', '', 400],
			['SPX/classic/gex_full', 'host=evil.example', 400],
			['negotiate', '', 404]
		];
		for (const [path, q, status] of cases) {
			const res = await proxy.handle('GET', path, new URLSearchParams(q));
			expect(res.status, path).toBe(status);
		}
		expect((await proxy.handle('POST', 'negotiate', new URLSearchParams())).status).toBe(405);
		expect(seen).toHaveLength(0);
	});

	it('refuses a route the key cannot serve, with the reason, and sends no data request', async () => {
		const { proxy } = proxyWith(classicKey);
		const res = await proxy.handle('GET', 'SPX/state/gex_full', new URLSearchParams());
		expect(res.status).toBe(403);
		const body = JSON.parse(text(res.body));
		expect(body.reason).toBe('locked');
		expect(body.requires).toBe('State package');
		expect(dataCalls()).toHaveLength(0);
	});

	it('sends research routes with the research key only', async () => {
		const { proxy } = proxyWith(quantKey);
		const res = await proxy.handle(
			'GET',
			'research/SPX/gex_oi',
			new URLSearchParams('format=json')
		);
		expect(res.status).toBe(200);
		expect(dataCalls()[0].headers.authorization).toBe(`Bearer ${researchKey}`);
		const noResearch = proxyWith(quantKey, null).proxy;
		const refused = await noResearch.handle('GET', 'research/SPX/gex_oi', new URLSearchParams());
		expect(JSON.parse(text(refused.body)).reason).toBe('no-key');
	});

	it('coalesces 100 concurrent identical GETs into one upstream call', async () => {
		const { proxy } = proxyWith(quantKey);
		await proxy.account({ baseUrl: `${base}/v2`, rootUrl: base } as UpstreamTarget, quantKey);
		const results = await Promise.all(
			Array.from({ length: 100 }, () =>
				proxy.handle('GET', 'SPX/classic/gex_zero', new URLSearchParams())
			)
		);
		expect(results.every((r) => r.status === 200)).toBe(true);
		expect(dataCalls()).toHaveLength(1);
		// A repeat within the 1 s cadence is served from the same call too.
		const again = await proxy.handle('GET', 'SPX/classic/zero', new URLSearchParams());
		expect(again.headers['x-gexdeck-coalesced']).toBe('hit');
		expect(dataCalls()).toHaveLength(1);
	});

	it('holds a pool after a 429 and counts spending per pool', async () => {
		const { proxy, ledger } = proxyWith(quantKey);
		mode = '429';
		const first = await proxy.handle('GET', 'SPX/classic/gex_one', new URLSearchParams());
		expect(first.status).toBe(429);
		mode = 'ok';
		const held = await proxy.handle('GET', 'SPX/classic/gex_one/majors', new URLSearchParams());
		expect(held.status).toBe(200); // another pool is not affected
		const same = await proxy.handle('GET', 'NDX/classic/gex_full', new URLSearchParams());
		expect(same.status).toBe(429);
		expect(same.headers['x-gexdeck-refused']).toBe('backoff');
		expect(dataCalls().map((c) => c.url)).toEqual([
			'/v2/SPX/classic/gex_one',
			'/v2/SPX/classic/gex_one/majors'
		]);
		const usage = ledger.usage('acct-quant');
		expect(usage.api_default.daily.rateLimited).toBe(1);
		expect(usage.api_majors.daily.requests).toBe(1);
	});

	it('never returns the key in a response', async () => {
		const { proxy } = proxyWith(quantKey);
		const res = await proxy.handle('GET', 'whoami', new URLSearchParams());
		expect(text(res.body)).not.toContain(quantKey);
	});

	it('withholds an answer whose body, Location or passed headers carry the key', async () => {
		const { proxy } = proxyWith(quantKey);
		const leaks = ['leak-location', 'leak-disposition', 'leak-body', 'leak-body-large'] as const;
		for (const leak of leaks) {
			mode = leak;
			// A live route (coalesced, published on the tap) and a download route alike.
			for (const path of ['SPX/classic/gex_full', 'hist/eod/SPX']) {
				const res = await proxy.handle('GET', path, new URLSearchParams());
				expect(res.status, `${leak} ${path}`).toBe(502);
				expect(res.headers['x-gexdeck-refused'], `${leak} ${path}`).toBe('unreachable');
				expect(text(res.body), `${leak} ${path}`).toContain('withheld');
				expect(JSON.stringify(res), `${leak} ${path}`).not.toContain(quantKey);
			}
		}
		// The research key on a research route, too.
		const { proxy: research } = proxyWith(undefined, researchKey);
		mode = 'leak-body';
		const res = await research.handle('GET', 'research/^SPX/gex_oi', new URLSearchParams());
		expect(res.status).toBe(502);
		expect(text(res.body)).not.toContain(researchKey);
	});

	it('passes content-disposition only with a safe file name', async () => {
		const { proxy } = proxyWith(quantKey);
		// The names the embedded service gives its downloads pass.
		mode = 'disposition-research';
		const research = await proxy.handle('GET', 'research/^SPX/gex_oi', new URLSearchParams());
		expect(research.headers['content-disposition']).toBe('inline; filename="^SPX_gex_oi.csv"');
		mode = 'disposition-ok';
		const ok = await proxy.handle('GET', 'hist/eod/SPX', new URLSearchParams());
		expect(ok.headers['content-disposition']).toBe('attachment; filename="SPX_2026-11-20.zip"');
		mode = 'disposition-bad';
		const bad = await proxy.handle('GET', 'hist/eod/QQQ', new URLSearchParams());
		expect(bad.status).toBe(200);
		expect(bad.headers['content-disposition']).toBeUndefined();
	});

	it('resolves research tickers with ^ or answers 400, never an internal error', async () => {
		const { proxy } = proxyWith(quantKey);
		const res = await proxy.handle('GET', 'research/^SPX/gex_oi', new URLSearchParams());
		expect(res.status).toBe(200);
		expect(dataCalls()[0].url).toBe('/v2/research/%5ESPX/gex_oi');
	});

	it('memoises successful plans only, capped', async () => {
		const { proxy } = proxyWith(undefined);
		for (let i = 0; i < 3000; i++) {
			await proxy.handle('GET', `${'x'.repeat(500)}/${i}`, new URLSearchParams());
			await proxy.handle('GET', `NOPE${i}/classic/gex_full`, new URLSearchParams());
		}
		expect(proxy.planCache.entries).toBe(0);
		for (let i = 0; i < 2500; i++) {
			await proxy.handle('GET', 'tickers', new URLSearchParams(`i=${i}`));
			await proxy.handle('GET', 'SPX/classic/gex_full', new URLSearchParams(`key=${i}`));
		}
		expect(proxy.planCache.entries).toBe(0); // unknown query names are refusals too
		for (let i = 0; i < 2500; i++) {
			await proxy.handle(
				'GET',
				`hist/SPX/classic/gex_full/2026-01-0${(i % 9) + 1}`,
				new URLSearchParams(`noredirect=${i}`)
			);
		}
		const { entries, bytes } = proxy.planCache;
		expect(entries).toBeLessThanOrEqual(2000);
		expect(bytes).toBeLessThanOrEqual(2 * 1024 * 1024);
	});

	it('never throws or answers 500 for arbitrary paths and queries (fast-check)', async () => {
		const { proxy } = proxyWith(undefined);
		await fc.assert(
			fc.asyncProperty(
				fc.string({ unit: 'binary' }),
				fc.string({ unit: 'binary' }),
				fc.constantFrom('GET', 'HEAD', 'POST', 'DELETE', 'gEt', ''),
				async (path, query, method) => {
					expect(() => UpstreamProxy.resolve(method, path)).not.toThrow();
					const res = await proxy.handle(method, path, new URLSearchParams(query));
					expect(res.status).not.toBe(500);
					expect(res.status).toBeGreaterThanOrEqual(200);
				}
			),
			{ numRuns: 1500 }
		);
	});
});
