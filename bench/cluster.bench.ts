/**
 * Cluster benchmark (issue 30, the shared-limits half): what Redis adds to a REST call.
 *
 * 1. End to end: one connection, GET /api/SPX/classic/gex_full one request at a time (hrtime),
 *    against a single dashboard process and against one of three replicas on one real
 *    redis-server, in the same run against the same embedded service. Most answers are shared
 *    within the 1 s cadence, so this is what a tab sees.
 * 2. The Redis hop of an upstream call itself: the shared layer (coalescing lock, quota
 *    reservation, backoff admit and record, answer stored, lock released) around a call that
 *    answers at once, in this process against the same Redis, vs no shared layer.
 * 3. 100 identical parallel GETs spread over the three replicas: upstream calls (misses).
 *
 * 4. The slot lease's hand-over after the holder process is SIGKILLed, 10 kills (cluster.lease.ts).
 * 5. The relay's failover: holder process SIGKILLed to the first frame a surviving replica's
 *    viewer gets from the new holder, 10 kills (cluster.relay.ts).
 *
 * Not measured yet: viewers per replica at 150 memberships and the stream's Redis hop (p50/p99).
 */
import { mkdtempSync } from 'node:fs';
import { Agent, get } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { clusterLimits } from '../src/lib/server/cluster/clusterLimits';
import { sharedCall } from '../src/lib/server/cluster/sharedCall';
import type { UpstreamResponse } from '../src/lib/server/httpClient';
import { startRedis } from '../tests/support/redis';
import { leaseFailover } from './cluster.lease';
import { relayFailover } from './cluster.relay';
import { forkServe, serveUnmetered, startDashboard, upstreamEnv, type Upstream } from './support';

const ROUTE = 'SPX/classic/gex_full';
const N = Number(process.env.BENCH_CLUSTER_REQUESTS ?? 2000);

async function serve(): Promise<void> {
	const { service, key } = await serveUnmetered('demo-quant');
	process.send?.({ baseUrl: service.url, key } satisfies Upstream);
}

function percentiles(times: number[]) {
	times.sort((a, b) => a - b);
	const at = (q: number) => times[Math.min(times.length - 1, Math.floor(times.length * q))];
	return { p50: at(0.5), p99: at(0.99) };
}

async function sequential(url: string, n = N) {
	const agent = new Agent({ keepAlive: true, maxSockets: 1 });
	const once = () =>
		new Promise<number>((resolve, reject) => {
			const t0 = process.hrtime.bigint();
			get(url, { agent }, (res) => {
				res.on('data', () => {});
				res.on('end', () => {
					if (res.statusCode !== 200) reject(new Error(`${url} answered ${res.statusCode}`));
					else resolve(Number(process.hrtime.bigint() - t0) / 1e6);
				});
			}).on('error', reject);
		});
	for (let i = 0; i < 200; i++) await once();
	const times: number[] = [];
	for (let i = 0; i < n; i++) times.push(await once());
	agent.destroy();
	return percentiles(times);
}

async function redisHop(url: string, n = N) {
	const limits = clusterLimits(url, { api_default: { daily: 1e12, monthly: 1e12 } });
	const answer: UpstreamResponse = {
		status: 200,
		contentType: 'application/json',
		headers: {},
		body: Buffer.alloc(20_000, 'x')
	};
	const send = async () => answer;
	const time = async (f: () => Promise<unknown>) => {
		const t0 = process.hrtime.bigint();
		await f();
		return Number(process.hrtime.bigint() - t0) / 1e6;
	};
	const shared: number[] = [];
	const local: number[] = [];
	for (let i = 0; i < n + 200; i++) {
		const plan = {
			key: `bench|${i}`,
			ttlMs: 1000,
			timeoutMs: 5000,
			pool: 'api_default',
			account: 'bench',
			poolId: 'bench|api_default',
			send
		};
		const s = await time(async () => {
			await limits.backoff.admit(plan.poolId);
			await sharedCall(limits, plan);
		});
		const l = await time(send);
		if (i >= 200) {
			shared.push(s);
			local.push(l);
		}
	}
	await limits.close();
	return { shared: percentiles(shared), local: percentiles(local) };
}

async function main(): Promise<void> {
	const { child, ready: upstream } = await forkServe<Upstream>(import.meta.url);
	const redis = await startRedis();
	const dir = () => mkdtempSync(join(tmpdir(), 'gexdeck-bench-cluster-'));
	const single = await startDashboard(upstreamEnv(upstream, dir()));
	const replicas = await Promise.all(
		[0, 1, 2].map(() =>
			startDashboard({ ...upstreamEnv(upstream, dir()), GEXDECK_REDIS_URL: redis.url })
		)
	);
	try {
		const one = await sequential(`${single.base}/api/${ROUTE}`);
		const many = await sequential(`${replicas[0].base}/api/${ROUTE}`);
		const hop = await redisHop(redis.url);
		await new Promise((r) => setTimeout(r, 1100));
		const answers = await Promise.all(
			Array.from({ length: 100 }, (_, i) =>
				fetch(`${replicas[i % 3].base}/api/SPX/classic/gex_one`).then(async (r) => {
					await r.arrayBuffer();
					return r.headers.get('x-gexdeck-coalesced');
				})
			)
		);
		const ms = (v: number) => `${v.toFixed(3)} ms`;
		console.log('| measure | p50 | p99 |');
		console.log('| --- | --- | --- |');
		console.log(
			`| GET /api/${ROUTE}, single process (${N} sequential) | ${ms(one.p50)} | ${ms(one.p99)} |`
		);
		console.log(`| same, one of 3 replicas on Redis | ${ms(many.p50)} | ${ms(many.p99)} |`);
		console.log(
			`| upstream call with the shared layer (Redis hop) | ${ms(hop.shared.p50)} | ${ms(hop.shared.p99)} |`
		);
		console.log(`| same call without it | ${ms(hop.local.p50)} | ${ms(hop.local.p99)} |`);
		console.log(
			`\n100 identical parallel GETs over 3 replicas: ${answers.filter((a) => a === 'miss').length} upstream call(s) (target 1)`
		);
		// A Redis of their own: the replicas above compete for the slot's lease on theirs.
		const quiet = await startRedis();
		const failover = await leaseFailover(quiet.url).finally(() => quiet.restart());
		console.log(
			`\nSlot lease hand-over after SIGKILL of the holder, ${failover.times.length} kills (3 s TTL): median ${failover.median} ms, max ${failover.max} ms (target < 5000; lease only, no negotiation)`
		);
		const relay = await relayFailover(quiet.url).finally(() => quiet.stop());
		console.log(
			`\nRelay failover, holder SIGKILLed to the first frame on a surviving replica's viewer, ${relay.times.length} kills (3 s TTL, market at 10 s/s): median ${relay.median} ms, max ${relay.max} ms`
		);
	} finally {
		await Promise.all([single, ...replicas].map((d) => d.stop()));
		await redis.stop();
		child.disconnect();
	}
}

if (process.argv[2] === 'serve') void serve();
else
	main().catch((err) => {
		console.error(err);
		process.exit(1);
	});
