/**
 * The dashboard's stream relay over real sockets: the embedded service (hubs attached, ticks
 * fired by the test), a StreamRelay holding the demo Quant account's slot, and viewers on the
 * relay's own `/stream` endpoint. Negotiation requests are counted at the service.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
	attachStreamEndpoint,
	cookieOf,
	StreamRelay,
	type StreamEndpoint
} from '../../src/lib/server/stream';
import { decodeFrame } from '../../src/lib/wire/decode';
import type { ClassicChain } from '../../src/lib/contract/schemas';
import { demoAccounts } from '../../src/service/accounts/demo';
import type { Hubs } from '../../src/service/hubs/index';
import type { RunningService } from '../../src/service/server';
import { ManualMarket } from './service-hubs.market';
import { StreamViewer } from './stream-relay.viewer';
import { startHubService, type HubService } from './service-support';

const UA = 'gexdeck/test';
const market = new ManualMarket();
const accounts = demoAccounts();
const quant = accounts.accounts.find((a) => a._id === 'demo-quant')!;
const customKey = quant.keys.find((k) => k.integration === 'custom')!.key;
let clock = Date.UTC(2026, 10, 20, 15, 0, 0);

let service: RunningService;
let hubs: Hubs;
let t: HubService;
let relay: StreamRelay;
let dashboard: Server;
let endpoint: StreamEndpoint;
let streamUrl: string;
const negotiations = { POST: 0, PATCH: 0, GET: 0 };
const AUTH = { Cookie: 'session=letmein' };

beforeAll(async () => {
	t = await startHubService({ market, accounts, hubs: { now: () => clock } });
	({ service, hubs } = t);
	service.server.on('request', (req) => {
		if (req.url?.startsWith('/v2/negotiate')) {
			negotiations[req.method as keyof typeof negotiations]++;
		}
	});
	relay = new StreamRelay({
		baseUrl: service.url,
		key: customKey,
		userAgent: UA,
		backoff: { baseMs: 50, maxMs: 400 }
	});
	dashboard = createServer((_req, res) => res.writeHead(404).end());
	endpoint = attachStreamEndpoint(
		dashboard,
		relay,
		(req) => cookieOf(req, 'session') === 'letmein'
	);
	await new Promise<void>((r) => dashboard.listen(0, '127.0.0.1', r));
	streamUrl = `ws://127.0.0.1:${(dashboard.address() as AddressInfo).port}/stream`;
});

afterAll(async () => {
	endpoint?.close();
	await relay?.close();
	await new Promise((r) => dashboard?.close(r));
	await t?.close();
});

function upstreamMemberships(): string[] {
	const slot = hubs.slots.find('demo-quant', 'custom');
	const out: string[] = [];
	for (const [hub, groups] of slot?.memberships ?? [])
		for (const g of groups) out.push(`${hub}/${g}`);
	return out.sort();
}

async function subscribe(viewer: StreamViewer, groups: string[]) {
	const reply = await viewer.request({ type: 'subscribe', groups });
	await relay.settled();
	if (reply.type !== 'subscribed') throw new Error(JSON.stringify(reply));
	return reply;
}

/** Fires ticks until `viewer` has a frame of each group (spot may come from either hub). */
async function tickFor(viewer: StreamViewer, groups: string[]) {
	const waits = groups.map((g) => viewer.nextFrame(g));
	market.tick();
	return Promise.all(waits);
}

const near = (a: number, b: number, tol: number) => Math.abs(a - b) <= tol;

describe('stream relay', () => {
	let a: StreamViewer;
	let b: StreamViewer;

	it('refuses viewers that are not signed in or come from another origin', async () => {
		await expect(StreamViewer.open(streamUrl)).rejects.toThrow(/401/);
		await expect(
			StreamViewer.open(streamUrl, { ...AUTH, Origin: 'http://evil.example' })
		).rejects.toThrow(/403/);
	});

	it('two viewers with overlapping groups share one slot: one POST, then PATCHes', async () => {
		a = await StreamViewer.open(streamUrl, AUTH);
		b = await StreamViewer.open(streamUrl, AUTH);
		const ra = await subscribe(a, ['SPX_classic_gex_full', 'SPX_state_gamma_zero']);
		expect(ra).toMatchObject({
			accepted: ['SPX_classic_gex_full', 'SPX_state_gamma_zero'],
			refused: []
		});
		expect(negotiations).toEqual({ POST: 1, PATCH: 0, GET: 0 });
		const rb = await subscribe(b, ['SPX_classic_gex_full', 'SPY_classic_gex_zero']);
		expect(rb.type === 'subscribed' && rb.refused).toEqual([]);
		expect(negotiations).toEqual({ POST: 1, PATCH: 1, GET: 0 });
		// Subscribing again to what is already held changes nothing upstream.
		await subscribe(b, ['SPX_classic_gex_full']);
		expect(negotiations).toEqual({ POST: 1, PATCH: 1, GET: 0 });
		expect(relay.state).toBe('live');
		expect(upstreamMemberships()).toEqual([
			'v2_classic/SPX_classic_gex_full',
			'v2_classic/SPX_spot',
			'v2_classic/SPY_classic_gex_zero',
			'v2_classic/SPY_spot',
			'v2_state_greeks_zero/SPX_spot',
			'v2_state_greeks_zero/SPX_state_gamma_zero'
		]);
		const status = await a.request({ type: 'status' });
		expect(status).toMatchObject({ type: 'status', state: 'live', viewers: 2 });
		expect(status.type === 'status' && status.usage).toMatchObject({ used: 6, limit: 150 });
		expect(status.type === 'status' && status.groups).toEqual([
			'SPX_classic_gex_full',
			'SPX_spot',
			'SPX_state_gamma_zero'
		]);
	});

	it('relays each group to its viewers only, and the bytes decode to the REST snapshot', async () => {
		const bWaits = Promise.all([
			b.nextFrame('SPX_classic_gex_full'),
			b.nextFrame('SPY_classic_gex_zero')
		]);
		const [aFull, aGamma, aSpot] = await tickFor(a, [
			'SPX_classic_gex_full',
			'SPX_state_gamma_zero',
			'SPX_spot'
		]);
		const [bFull] = await bWaits;
		// One upstream frame, the same bytes to both viewers.
		expect(Buffer.from(bFull.any).equals(Buffer.from(aFull.any))).toBe(true);
		expect(a.frames('SPY_classic_gex_zero')).toHaveLength(0);
		expect(b.frames('SPX_state_gamma_zero')).toHaveLength(0);
		expect(aGamma.any.length).toBeGreaterThan(0);

		const res = await fetch(`${service.url}/SPX/classic/gex_full`, {
			headers: {
				Authorization: `Bearer ${customKey}`,
				'User-Agent': UA,
				Accept: 'application/json'
			}
		});
		expect(res.status).toBe(200);
		const rest = (await res.json()) as ClassicChain;
		const decoded = decodeFrame(aFull.any);
		expect(decoded.kind).toBe('gex');
		const chain = decoded.value as ClassicChain;
		expect(chain.timestamp).toBe(rest.timestamp);
		expect(chain.ticker).toBe('SPX');
		expect(near(chain.spot, rest.spot, 0.011)).toBe(true);
		expect(near(chain.zero_gamma, rest.zero_gamma, 0.011)).toBe(true);
		expect(chain.strikes).toHaveLength(rest.strikes.length);
		chain.strikes.forEach((row, i) => {
			expect(near(row[0], rest.strikes[i][0], 0.011)).toBe(true);
			expect(near(row[1], rest.strikes[i][1], 0.011)).toBe(true);
			expect(near(row[2], rest.strikes[i][2], 0.011)).toBe(true);
		});
		expect(near(chain.sum_gex_vol, rest.sum_gex_vol, 0.0011)).toBe(true);
		const spot = decodeFrame(aSpot.any);
		expect(spot.kind).toBe('spot');
		expect(spot.value).toMatchObject({ ticker: 'SPX', timestamp: rest.timestamp });
		// One calculation's spot arrives on both SPX hubs; the relay forwards it once.
		expect(relay.counters.spotDuplicates).toBeGreaterThan(0);
	});

	it('a viewer leaving removes only its groups (one PATCH)', async () => {
		await b.close();
		await new Promise((r) => setTimeout(r, 50));
		await relay.settled();
		expect(negotiations).toEqual({ POST: 1, PATCH: 2, GET: 0 });
		expect(upstreamMemberships()).toEqual([
			'v2_classic/SPX_classic_gex_full',
			'v2_classic/SPX_spot',
			'v2_state_greeks_zero/SPX_spot',
			'v2_state_greeks_zero/SPX_state_gamma_zero'
		]);
		await tickFor(a, ['SPX_classic_gex_full']);
	});

	it('a dropped hub reconnects with its URL, without a new POST', async () => {
		const slot = hubs.slots.find('demo-quant', 'custom')!;
		const conn = [...slot.connections].find((c) => c.hub === 'v2_classic')!;
		const connects = relay.counters.hubConnects;
		conn.close('Internal server error', 1011);
		await a.status('reconnecting');
		await a.status('live');
		expect(relay.counters.hubDrops).toBe(1);
		expect(relay.counters.hubConnects).toBe(connects + 1);
		expect(negotiations.POST).toBe(1);
		await tickFor(a, ['SPX_classic_gex_full', 'SPX_state_gamma_zero']);
	});

	it('an expired URL for a hub not yet connected renegotiates (one POST)', async () => {
		clock += 16 * 60_000; // the service's URL window has passed; the relay's clock has not
		await subscribe(a, ['SPX_orderflow_orderflow']);
		expect(negotiations.POST).toBe(2);
		expect(relay.state).toBe('live');
		expect(relay.openHubs().sort()).toEqual(['v2_classic', 'v2_orderflow', 'v2_state_greeks_zero']);
		expect(upstreamMemberships()).toContain('v2_orderflow/SPX_orderflow_orderflow');
		await tickFor(a, ['SPX_orderflow_orderflow', 'SPX_classic_gex_full']);
	});

	it('refuses groups over the membership limit with the reason, accepts the rest', async () => {
		// 3 classic categories + spot = 4 memberships per ticker; 40 tickers would need 160.
		const tickers = [
			'AAPL',
			'AMD',
			'AMZN',
			'APP',
			'AVGO',
			'BABA',
			'BOIL',
			'COIN',
			'CRWD',
			'CRWV',
			'DDOG',
			'DIA',
			'GLD',
			'GME',
			'GOOG',
			'GOOGL',
			'HOOD',
			'HYG',
			'IBIT',
			'INTC',
			'IONQ',
			'IWM',
			'META',
			'MSFT',
			'MSTR',
			'MU',
			'NFLX',
			'NVDA',
			'NVO',
			'ORCL',
			'PL',
			'PLTR',
			'QQQ',
			'RDDT',
			'ROKU',
			'SHOP',
			'SLV',
			'SMCI',
			'SNDK',
			'SNOW'
		];
		const groups = tickers.flatMap((t) =>
			['gex_full', 'gex_zero', 'gex_one'].map((c) => `${t}_classic_${c}`)
		);
		const c = await StreamViewer.open(streamUrl, AUTH);
		const patches = negotiations.PATCH;
		const reply = await subscribe(c, [...groups, 'SPX_spot', 'NOPE_classic_gex_full']);
		if (reply.type !== 'subscribed') throw new Error('expected subscribed');
		const reasons = new Map(reply.refused.map((r) => [r.group, r.reason]));
		expect(reasons.get('SPX_spot')).toMatch(/automatically/);
		expect(reasons.get('NOPE_classic_gex_full')).toMatch(/Unknown ticker/);
		const overLimit = reply.refused.filter((r) => /Membership limit/.test(r.reason));
		expect(overLimit.length).toBeGreaterThan(0);
		expect(overLimit[0].reason).toMatch(/limit is 150/);
		const status = await c.request({ type: 'status' });
		expect(status.type === 'status' && status.usage.used).toBeLessThanOrEqual(150);
		expect(status.type === 'status' && status.usage.used).toBeGreaterThan(145);
		// The upstream was asked once, within the limit, and agreed.
		expect(negotiations.PATCH).toBe(patches + 1);
		expect(upstreamMemberships().length).toBe(status.type === 'status' ? status.usage.used : -1);
		await c.close();
		await new Promise((r) => setTimeout(r, 50));
		await relay.settled();
		// SPX classic + greeks-zero + orderflow, each with SPX_spot on its hub.
		expect(upstreamMemberships()).toHaveLength(6);
	});

	it('a foreign POST takes the slot: viewers are told, no reconnect loop, takeBack resumes', async () => {
		const posts = negotiations.POST;
		const foreign = await fetch(`${service.url}/negotiate`, {
			method: 'POST',
			headers: {
				Authorization: `Bearer ${customKey}`,
				'User-Agent': 'other-script/1.0',
				'Content-Type': 'application/json'
			},
			body: JSON.stringify({ groups: ['SPY_classic_gex_full', 'SPY_spot'] })
		});
		expect(foreign.status).toBe(200);
		const taken = await a.status('slot-taken');
		expect(taken.type === 'status' && taken.reason).toMatch(/Websocket Session Limit Reached/);
		await new Promise((r) => setTimeout(r, 1000));
		expect(negotiations.POST).toBe(posts + 1); // the foreign one only
		expect(relay.state).toBe('slot-taken');
		expect(relay.openHubs()).toEqual([]);

		const reply = await a.request({ type: 'takeBack' });
		expect(reply.type).toBe('status');
		await a.status('live');
		await relay.settled();
		expect(negotiations.POST).toBe(posts + 2);
		await tickFor(a, ['SPX_classic_gex_full']);
	});

	it('when the last viewer leaves, one PATCH empties the set and the hubs stay connected', async () => {
		const patches = negotiations.PATCH;
		const posts = negotiations.POST;
		await a.close();
		await new Promise((r) => setTimeout(r, 50));
		await relay.settled();
		expect(negotiations.PATCH).toBe(patches + 1);
		expect(upstreamMemberships()).toEqual([]);
		expect(relay.state).toBe('idle');
		// A new tab later needs no POST: the URLs' hubs are still connected.
		const c = await StreamViewer.open(streamUrl, AUTH);
		await subscribe(c, ['SPX_classic_gex_full']);
		expect(negotiations.POST).toBe(posts);
		expect(negotiations.PATCH).toBe(patches + 2);
		await tickFor(c, ['SPX_classic_gex_full', 'SPX_spot']);
		await c.close();
	});
});
