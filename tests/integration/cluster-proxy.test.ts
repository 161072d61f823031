/**
 * The proxy's cluster path over real sockets with a real redis-server: three UpstreamProxy
 * instances (three replicas' proxies) share one Redis against an upstream that answers 429.
 * One 429 on any replica holds the pool on all of them (one upstream call for a storm spread
 * over the replicas, different routes of the pool included), and after the hold one probe goes.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateKey } from '../../src/lib/contract/keys';
import { clusterLimits, type ClusterLimits } from '../../src/lib/server/cluster/clusterLimits';
import { openDatabase } from '../../src/lib/server/db/index';
import { UpstreamProxy } from '../../src/lib/server/proxy';
import { QuotaLedger } from '../../src/lib/server/quotaLedger';
import { startRedis, type RunningRedis } from '../support/redis';
import { configuredTarget } from './service-support';

const key = generateKey('custom');
const dir = mkdtempSync(join(tmpdir(), 'gexdeck-cluster-proxy-'));
let answer: (res: ServerResponse) => void = (res) => res.end('{}');
let dataCalls = 0;
const upstream = createServer((req, res) => {
	res.setHeader('content-type', 'application/json');
	if (req.url === '/v2/whoami') {
		return res.end(JSON.stringify({ _id: 'acct', max_level: 'quant', addons: [] }));
	}
	dataCalls++;
	answer(res);
});
let redis: RunningRedis;
const limits: ClusterLimits[] = [];
let proxies: UpstreamProxy[] = [];
let now = 0;

beforeAll(async () => {
	redis = await startRedis();
	await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', r));
	const base = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}/v2`;
	now = Date.now();
	const ledgers = await Promise.all(
		[0, 1, 2].map(async (i) =>
			QuotaLedger.load(await openDatabase({ dataDir: mkdtempSync(join(dir, `l${i}-`)) }))
		)
	);
	proxies = [0, 1, 2].map((i) => {
		const shared = clusterLimits(
			redis.url,
			{},
			{ backoff: { baseMs: 10_000, random: () => 0.5, now: () => now } }
		);
		limits.push(shared);
		return new UpstreamProxy({
			target: async () => configuredTarget(base, key),
			ledger: ledgers[i],
			userAgent: 'gexdeck/test',
			cluster: shared
		});
	});
}, 30_000);

afterAll(async () => {
	for (const l of limits) await l.close();
	upstream.closeAllConnections();
	upstream.close();
	await redis?.stop();
	rmSync(dir, { recursive: true, force: true });
});

describe('three proxies on one Redis', () => {
	it('hold a pool on every replica after one 429, then let one probe through', async () => {
		answer = (res) => res.writeHead(429).end('{"error":"Rate limit exceeded."}');
		const first = await proxies[0].handle('GET', 'SPX/classic/gex_full', new URLSearchParams());
		expect(first.status).toBe(429);
		expect(dataCalls).toBe(1);
		const storm = await Promise.all(
			Array.from({ length: 30 }, (_, i) =>
				proxies[i % 3].handle(
					'GET',
					`${['SPX', 'SPY', 'QQQ'][i % 3]}/classic/${['gex_full', 'gex_zero'][i % 2]}`,
					new URLSearchParams()
				)
			)
		);
		expect(dataCalls).toBe(1);
		for (const r of storm) {
			expect(r.status).toBe(429);
			expect(r.headers['x-gexdeck-refused']).toBe('backoff');
		}
		// After the hold (10 s, jitter fixed at 1x), one probe goes; its success frees every replica.
		now += 10_000;
		answer = (res) => res.end('{"ok":true}');
		const probes = await Promise.all(
			proxies.map((p) => p.handle('GET', 'UNG/classic/gex_one', new URLSearchParams()))
		);
		expect(dataCalls).toBe(2);
		expect(probes.filter((r) => r.status === 200)).toHaveLength(1);
		const after = await proxies[2].handle('GET', 'SPY/classic/gex_one', new URLSearchParams());
		expect(after.status).toBe(200);
		expect(dataCalls).toBe(3);
	}, 30_000);
});
