/**
 * A cluster for the tests and the cluster benchmark: a real redis-server, the embedded service
 * behind a forwarder that counts every upstream call by path, and N replicas of the built
 * dashboard pointed at both (GEXDECK_UPSTREAM, GEXDECK_REDIS_URL), each with its own data folder.
 */
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startRedis, type RunningRedis } from '../support/redis';
import { startDashboard, type RunningDashboard } from '../support/processes';
import { startTestService, testAccounts, keysOf, type TestService } from './service-support';

export interface CountingForwarder {
	/** `http://127.0.0.1:<port>/v2`, the replicas' GEXDECK_UPSTREAM. */
	url: string;
	/** Upstream calls seen per path (query included), whoami left out. */
	calls: Map<string, number>;
	/** Calls whose path starts with `prefix`. */
	count(prefix: string): number;
	close(): Promise<void>;
}

/** Forwards every request to `target` (the service's root) and counts it. */
export async function countingForwarder(target: string): Promise<CountingForwarder> {
	const calls = new Map<string, number>();
	const to = new URL(target);
	const server: Server = createServer((req, res) => {
		const path = req.url ?? '/';
		if (!path.endsWith('/whoami')) calls.set(path, (calls.get(path) ?? 0) + 1);
		const out = request(
			{ host: to.hostname, port: to.port, method: req.method, path, headers: req.headers },
			(answer) => {
				res.writeHead(answer.statusCode ?? 502, answer.headers);
				answer.pipe(res);
			}
		);
		out.on('error', () => res.destroy());
		req.pipe(out);
	});
	await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
	const port = (server.address() as AddressInfo).port;
	return {
		url: `http://127.0.0.1:${port}/v2`,
		calls,
		count: (prefix) =>
			[...calls].filter(([p]) => p.startsWith(prefix)).reduce((n, [, c]) => n + c, 0),
		close: () => {
			server.closeAllConnections();
			return new Promise<void>((r) => server.close(() => r()));
		}
	};
}

export interface TestCluster {
	redis: RunningRedis;
	service: TestService;
	upstream: CountingForwarder;
	replicas: RunningDashboard[];
	/** The `limited` account's key (api_majors: `majorsDaily` a day). */
	key: string;
	close(): Promise<void>;
}

export async function startCluster(options: {
	replicas: number;
	tickers: string[];
	majorsDaily: number;
	env?: Record<string, string>;
}): Promise<TestCluster> {
	const accounts = testAccounts();
	const limited = accounts.accounts.find((a) => a._id === 'limited')!;
	limited.allowances = {
		...limited.allowances,
		api_majors: { daily: options.majorsDaily, monthly: 1_000 }
	};
	const redis = await startRedis();
	const service = await startTestService({ accounts, tickers: options.tickers });
	const upstream = await countingForwarder(service.service.rootUrl);
	const key = keysOf(accounts).limited;
	const replicas = await Promise.all(
		Array.from({ length: options.replicas }, () =>
			startDashboard(
				{
					GEXDECK_UPSTREAM: upstream.url,
					GEXDECK_API_KEY: key,
					GEXDECK_REDIS_URL: redis.url,
					...options.env
				},
				'build'
			)
		)
	);
	return {
		redis,
		service,
		upstream,
		replicas,
		key,
		async close() {
			await Promise.all(replicas.map((r) => r.stop()));
			await upstream.close();
			await service.close();
			await redis.stop();
		}
	};
}
