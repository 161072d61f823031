/**
 * The levels feed's test rig: the embedded service (in this process, simulated clock in market
 * hours) behind a counting HTTP proxy that can also play an upstream outage, and the built
 * dashboard (`npm start`, password mode) pointed at the proxy with the demo Classic key, so it
 * holds fed tickers by polling. Tokens are created on the dashboard's own data folder.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TokenStore } from '../../src/lib/server/tokens/tokenStore';
import { startDashboard, type RunningDashboard } from '../support/processes';
import { keysOf, startTestService, type TestService } from './service-support';

export const FEED_PASSWORD = 'feed-test-password';

export interface FeedRig {
	dash: RunningDashboard;
	svc: TestService;
	dataDir: string;
	/** Upstream requests per path (`/v2/SPX/classic/gex_full`), counted at the proxy. */
	calls: Map<string, number>;
	/** While true the proxy answers 502 (an upstream outage). */
	setDown(down: boolean): void;
	token(name: string): string;
	close(): Promise<void>;
}

function countingProxy(target: URL, calls: Map<string, number>, isDown: () => boolean): Server {
	return createServer((req, res) => {
		const path = (req.url ?? '/').split('?')[0];
		calls.set(path, (calls.get(path) ?? 0) + 1);
		if (isDown()) {
			res.writeHead(502, { 'content-type': 'application/json' }).end('{"error":"down"}');
			return;
		}
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

export async function startFeedRig(env: Record<string, string> = {}): Promise<FeedRig> {
	// Wednesday 2026-11-18 11:00 ET.
	const svc = await startTestService({ start: '2026-11-18T16:00:00Z', tickers: ['SPX'] });
	const calls = new Map<string, number>();
	let down = false;
	const proxy = countingProxy(new URL(svc.service.url), calls, () => down);
	await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
	const dataDir = mkdtempSync(join(tmpdir(), 'gexdeck-feed-'));
	const dash = await startDashboard({
		GEXDECK_UPSTREAM: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}/v2`,
		GEXDECK_API_KEY: keysOf().classic,
		GEXDECK_PASSWORD: FEED_PASSWORD,
		GEXDECK_DATA_DIR: dataDir,
		...env
	});
	const tokens = TokenStore.inDataDir(dataDir);
	return {
		dash,
		svc,
		dataDir,
		calls,
		setDown: (d) => (down = d),
		token: (name) => tokens.create(name).token,
		async close() {
			await dash.stop();
			const closed = new Promise<void>((r) => proxy.close(() => r()));
			proxy.closeAllConnections();
			await closed;
			await svc.close();
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
export async function firstValue(base: string, token: string, path = '/feed/v1/levels/SPX') {
	const deadline = Date.now() + 60_000;
	for (;;) {
		const r = await feedGet(base, path, token);
		if (r.status === 200 || Date.now() > deadline) return r;
		await new Promise((res) => setTimeout(res, 500));
	}
}
