/**
 * The /api proxy against a misbehaving upstream, over real sockets: 500/502/503 answers (JSON or
 * not), an answer that never comes, one that trickles a byte a second, one cut off mid-body, a
 * whoami that fails with 5xx, a 429 storm; and the embedded service killed and restarted. The
 * proxy never hangs or throws, calls the upstream only as often as its backoff allows (calls are
 * counted), and its error body says what is happening.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { generateKey } from '../../src/lib/contract/keys';
import { PoolBackoff } from '../../src/lib/server/backoff';
import { httpGet } from '../../src/lib/server/httpClient';
import { QuotaLedger } from '../../src/lib/server/quotaLedger';
import { UpstreamProxy, type ProxyResult } from '../../src/lib/server/proxy';
import type { UpstreamTarget } from '../../src/lib/server/upstream';
import { demoAccountsFor } from '../../src/service/accounts/demo';
import { configuredTarget, spawnService } from './service-support';

const key = generateKey('custom');
const dir = mkdtempSync(join(tmpdir(), 'gexdeck-proxy-faults-'));
/** How the fake upstream answers data routes (whoami always answers `whoami`). */
let answer: (res: ServerResponse) => void = (res) => res.end('{}');
let whoami: (res: ServerResponse) => void = (res) =>
	res.end(JSON.stringify({ _id: 'acct', max_level: 'quant', addons: [] }));
let dataCalls = 0;
const held: ServerResponse[] = [];
const timers: NodeJS.Timeout[] = [];
const upstream = createServer((req, res) => {
	res.setHeader('content-type', 'application/json');
	if (req.url === '/v2/whoami') return whoami(res);
	dataCalls++;
	answer(res);
});
let base = '';

beforeAll(async () => {
	await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', r));
	base = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
});
afterEach(() => {
	for (const t of timers.splice(0)) clearInterval(t);
	for (const r of held.splice(0)) r.destroy();
	dataCalls = 0;
	whoami = (res) => res.end(JSON.stringify({ _id: 'acct', max_level: 'quant', addons: [] }));
});
afterAll(() => {
	upstream.closeAllConnections();
	upstream.close();
	rmSync(dir, { recursive: true, force: true });
});

const target = (baseUrl: string, customKey = key) => configuredTarget(`${baseUrl}/v2`, customKey);

function proxyFor(t: () => UpstreamTarget, get: typeof httpGet = httpGet) {
	return new UpstreamProxy({
		target: async () => t(),
		ledger: new QuotaLedger(),
		userAgent: 'gexdeck/test',
		backoff: new PoolBackoff({ baseMs: 10_000, random: () => 0.5 }),
		get,
		coalesceMs: 0
	});
}

const bodyOf = (r: ProxyResult) =>
	JSON.parse(typeof r.body === 'string' ? r.body : Buffer.from(r.body).toString()) as {
		error: string;
		reason?: string;
	};

const chain = (p: UpstreamProxy) => p.handle('GET', 'SPX/classic/gex_full', new URLSearchParams());

describe('proxy against a faulty upstream', () => {
	for (const status of [500, 502, 503]) {
		it(`${status} with an error body is passed on with its words`, async () => {
			answer = (res) => res.writeHead(status).end(`{"error":"upstream says ${status}"}`);
			const r = await chain(proxyFor(() => target(base)));
			expect(r.status).toBe(status);
			expect(bodyOf(r).error).toBe(`upstream says ${status}`);
		});
	}

	it('a 502 page that is not JSON becomes a JSON error naming the status', async () => {
		answer = (res) =>
			res.writeHead(502, { 'content-type': 'text/html' }).end('<html>Bad gateway</html>');
		const r = await chain(proxyFor(() => target(base)));
		expect(r.status).toBe(502);
		expect(r.headers['content-type']).toMatch(/^application\/json/);
		expect(bodyOf(r)).toMatchObject({ reason: 'upstream-error' });
		expect(bodyOf(r).error).toMatch(/502/);
	});

	it('an answer that never comes is cut after the route timeout with a clear error', async () => {
		answer = (res) => void held.push(res);
		const t0 = Date.now();
		const r = await chain(proxyFor(() => target(base)));
		expect(Date.now() - t0).toBeLessThan(9_000);
		expect(r.status).toBe(502);
		expect(bodyOf(r)).toMatchObject({ reason: 'unreachable' });
		expect(bodyOf(r).error).toMatch(/timed out/);
	}, 15_000);

	it('an answer trickling one byte a second is cut at the same bound', async () => {
		answer = (res) => {
			res.writeHead(200);
			held.push(res);
			timers.push(setInterval(() => res.write(' '), 1000));
		};
		const t0 = Date.now();
		const r = await chain(proxyFor(() => target(base)));
		expect(Date.now() - t0).toBeLessThan(9_000);
		expect(r.status).toBe(502);
		expect(bodyOf(r).error).toMatch(/timed out/);
	}, 15_000);

	it('an answer cut off mid-body is a 502, not a hang or a half body', async () => {
		answer = (res) => {
			res.writeHead(200, { 'content-length': '1000' });
			res.write('{"partial":');
			setTimeout(() => res.destroy(), 20);
		};
		const r = await chain(proxyFor(() => target(base)));
		expect(r.status).toBe(502);
		expect(bodyOf(r).reason).toBe('unreachable');
	});

	it('a whoami failing with 503 says the upstream is failing, not that the key is bad', async () => {
		whoami = (res) => res.writeHead(503).end('{"error":"Service unavailable."}');
		const r = await chain(proxyFor(() => target(base)));
		expect(r.status).toBe(502);
		expect(bodyOf(r).reason).toBe('unreachable');
		expect(bodyOf(r).error).toMatch(/503/);
		expect(dataCalls).toBe(0);
	});

	it('a 429 storm reaches the upstream once, then is held locally with Retry-After', async () => {
		answer = (res) =>
			res.writeHead(429, { 'retry-after': '30' }).end('{"error":"Rate limit exceeded."}');
		const proxy = proxyFor(() => target(base));
		const answers: ProxyResult[] = [];
		for (let i = 0; i < 40; i++) answers.push(await chain(proxy));
		expect(dataCalls).toBe(1);
		expect(answers.every((a) => a.status === 429)).toBe(true);
		const held = answers.at(-1)!;
		expect(bodyOf(held).reason).toBe('backoff');
		expect(bodyOf(held).error).toMatch(/rate limited upstream/);
		expect(Number(held.headers['retry-after'])).toBeGreaterThan(0);
	});
});

describe('proxy against the embedded service killed and restarted', () => {
	const children: ChildProcess[] = [];
	afterAll(() => {
		for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
	});

	async function startService(port: number): Promise<{ child: ChildProcess; root: string }> {
		const { child, url } = await spawnService({ dataDir: join(dir, 'service'), port });
		children.push(child);
		return { child, root: url.replace(/\/v2$/, '') };
	}

	it('answers 502 with the reason while the service is down, and 200 again after', async () => {
		const quant = demoAccountsFor(join(dir, 'service')).accounts.find(
			(a) => a._id === 'demo-quant'
		)!.keys[0].key;
		const first = await startService(0);
		const port = Number(new URL(first.root).port);
		const proxy = proxyFor(() => target(first.root, quant));
		const ok = async () => {
			for (let i = 0; i < 100; i++) {
				const r = await chain(proxy);
				if (r.status === 200) return r;
				await new Promise((res) => setTimeout(res, 100));
			}
			throw new Error('no 200 from the service');
		};
		await ok();
		first.child.kill('SIGKILL');
		await new Promise((r) => first.child.once('exit', r));
		const down = await chain(proxy);
		expect(down.status).toBe(502);
		expect(bodyOf(down)).toMatchObject({ reason: 'unreachable' });
		expect(bodyOf(down).error).toMatch(/Upstream unreachable: .*ECONNREFUSED/);
		await startService(port);
		await ok();
	}, 60_000);
});
