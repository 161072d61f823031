/**
 * The MCP tests' rig: the embedded service with its hubs (simulated clock in market hours) for
 * SPX (on the default always-record list, so recorded), behind a counting proxy, and the built
 * dashboard (`npm start`, password mode, the demo Quant key) on a data folder whose alert firing
 * log holds SEEDED_FIRINGS (60 on 2026-11-17, 1 on 2026-11-18). Tokens are created on that
 * folder, with the scopes asked for.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { AlertFiring } from '../../src/lib/alerts/firing';
import { TokenStore, type TokenScope } from '../../src/lib/server/tokens/tokenStore';
import { startDashboard, type RunningDashboard } from '../support/processes';
import { quantKey, startHubService, type HubService } from './service-support';

/** Firings in the log before the dashboard starts: more than alerts_fired answers at once. */
export const SEEDED_FIRINGS = 61;

function seededFirings(): AlertFiring[] {
	// 2026-11-17 10:00 ET, one a minute, then one on 2026-11-18 at 10:30 ET.
	const at = (i: number) => (i < 60 ? 1_794_927_600 + i * 60 : 1_795_015_800);
	return Array.from({ length: SEEDED_FIRINGS }, (_, i) => ({
		type: 'gexdeck.alert',
		id: `seed-${i}`,
		ruleId: 'spx-zg',
		ruleName: 'SPX zero gamma',
		description: 'SPX spot crosses zero gamma (gex_full)',
		ticker: 'SPX',
		kind: 'cross',
		at: at(i),
		time: new Date(at(i) * 1000).toISOString(),
		firedAt: at(i) * 1000,
		direction: 'up',
		message: `SPX crossed zero gamma (seed ${i})`,
		values: { spot: 6000 + i, level: 6000 },
		link: `/SPX/classic/gex_full?at=${at(i)}`,
		test: false
	}));
}

export interface McpRig {
	dash: RunningDashboard;
	svc: HubService;
	dataDir: string;
	/** Upstream requests per path, counted at the proxy. */
	calls: Map<string, number>;
	tokens: TokenStore;
	token(name: string, scopes: TokenScope[]): string;
	close(): Promise<void>;
}

function countingProxy(target: URL, calls: Map<string, number>): Server {
	return createServer((req, res) => {
		const path = (req.url ?? '/').split('?')[0];
		calls.set(path, (calls.get(path) ?? 0) + 1);
		const up = request(
			{
				host: target.hostname,
				port: target.port,
				method: req.method,
				path: req.url,
				headers: { ...req.headers, host: target.host }
			},
			(r) => {
				res.writeHead(r.statusCode ?? 502, r.headers);
				r.pipe(res);
			}
		);
		up.on('error', () => res.writeHead(502).end());
		req.pipe(up);
	});
}

export async function startMcpRig(): Promise<McpRig> {
	// Wednesday 2026-11-18 11:00 ET.
	const svc = await startHubService({ start: '2026-11-18T16:00:00Z', tickers: ['SPX'] });
	const calls = new Map<string, number>();
	const proxy = countingProxy(new URL(svc.service.url), calls);
	await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
	const dataDir = mkdtempSync(join(tmpdir(), 'gexdeck-mcp-'));
	writeFileSync(join(dataDir, 'alerts-firings.json'), JSON.stringify(seededFirings()));
	const dash = await startDashboard({
		GEXDECK_UPSTREAM: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}/v2`,
		GEXDECK_API_KEY: quantKey(),
		GEXDECK_PASSWORD: 'mcp-test-password',
		GEXDECK_DATA_DIR: dataDir
	});
	const tokens = TokenStore.inDataDir(dataDir);
	return {
		dash,
		svc,
		dataDir,
		calls,
		tokens,
		token: (name, scopes) => tokens.create(name, scopes).token,
		async close() {
			await dash.stop();
			await svc.close().catch(() => undefined);
			const closed = new Promise<void>((r) => proxy.close(() => r()));
			proxy.closeAllConnections();
			await closed;
			rmSync(dataDir, { recursive: true, force: true });
		}
	};
}

/** The SDK's own client over Streamable HTTP to the dashboard's /mcp. */
export async function httpClient(base: string, token?: string): Promise<Client> {
	const client = new Client({ name: 'gexdeck-test', version: '1.0.0' });
	const transport = new StreamableHTTPClientTransport(new URL('/mcp', base), {
		requestInit: { headers: token ? { authorization: `Bearer ${token}` } : {} }
	});
	await client.connect(transport);
	return client;
}

/** GET of a feed path with a token: the parsed JSON (status 200) or throws. */
export async function feedJson(base: string, path: string, token: string): Promise<unknown> {
	const r = await fetch(base + path, { headers: { authorization: `Bearer ${token}` } });
	if (r.status !== 200) throw new Error(`${path}: ${r.status} ${await r.text()}`);
	return r.json();
}

export async function until<T>(what: () => Promise<T | undefined>, ms = 60_000): Promise<T> {
	const deadline = Date.now() + ms;
	for (;;) {
		const v = await what().catch(() => undefined);
		if (v !== undefined) return v;
		if (Date.now() > deadline) throw new Error('timed out');
		await new Promise((r) => setTimeout(r, 500));
	}
}
