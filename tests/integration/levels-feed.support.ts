/**
 * The levels feed's test rig: the embedded service with its hubs (in this process, simulated
 * clock in market hours, whatever the wall clock says) behind a counting HTTP proxy, and the
 * built dashboard (`npm start`, password mode) pointed at the proxy with the demo Quant key, so
 * its feed holder holds fed tickers as relay memberships. Tokens are created on the dashboard's
 * own data folder, with the scopes asked for (feed by default). The MCP tests run on the same rig
 * (mcp.support.ts: SPX only, a seeded data folder).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Database } from '../../src/lib/server/db/index';
import { openRecords } from '../../src/lib/server/db/legacyImport';
import { TokenStore, type TokenScope } from '../../src/lib/server/tokens/tokenStore';
import { IMPLICIT_OWNER } from '../../src/lib/server/alerts/store';
import { firstAdminId } from '../../src/lib/server/users/owners';
import { startDashboard, type RunningDashboard } from '../support/processes';
import { quantKey, startHubService, type HubService } from './service-support';

export const FEED_PASSWORD = 'feed-test-password';
/** The rig's market time at its start: Wednesday 2026-11-18 11:00 ET. */
export const MARKET_NOW = '2026-11-18T16:00:00Z';
const root = join(dirname(fileURLToPath(import.meta.url)), '../..');

export interface FeedRig {
	dash: RunningDashboard;
	svc: HubService;
	dataDir: string;
	/** Upstream requests per path (`/v2/SPX/classic/gex_full`), counted at the proxy. */
	calls: Map<string, number>;
	tokens: TokenStore;
	token(name: string, scopes?: TokenScope[]): Promise<string>;
	close(): Promise<void>;
}

export interface FeedRigOptions {
	/** The service's tickers (default SPX and IWM). */
	tickers?: string[];
	/** The dashboard's password (default FEED_PASSWORD). */
	password?: string;
	/** The data folder's name prefix under the temp folder (default `gexdeck-feed-`). */
	folder?: string;
	/** Writes into the data folder before the dashboard starts. */
	seed?: (dataDir: string) => void;
	/** More dashboard environment. */
	env?: Record<string, string>;
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

export async function startFeedRig({
	tickers = ['SPX', 'IWM'],
	password = FEED_PASSWORD,
	folder = 'gexdeck-feed-',
	seed,
	env = {}
}: FeedRigOptions = {}): Promise<FeedRig> {
	// Wednesday 2026-11-18 11:00 ET, for the service and the dashboard alike (wallClock.mjs):
	// their data is then today's session, live, whatever the real clock says.
	const svc = await startHubService({ start: MARKET_NOW, tickers });
	const calls = new Map<string, number>();
	const proxy = countingProxy(new URL(svc.service.url), calls);
	await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
	const dataDir = mkdtempSync(join(tmpdir(), folder));
	seed?.(dataDir);
	const dash = await startDashboard({
		GEXDECK_UPSTREAM: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}/v2`,
		GEXDECK_API_KEY: quantKey(),
		GEXDECK_PASSWORD: password,
		GEXDECK_DATA_DIR: dataDir,
		GEXDECK_TEST_NOW: MARKET_NOW,
		NODE_OPTIONS: `--import ${pathToFileURL(join(root, 'tests/support/wallClock.mjs')).href}`,
		...env
	});
	// The dashboard's own database (the file it opened), shared as `npm run token` shares it.
	const db: Database = await openRecords({ dataDir });
	const tokens = new TokenStore(db);
	return {
		dash,
		svc,
		dataDir,
		calls,
		tokens,
		// The first admin's, as `npm run token -- create` makes it (GEXDECK_PASSWORD became "admin").
		token: async (name, scopes) =>
			(await tokens.create(name, scopes, (await firstAdminId(db)) ?? IMPLICIT_OWNER)).token,
		async close() {
			await db.close();
			await dash.stop();
			await svc.close().catch(() => undefined);
			const closed = new Promise<void>((r) => proxy.close(() => r()));
			proxy.closeAllConnections();
			await closed;
			rmSync(dataDir, { recursive: true, force: true });
		}
	};
}

/** GET with a Bearer token (or none); status, headers and text. */
export async function feedGet(
	base: string,
	path: string,
	token?: string
): Promise<{ status: number; headers: Headers; text: string }> {
	const r = await fetch(base + path, {
		headers: token ? { authorization: `Bearer ${token}` } : {},
		redirect: 'manual'
	});
	return { status: r.status, headers: r.headers, text: await r.text() };
}

/** Polls the feed until it answers 200 (the first value held). */
export async function firstValue(base: string, token: string, path = '/feed/v1/levels/IWM') {
	const deadline = Date.now() + 60_000;
	for (;;) {
		const r = await feedGet(base, path, token);
		if (r.status === 200 || Date.now() > deadline) return r;
		await new Promise((res) => setTimeout(res, 500));
	}
}
