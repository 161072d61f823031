/**
 * Child process of bench/feed.bench.ts: the feed clients, so that their timing is not delayed by
 * the embedded service computing its ticks in the bench's own process. Argument: the dashboard
 * URL, seconds, then a JSON list of [ticker, token]; each client polls its ticker once a second
 * (keep-alive, hrtime per request). Prints one JSON line with the sorted latencies and failures.
 */
import { Agent, get } from 'node:http';

const [base, secondsText, clientsJson] = process.argv.slice(2);
const clients = JSON.parse(clientsJson) as [string, string][];
const agent = new Agent({ keepAlive: true, maxSockets: clients.length });

function feedOnce(ticker: string, token: string): Promise<{ ms: number; status: number }> {
	return new Promise((resolve, reject) => {
		const t0 = process.hrtime.bigint();
		get(
			`${base}/feed/v1/levels/${ticker}`,
			{ agent, headers: { authorization: `Bearer ${token}` } },
			(res) => {
				res.on('data', () => {});
				res.on('end', () =>
					resolve({ ms: Number(process.hrtime.bigint() - t0) / 1e6, status: res.statusCode ?? 0 })
				);
			}
		).on('error', reject);
	});
}

const end = performance.now() + Number(secondsText) * 1000;
const latencies: number[] = [];
let failed = 0;
await Promise.all(
	clients.map(async ([ticker, token], i) => {
		await new Promise((r) => setTimeout(r, (i * 1000) / clients.length));
		while (performance.now() < end) {
			const started = performance.now();
			const r = await feedOnce(ticker, token);
			if (r.status === 200) latencies.push(r.ms);
			else failed++;
			await new Promise((res) =>
				setTimeout(res, Math.max(0, 1000 - (performance.now() - started)))
			);
		}
	})
);
latencies.sort((a, b) => a - b);
console.log(JSON.stringify({ event: 'done', latencies, failed }));
agent.destroy();
