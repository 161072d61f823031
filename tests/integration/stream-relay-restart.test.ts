/**
 * The embedded service killed mid-stream (SIGKILL: no close frames, no goodbye) and started
 * again on the same port, with the dashboard's relay and a /stream viewer attached: the relay
 * says the hub dropped and keeps retrying with growing delays while nothing listens (no POST
 * while the service is down), then negotiates once with the new process (whose token secret is
 * new, so the old URL is refused) and frames flow to the viewer again.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { attachStreamEndpoint, StreamRelay } from '../../src/lib/server/stream';
import { demoAccountsFor } from '../../src/service/accounts/demo';
import { spawnService } from './service-support';
import { StreamViewer } from './stream-relay.viewer';

const dataDir = mkdtempSync(join(tmpdir(), 'gexdeck-restart-'));
// The spawned service's demo keys are its data folder's own (read from the same seed file).
const key = demoAccountsFor(dataDir).accounts.find((a) => a._id === 'demo-quant')!.keys[0].key;
const children: ChildProcess[] = [];

const startServiceProcess = async (port: number) => {
	const started = await spawnService({ dataDir, port });
	children.push(started.child);
	return started;
};

let http: Server | undefined;
let relay: StreamRelay | undefined;

afterAll(async () => {
	await relay?.close();
	http?.close();
	for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
	rmSync(dataDir, { recursive: true, force: true });
});

it('survives the service being killed mid-stream and restarted', async () => {
	const first = await startServiceProcess(0);
	const port = first.port;
	let posts = 0;
	relay = new StreamRelay({
		baseUrl: first.url,
		key,
		userAgent: 'gexdeck/test',
		backoff: { baseMs: 50, maxMs: 400 },
		fetch: (input, init) => {
			if (init?.method === 'POST') posts++;
			return fetch(input, init);
		}
	});
	http = createServer((_q, s) => s.writeHead(404).end());
	const endpoint = attachStreamEndpoint(http, relay, () => true);
	await new Promise<void>((r) => http!.listen(0, '127.0.0.1', r));
	const viewer = await StreamViewer.open(
		`ws://127.0.0.1:${(http.address() as AddressInfo).port}/stream`
	);
	await viewer.request({ type: 'subscribe', groups: ['SPX_classic_gex_full'] });
	await viewer.status('live', 15_000);
	await viewer.nextFrame('SPX_classic_gex_full', 15_000);
	expect(posts).toBe(1);

	first.child.kill('SIGKILL');
	const down = await viewer.status('reconnecting', 15_000);
	expect(down.type === 'status' && down.reason).toMatch(/hub v2_classic dropped/);
	// While nothing listens the relay retries the hub URL with growing delays, never POSTing.
	await new Promise((r) => setTimeout(r, 1_500));
	expect(posts).toBe(1);
	expect(relay.state).toBe('reconnecting');
	const status = relay.status();
	expect(status.reason).toMatch(/ECONNREFUSED|retrying in \d+ ms/);

	await startServiceProcess(port);
	await viewer.status('live', 20_000);
	await viewer.nextFrame('SPX_classic_gex_full', 15_000);
	// The old URL was refused by the new process (new token secret): one new negotiation.
	expect(posts).toBe(2);
	await viewer.close();
	endpoint.close();
}, 90_000);
