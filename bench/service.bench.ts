/**
 * REST fast path: requests/s and latency of a cached classic snapshot
 * (GET /v2/SPX/classic/gex_full) with autocannon at 50 connections, side by side with a bare
 * node:http server answering a fixed buffer of the same size, measured in the same run.
 * Target: the service reaches at least half the bare server's requests/s.
 *
 * The servers run in a child process (this file with argument `serve`) so autocannon does not
 * share their event loop.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { autocannon, forkServe, loadRun, serveUnmetered } from './support';

const CONNECTIONS = 50;
const DURATION_S = Number(process.env.BENCH_SERVICE_SECONDS ?? 8);
const ROUTE = '/v2/SPX/classic/gex_full';

interface Ports {
	bare: number;
	service: number;
	key: string;
	bytes: number;
}

async function serve(): Promise<void> {
	const { service, key } = await serveUnmetered('demo-classic');
	const probe = await fetch(service.rootUrl + ROUTE, {
		headers: { 'User-Agent': 'gexdeck-bench/1', Authorization: `Bearer ${key}` }
	});
	const body = Buffer.from(await probe.arrayBuffer());
	if (probe.status !== 200) throw new Error(`probe answered ${probe.status}: ${body}`);
	const fixed = Buffer.from(body);
	const bare = createServer((_req, res) => {
		res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': fixed.length });
		res.end(fixed);
	});
	await new Promise<void>((r) => bare.listen(0, '127.0.0.1', r));
	const ports: Ports = {
		bare: (bare.address() as AddressInfo).port,
		service: service.port,
		key,
		bytes: fixed.length
	};
	process.send?.(ports);
}

async function main(): Promise<void> {
	const { child, ready: ports } = await forkServe<Ports>(import.meta.url);
	const headers = { 'User-Agent': 'gexdeck-bench/1', Authorization: `Bearer ${ports.key}` };
	// Warm both up so neither pays for JIT compilation inside the measurement.
	await autocannon({ url: `http://127.0.0.1:${ports.bare}/`, connections: 10, duration: 1 });
	await autocannon({
		url: `http://127.0.0.1:${ports.service}${ROUTE}`,
		connections: 10,
		duration: 1,
		headers
	});
	const bare = await loadRun(`http://127.0.0.1:${ports.bare}/`, headers, CONNECTIONS, DURATION_S);
	const service = await loadRun(
		`http://127.0.0.1:${ports.service}${ROUTE}`,
		headers,
		CONNECTIONS,
		DURATION_S
	);
	child.disconnect();
	const ratio = service.rps / bare.rps;
	console.log(
		`REST snapshot fast path, autocannon ${CONNECTIONS} connections x ${DURATION_S} s, ${ports.bytes} B body\n`
	);
	console.log('| server | req/s | p50 ms | p99 ms | non-2xx | target |');
	console.log('|---|---|---|---|---|---|');
	console.log(
		`| bare node:http, fixed buffer | ${bare.rps.toFixed(0)} | ${bare.p50} | ${bare.p99} | ${bare.non2xx} | reference |`
	);
	console.log(
		`| service ${ROUTE} | ${service.rps.toFixed(0)} | ${service.p50} | ${service.p99} | ${service.non2xx} | >= 0.5 x bare |`
	);
	console.log(
		`\nratio service / bare: **${ratio.toFixed(2)}** (target >= 0.50) ${ratio >= 0.5 ? 'PASS' : 'MISS'}`
	);
	if (service.non2xx > 0 || service.errors > 0) {
		console.log(`\nwarning: ${service.non2xx} non-2xx answers, ${service.errors} errors`);
	}
}

if (process.argv[2] === 'serve') await serve();
else await main();
