/**
 * The MCP tests' rig: the levels feed's rig (levels-feed.support.ts: the embedded service behind
 * a counting proxy, the built dashboard in password mode with the demo Quant key) for SPX only
 * (on the default always-record list, so recorded), on a data folder whose alert firing log
 * holds SEEDED_FIRINGS (60 on 2026-11-17, 1 on 2026-11-18).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { AlertFiring } from '../../src/lib/alerts/firing';
import { startFeedRig, type FeedRig } from './levels-feed.support';

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
		description: 'SPX spot crosses zero gamma (Full)',
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

export type McpRig = FeedRig;

export function startMcpRig(): Promise<McpRig> {
	return startFeedRig({
		tickers: ['SPX'],
		password: 'mcp-test-password',
		folder: 'gexdeck-mcp-',
		seed: (dataDir) =>
			writeFileSync(join(dataDir, 'alerts-firings.json'), JSON.stringify(seededFirings()))
	});
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
