/**
 * The MCP endpoint over real sockets: the built dashboard (password mode, Quant key) against the
 * embedded service and its hubs. The SDK's own Client lists and calls every tool and the
 * watchlist resource over Streamable HTTP (/mcp) and over stdio (`npm run mcp`, relaying to the
 * same dashboard); live values equal the levels feed's JSON, past ones the recording's (read
 * back through `at`); a subscription gets notifications/resources/updated at most once a second;
 * no tool call costs an upstream request; a missing, feed-scoped, unknown or revoked token is
 * refused with 401.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { Client as SdkClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_ALWAYS_RECORD } from '../../src/lib/server/recorder/recorderMount';
import type { LevelsDocument } from '../../src/lib/levels/document';
import { rawRequest, root } from './dashboard-support';
import {
	feedJson,
	httpClient,
	SEEDED_FIRINGS,
	startMcpRig,
	until,
	type McpRig
} from './mcp.support';

const DAY = '2026-11-18';
const TOOLS = ['alerts_fired', 'at', 'day_summary', 'levels', 'list_tickers', 'profile'];

let rig: McpRig;
let feedToken: string;
let mcpToken: string;

beforeAll(async () => {
	rig = await startMcpRig();
	feedToken = await rig.token('feed', ['feed']);
	mcpToken = await rig.token('assistant', ['mcp']);
	// SPX is recorded (always-record list) and held from the start: wait for its first value.
	const spx = () =>
		feedJson(rig.dash.base, '/feed/v1/levels/SPX', feedToken) as Promise<LevelsDocument>;
	const first = await until(spx);
	// A few recorded moments, so a moment and the day's first or last differ.
	await until(async () =>
		(await spx()).as_of.unix_ms >= first.as_of.unix_ms + 3000 ? true : undefined
	);
}, 120_000);

afterAll(async () => {
	await rig?.close();
});

type Structured = Record<string, unknown>;

async function call(client: Client, name: string, args: Structured = {}) {
	const r = await client.callTool({ name, arguments: args });
	return r as { isError?: boolean; structuredContent?: Structured; content: { text: string }[] };
}

/** Without the per-read fields (age changes every millisecond). */
function still(doc: Structured): Structured {
	const { age_seconds: _age, ...rest } = doc;
	return rest;
}

/** Calls a tool between two feed reads of the same data moment; both must say the same. */
async function equalsFeed(client: Client, args: Structured, feedPath: string) {
	for (let i = 0; i < 20; i++) {
		// The tool first: it waits for the first value of a feed the levels client just took.
		await call(client, 'levels', args);
		const before = (await feedJson(rig.dash.base, feedPath, feedToken)) as LevelsDocument;
		const got = await call(client, 'levels', args);
		const after = (await feedJson(rig.dash.base, feedPath, feedToken)) as LevelsDocument;
		if (before.as_of.unix_ms !== after.as_of.unix_ms) continue;
		expect(got.isError).toBeFalsy();
		expect(still(got.structuredContent!)).toEqual(still(before as unknown as Structured));
		expect(JSON.parse(got.content[0].text)).toEqual(got.structuredContent);
		return before;
	}
	throw new Error('the feed never held still for one call');
}

const hms = (ms: number) =>
	new Intl.DateTimeFormat('en-GB', {
		timeZone: 'America/New_York',
		hour: '2-digit',
		minute: '2-digit',
		second: '2-digit',
		hourCycle: 'h23'
	}).format(new Date(ms));

/** Everything an assistant can do, through one connected client. */
async function exercise(client: Client) {
	const listed = await client.listTools();
	expect(listed.tools.map((t) => t.name).sort()).toEqual(TOOLS);
	for (const t of listed.tools) {
		expect(t.inputSchema.type).toBe('object');
		expect(t.outputSchema?.type).toBe('object');
		expect(t.annotations?.readOnlyHint).toBe(true);
	}

	// Live levels: exactly the feed's JSON, with and without options.
	const now = await equalsFeed(client, { ticker: 'spx' }, '/feed/v1/levels/SPX');
	await equalsFeed(
		client,
		{ ticker: 'SPX', category: 'gex_zero' },
		'/feed/v1/levels/SPX?category=gex_zero'
	);

	// Profile: the feed's strikes nearest spot; more than the cap is cut and says so.
	const profile = await call(client, 'profile', {
		ticker: 'SPX',
		category: 'gex_full',
		strikes: 5
	});
	expect(profile.isError).toBeFalsy();
	const p = profile.structuredContent as { strikes: unknown[]; truncated: boolean; as_of: unknown };
	expect(p.strikes).toHaveLength(5);
	expect(p.truncated).toBe(false);
	const feedStrikes = (await feedJson(
		rig.dash.base,
		'/feed/v1/levels/SPX?strikes=5',
		feedToken
	)) as LevelsDocument;
	if (JSON.stringify(feedStrikes.as_of) === JSON.stringify(p.as_of)) {
		expect(p.strikes).toEqual(feedStrikes.strikes);
	}
	const big = await call(client, 'profile', { ticker: 'SPX', category: 'gex_full', strikes: 150 });
	const b = big.structuredContent as { strikes: unknown[]; truncated: boolean; note: string };
	expect(b.truncated).toBe(true);
	const all = (await feedJson(
		rig.dash.base,
		'/feed/v1/levels/SPX?strikes=100',
		feedToken
	)) as LevelsDocument;
	expect(b.strikes).toHaveLength(all.strikes!.length);
	expect(b.note).toMatch(/100 strikes/);

	// The past, from the recording: the moment the feed showed is the recorded one.
	const at = await call(client, 'at', { ticker: 'SPX', day: DAY, time: hms(now.as_of.unix_ms) });
	expect(at.isError).toBeFalsy();
	const past = at.structuredContent as unknown as LevelsDocument;
	expect(past.source).toBe('recording');
	expect(past.as_of.unix_ms).toBe(now.as_of.unix_ms);
	expect(past.spot).toBe(now.spot);
	expect(past.levels).toEqual(now.levels);

	const summary = await call(client, 'day_summary', { ticker: 'SPX' });
	expect(summary.isError).toBeFalsy();
	const s = summary.structuredContent as {
		day: string;
		samples: number;
		first: { unix_ms: number };
		last: { unix_ms: number };
		series: Record<string, { open: number; now: number; high: number; low: number }>;
	};
	expect(s.day).toBe(DAY);
	expect(s.samples).toBeGreaterThan(0);
	const spot = s.series.spot;
	expect(spot.high).toBeGreaterThanOrEqual(Math.max(spot.open, spot.now));
	expect(spot.low).toBeLessThanOrEqual(Math.min(spot.open, spot.now));
	for (const [edge, key] of [
		['first', 'open'],
		['last', 'now']
	] as const) {
		const moment = await call(client, 'at', {
			ticker: 'SPX',
			day: DAY,
			time: hms(s[edge].unix_ms)
		});
		const m = moment.structuredContent as unknown as LevelsDocument;
		expect(m.as_of.unix_ms).toBe(s[edge].unix_ms);
		expect(s.series.spot[key]).toBe(m.spot);
		expect(s.series.zero_gamma_vol[key]).toBe(
			m.levels.find((l) => l.id === 'zero_gamma_vol')!.price
		);
	}

	// Clear errors, as tool errors.
	const noDay = await call(client, 'day_summary', { ticker: 'SPX', day: '2026-11-17' });
	expect(noDay.isError).toBe(true);
	expect(noDay.content[0].text).toMatch(/nothing recorded for SPX gex_full on 2026-11-17/);
	for (const [name, args] of [
		['levels', { ticker: 'ZZZZ' }],
		['profile', { ticker: 'ZZZZ', category: 'gex_full' }],
		['day_summary', { ticker: 'ZZZZ' }],
		['at', { ticker: 'ZZZZ', day: DAY, time: '11:00' }]
	] as const) {
		const unknown = await call(client, name, args);
		expect(unknown.isError).toBe(true);
		expect(unknown.content[0].text).toMatch(/^unknown ticker: ZZZZ/);
	}
	const badTime = await call(client, 'at', { ticker: 'SPX', day: DAY, time: '25:99' });
	expect(badTime.isError).toBe(true);
	const badFuture = await call(client, 'levels', { ticker: 'SPX', future: 'XX' });
	expect(badFuture.isError).toBe(true);
	expect(badFuture.content[0].text).toMatch(/No XX conversion for SPX/);

	// Firings from the log: bounded, newest first, filtered by since.
	type Fired = { firings: { id: string; et: string }[]; total: number; truncated: boolean };
	const log = (await call(client, 'alerts_fired')).structuredContent as Fired;
	expect(log.total).toBe(SEEDED_FIRINGS);
	expect(log.truncated).toBe(true);
	expect(log.firings).toHaveLength(50);
	expect(log.firings[0]).toMatchObject({ id: 'seed-60', et: '2026-11-18 10:30:00 ET' });
	expect(log.firings[1].id).toBe('seed-59');
	const today = (await call(client, 'alerts_fired', { since: DAY })).structuredContent as Fired;
	expect(today.firings.map((f) => f.id)).toEqual(['seed-60']);
	expect(today.truncated).toBe(false);
	const later = await call(client, 'alerts_fired', { since: '2100-01-01T00:00:00Z' });
	expect((later.structuredContent as Fired).total).toBe(0);
	const badSince = await call(client, 'alerts_fired', { since: 'yesterday' });
	expect(badSince.isError).toBe(true);

	const list = await call(client, 'list_tickers');
	const l = list.structuredContent as {
		watchlist: { tickers: string[]; source: string };
		held: { ticker: string; category: string }[];
		recorded: { day: string; tickers: string[] };
	};
	expect(l.watchlist).toEqual({ tickers: DEFAULT_ALWAYS_RECORD, source: 'default' });
	expect(l.held).toContainEqual(expect.objectContaining({ ticker: 'SPX', category: 'gex_full' }));
	expect(l.recorded.day).toBe(DAY);
	expect(l.recorded.tickers).toContain('SPX');

	// The watchlist resource: read, then subscribed updates at most once a second.
	const resources = await client.listResources();
	expect(resources.resources.map((r) => r.uri)).toEqual(['gexdeck://levels/watchlist']);
	const read = await client.readResource({ uri: 'gexdeck://levels/watchlist' });
	const content = JSON.parse((read.contents[0] as { text: string }).text) as {
		watchlist: string[];
		levels: Record<string, LevelsDocument>;
	};
	expect(content.watchlist).toEqual(DEFAULT_ALWAYS_RECORD);
	expect(content.levels.SPX.ticker).toBe('SPX');
	expect(content.levels.SPX.spot).toBeGreaterThan(0);
	const updates: number[] = [];
	client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => {
		if (n.params.uri === 'gexdeck://levels/watchlist') updates.push(Date.now());
	});
	await client.subscribeResource({ uri: 'gexdeck://levels/watchlist' });
	await until(async () => (updates.length >= 3 ? true : undefined), 30_000);
	for (let i = 1; i < updates.length; i++) {
		expect(updates[i] - updates[i - 1]).toBeGreaterThanOrEqual(900);
	}
	await client.unsubscribeResource({ uri: 'gexdeck://levels/watchlist' });
}

describe('MCP over Streamable HTTP', () => {
	it('lists and calls every tool and the resource; no call costs an upstream request', async () => {
		const client = await httpClient(rig.dash.base, mcpToken);
		const before = JSON.stringify([...rig.calls].filter(([p]) => !p.includes('futures')));
		await exercise(client);
		const after = JSON.stringify([...rig.calls].filter(([p]) => !p.includes('futures')));
		expect(after).toBe(before);
		await client.close();
	}, 180_000);

	it('refuses a missing, unknown, feed-scoped or revoked token with 401; keeps the Host allowlist', async () => {
		await expect(httpClient(rig.dash.base)).rejects.toThrow(/integration token is required/);
		await expect(httpClient(rig.dash.base, 'gxd_nope')).rejects.toThrow(/Unknown or revoked/);
		await expect(httpClient(rig.dash.base, feedToken)).rejects.toThrow(
			/needs the \W{0,2}mcp\W{0,2} scope/
		);
		const init = JSON.stringify({
			jsonrpc: '2.0',
			id: 1,
			method: 'initialize',
			params: {
				protocolVersion: '2025-06-18',
				capabilities: {},
				clientInfo: { name: 'raw', version: '1' }
			}
		});
		const headers = (token: string) => ({
			authorization: `Bearer ${token}`,
			'content-type': 'application/json',
			accept: 'application/json, text/event-stream'
		});
		const bare = await rawRequest(rig.dash.port, 'POST', '/mcp', {}, init);
		expect(bare.status).toBe(401);
		expect(bare.headers['www-authenticate']).toMatch(/^Bearer/);
		const feedOnly = await rawRequest(rig.dash.port, 'POST', '/mcp', headers(feedToken), init);
		expect(feedOnly.status).toBe(401);
		expect(feedOnly.body).toMatch(/needs the \\"mcp\\" scope/);
		const misdirected = await rawRequest(
			rig.dash.port,
			'POST',
			'/mcp',
			{ ...headers(mcpToken), host: 'evil.example' },
			init
		);
		expect(misdirected.status).toBe(421);

		const doomed = await rig.tokens.create('doomed', ['mcp'], (await rig.tokens.list())[0].owner);
		const client = await httpClient(rig.dash.base, doomed.token);
		expect((await call(client, 'list_tickers')).isError).toBeFalsy();
		expect(await rig.tokens.revoke(doomed.info.id)).toBeDefined();
		// At once: the very next request of the open session.
		await expect(call(client, 'list_tickers')).rejects.toThrow(/Unknown or revoked/);
		const after = await rawRequest(rig.dash.port, 'POST', '/mcp', headers(doomed.token), init);
		expect(after.status).toBe(401);
		await expect(httpClient(rig.dash.base, doomed.token)).rejects.toThrow(/Unknown or revoked/);
		await client.close().catch(() => undefined);
	}, 60_000);
});

describe('MCP over stdio (npm run mcp)', () => {
	it('relays to the dashboard: every tool and the resource, with a token from a file', async () => {
		const file = join(rig.dataDir, 'mcp-token.txt');
		writeFileSync(file, mcpToken + '\n', { mode: 0o600 });
		const client = new SdkClient({ name: 'gexdeck-stdio-test', version: '1.0.0' });
		await client.connect(
			new StdioClientTransport({
				command: 'npm',
				args: ['run', '--silent', 'mcp'],
				cwd: root,
				env: {
					...(process.env as Record<string, string>),
					GEXDECK_MCP_URL: `${rig.dash.base}/mcp`,
					GEXDECK_TOKEN_FILE: file
				},
				stderr: 'pipe'
			})
		);
		await exercise(client);
		await client.close();
	}, 180_000);

	it('a revoked token: the relay answers the request with the dashboard refusal', async () => {
		const doomed = await rig.tokens.create(
			'stdio-doomed',
			['mcp'],
			(await rig.tokens.list())[0].owner
		);
		await rig.tokens.revoke(doomed.info.id);
		const client = new SdkClient({ name: 'gexdeck-stdio-test', version: '1.0.0' });
		const transport = new StdioClientTransport({
			command: 'npm',
			args: ['run', '--silent', 'mcp'],
			cwd: root,
			env: {
				...(process.env as Record<string, string>),
				GEXDECK_MCP_URL: `${rig.dash.base}/mcp`,
				GEXDECK_TOKEN: doomed.token
			},
			stderr: 'pipe'
		});
		await expect(client.connect(transport)).rejects.toThrow(/Unknown or revoked/);
		await transport.close().catch(() => undefined);
	}, 60_000);
});
