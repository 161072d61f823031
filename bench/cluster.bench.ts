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
 * 6. The stream frame's Redis hop, tick to viewer, single process vs a standby replica, and
 * 7. viewers per replica at 150 memberships: the relay's CPU per viewer-second as one process and
 *    as a standby replica (cluster.viewers.ts).
 *
 * 8. What a recorded day costs on the shared recordings volume (cluster.recording.ts).
 *
 * BENCH_CLUSTER_ONLY=stream runs parts 6 to 8 alone. The run ends with one summary table of the
 * numbers issue 30 asks for (cluster.summary.ts) and the machine's load.
 */
import { mkdtempSync } from 'node:fs';
import { Agent, get } from 'node:http';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { clusterLimits } from '../src/lib/server/cluster/clusterLimits';
import { sharedCall } from '../src/lib/server/cluster/sharedCall';
import type { UpstreamResponse } from '../src/lib/server/httpClient';
import { startRedis } from '../tests/support/redis';
import { leaseFailover } from './cluster.lease';
import { relayFailover } from './cluster.relay';
import { redisHopLatency, viewersPerReplica } from './cluster.viewers';
import { recordingDayCost } from './cluster.recording';
import { summaryTable, type ClusterSummary } from './cluster.summary';
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

/** Stream parts 6 to 8, their numbers added to `summary`. */
async function streamParts(summary: ClusterSummary): Promise<void> {
	const redis = await startRedis();
	try {
		const hop = await redisHopLatency(redis.url);
		summary.stream = hop;
		const ms = (v: number) => `${v.toFixed(2)} ms`;
		console.log(`\nStream frame, tick to viewer (${hop.single.n} frames each, one tick a second):`);
		console.log('| relay | p50 | p99 |');
		console.log('| --- | --- | --- |');
		console.log(`| single process | ${ms(hop.single.p50)} | ${ms(hop.single.p99)} |`);
		console.log(
			`| standby replica (through the holder's Redis Stream) | ${ms(hop.replica.p50)} | ${ms(hop.replica.p99)} |`
		);
		console.log(
			`| the hop alone: holder's receipt to the standby viewer (${hop.hop.n} frames) | ${ms(hop.hop.p50)} | ${ms(hop.hop.p99)} |`
		);
		const v = await viewersPerReplica(redis.url, Number(process.env.BENCH_CLUSTER_VIEWERS ?? 50));
		summary.viewers = v;
		const row = (name: string, r: typeof v.single) =>
			`| ${name} | ${r.cpuMsPerViewerS.toFixed(2)} ms | ${((r.cpuMsPerViewerS * r.viewers * r.seconds * 1000) / r.frames).toFixed(1)} µs | ${(r.cpuShare * 100).toFixed(0)}% | ${Math.floor(1000 / r.cpuMsPerViewerS)} | ${r.frames} frames, ${r.skips} skips (latest-wins), ${r.wrong} out of order or corrupt |`;
		console.log(
			`\n${v.viewers} viewers x 150 memberships on one relay process, market at 10 s/s, ${v.seconds} s measured:`
		);
		console.log(
			'| relay | CPU per viewer-second | CPU per frame delivered | CPU of one core | viewers per core | check |'
		);
		console.log('| --- | --- | --- | --- | --- | --- |');
		console.log(row('single process', v.single));
		console.log(row('standby replica (frames from Redis)', v.replica));
		console.log(`(the holder lost and retook its lease ${v.leaseLosses} times meanwhile)`);
		const rec = await recordingDayCost();
		console.log(
			`\nRecording the default always-record list (5 tickers x Classic gex_full/zero/one + orderflow, spots), ${rec.simulatedS.toFixed(0)} simulated s at 10 s/s: ${(rec.bytes / 1e6).toFixed(2)} MB in ${rec.files} files, so ${rec.perDayMb.toFixed(0)} MB per 6.5-hour session day (relay ${rec.state})`
		);
	} finally {
		await redis.stop();
	}
}

async function main(): Promise<void> {
	const summary: ClusterSummary = { load: { start: loadavg(), end: [] } };
	if (process.env.BENCH_CLUSTER_ONLY !== 'stream') await restParts(summary);
	await streamParts(summary);
	summary.load.end = loadavg();
	console.log(summaryTable(summary));
}

/** Parts 1 to 5, their numbers added to `summary`. */
async function restParts(summary: ClusterSummary): Promise<void> {
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
		summary.rest = { single: one, replica: many };
		summary.call = hop;
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
		summary.lease = failover;
		console.log(
			`\nSlot lease hand-over after SIGKILL of the holder, ${failover.times.length} kills (3 s TTL): median ${failover.median} ms, max ${failover.max} ms (target < 5000; lease only, no negotiation)`
		);
		const relay = await relayFailover(quiet.url).finally(() => quiet.stop());
		summary.relay = relay;
		console.log(
			`\nRelay failover, holder SIGKILLed to the first frame on a surviving replica's viewer, ${relay.times.length} kills (3 s TTL, market at 10 s/s): median ${relay.median} ms, max ${relay.max} ms`
		);
	} finally {
		await Promise.all([single, ...replicas].map((d) => d.stop()));
		await redis.stop();
		child.disconnect();
	}
	// The dashboards above are stopped before the stream parts measure a relay's own CPU.
}

if (process.argv[2] === 'serve') void serve();
else
	main().catch((err) => {
		console.error(err);
		process.exit(1);
	});
