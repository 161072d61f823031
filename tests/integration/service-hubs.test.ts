/**
 * The WebSocket half of the embedded service end to end: negotiation over HTTP, real `ws`
 * clients on the hubs, ticks fired by the test (ManualMarket) so delivery is deterministic.
 */
import { request } from 'node:http';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseGroup } from '../../src/lib/contract/hubs';
import { demoAccounts } from '../../src/service/accounts/demo';
import type { Hubs } from '../../src/service/hubs/index';
import type { RunningService } from '../../src/service/server';
import { HubClient, refusedUpgrade } from './service-hubs.client';
import { ManualMarket } from './service-hubs.market';
import { decodeFrame } from './service-hubs.decode';
import { UA, startHubService, type HubService } from './service-support';

const market = new ManualMarket();
let service: RunningService;
let hubs: Hubs;
let t: HubService;
let clock = Date.UTC(2026, 10, 20, 15, 0, 0);

const accounts = demoAccounts();
const quant = accounts.accounts.find((a) => a._id === 'demo-quant')!;
const research = accounts.accounts.find((a) => a._id === 'demo-research')!;
const classic = accounts.accounts.find((a) => a._id === 'demo-classic')!;
research.group_limit = 4;
const customKey = quant.keys.find((k) => k.integration === 'custom')!.key;
const platformKey = quant.keys.find((k) => k.integration === 'ninjatrader')!.key;
const limitedKey = research.keys.find((k) => k.integration === 'custom')!.key;
const classicKey = classic.keys[0].key;

beforeAll(async () => {
	t = await startHubService({ market, accounts, hubs: { now: () => clock } });
	({ service, hubs } = t);
});

afterAll(async () => {
	await t?.close();
});

async function negotiate(
	key: string | undefined,
	method: 'GET' | 'POST' | 'PATCH',
	body?: unknown,
	ua: string | undefined = UA
): Promise<{ status: number; json: Record<string, unknown> }> {
	const headers: Record<string, string> = { Accept: 'application/json' };
	if (ua) headers['User-Agent'] = ua;
	if (key) headers.Authorization = `Bearer ${key}`;
	if (body !== undefined) headers['Content-Type'] = 'application/json';
	const res = await fetch(`${service.url}/negotiate`, {
		method,
		headers,
		body: body === undefined ? undefined : JSON.stringify(body)
	});
	return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}

/** fetch always sends a User-Agent; node:http sends none unless told. */
function statusWithoutUserAgent(key: string, body: unknown): Promise<number> {
	return new Promise((resolve, reject) => {
		const req = request(
			`${service.url}/negotiate`,
			{
				method: 'POST',
				headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' }
			},
			(res) => {
				res.resume();
				resolve(res.statusCode ?? 0);
			}
		);
		req.on('error', reject);
		req.end(JSON.stringify(body));
	});
}

async function post(key: string, groups: string[]): Promise<Record<string, string>> {
	const { status, json } = await negotiate(key, 'POST', { groups });
	expect(status, JSON.stringify(json)).toBe(200);
	return json.websocket_urls as Record<string, string>;
}

/** Fires one tick and waits until `client` got a message for every group in `groups`. */
async function tickAndReceive(client: HubClient, groups: string[]) {
	const ts = market.timestamp;
	const waits = groups.map((g) => client.nextNew((m) => m.type === 'message' && m.group === g));
	market.tick();
	const received = await Promise.all(waits);
	return { ts, received };
}

const V2_HUBS = [
	'v2_classic',
	'v2_state_gex',
	'v2_state_greeks_zero',
	'v2_state_greeks',
	'v2_state_greeks_one',
	'v2_orderflow'
];

describe('negotiation errors', () => {
	it('requires a User-Agent, a key and the Quant tier', async () => {
		const body = { groups: ['SPX_classic_gex_full', 'SPX_spot'] };
		expect(await statusWithoutUserAgent(customKey, body)).toBe(400);
		expect((await negotiate(undefined, 'POST', body)).status).toBe(400);
		expect((await negotiate('gexbot_custom_' + 'x'.repeat(43), 'POST', body)).status).toBe(401);
		const refused = await negotiate(classicKey, 'POST', body);
		expect(refused.status).toBe(403);
		expect(refused.json.error).toMatch(/Quant/);
	});

	it('refuses unknown groups, expiries outside the calendar and bad bodies with 400', async () => {
		for (const groups of [
			['SPX_classic_gamma_zero', 'SPX_spot'],
			['NOPE_classic_gex_full', 'NOPE_spot'],
			['SPX_state_gamma_20991231', 'SPX_spot'],
			[]
		]) {
			const r = await negotiate(customKey, 'POST', { groups });
			expect(r.status, JSON.stringify(groups)).toBe(400);
			expect(typeof r.json.error).toBe('string');
		}
		expect((await negotiate(customKey, 'POST', { groups: 'SPX_spot' })).status).toBe(400);
	});

	it('refuses missing and orphan spot groups (spot coverage)', async () => {
		const missing = await negotiate(customKey, 'POST', { groups: ['SPX_classic_gex_full'] });
		expect(missing.status).toBe(400);
		expect(missing.json.error).toMatch(/Spot coverage.*SPX_spot/);
		const orphan = await negotiate(customKey, 'POST', {
			groups: ['SPX_classic_gex_full', 'SPX_spot', 'SPY_spot']
		});
		expect(orphan.status).toBe(400);
		expect(orphan.json.error).toMatch(/Spot coverage.*SPY_spot/);
	});

	it('counts expanded spot memberships against the account limit (403 over it)', async () => {
		// 2 analytics on 2 hubs + SPX_spot expanded onto both = 4 = the limit of this account.
		const ok = await negotiate(limitedKey, 'POST', {
			groups: ['SPX_classic_gex_full', 'SPX_state_gamma_zero', 'SPX_spot', 'SPX_spot']
		});
		expect(ok.status).toBe(200);
		const over = await negotiate(limitedKey, 'POST', {
			groups: ['SPX_classic_gex_full', 'SPX_classic_gex_zero', 'SPX_state_gamma_zero', 'SPX_spot']
		});
		expect(over.status).toBe(403);
		expect(over.json.error).toMatch(/limit/i);
	});
});

describe('v2 lifecycle', () => {
	it('negotiates URLs for every hub and streams decodable frames of the joined groups', async () => {
		const urls = await post(customKey, [
			'SPX_classic_gex_full',
			'SPX_state_gamma_zero',
			'SPX_spot',
			'ES_SPX_orderflow_orderflow',
			'ES_SPX_spot'
		]);
		expect(Object.keys(urls).sort()).toEqual([...V2_HUBS].sort());
		for (const [hub, url] of Object.entries(urls)) {
			expect(url).toMatch(
				new RegExp(`^ws://127\\.0\\.0\\.1:\\d+/client/hubs/${hub}\\?access_token=`)
			);
		}
		const classicWs = await HubClient.connect(urls.v2_classic);
		const orderflowWs = await HubClient.connect(urls.v2_orderflow);
		expect(classicWs.messages[0]).toMatchObject({
			type: 'system',
			event: 'connected',
			userId: 'demo-quant'
		});

		const { ts, received } = await tickAndReceive(classicWs, ['SPX_classic_gex_full', 'SPX_spot']);
		await orderflowWs.next((m) => m.group === 'ES_SPX_orderflow_orderflow');
		const [gexMsg, spotMsg] = received;
		expect(gexMsg.dataType).toBe('protobuf');
		const gex = decodeFrame(gexMsg.data!);
		const spot = decodeFrame(spotMsg.data!);
		expect(gex.typeUrl).toContain('proto.gex');
		expect(spot.typeUrl).toContain('proto.spot');
		const sent = market.snapshot('SPX', 'classic', 'gex_full')!.value as {
			spot: number;
			timestamp: number;
		};
		expect(Number(gex.value.timestamp)).toBe(ts);
		expect(Number(spot.value.timestamp)).toBe(ts);
		expect(gex.value.ticker).toBe('SPX');
		expect(spot.value.ticker).toBe('SPX');
		expect(spot.value.spot).toBe(Math.trunc(Math.round(sent.spot * 100)));
		// The v2_classic connection receives only its hub's groups.
		expect(classicWs.messages.some((m) => m.group === 'SPX_state_gamma_zero')).toBe(false);
		classicWs.close();
		orderflowWs.close();
	});

	it('PATCH needs a live connection on every hub named, then replaces the set', async () => {
		const urls = await post(customKey, ['SPX_classic_gex_full', 'SPX_spot']);
		const classicWs = await HubClient.connect(urls.v2_classic);
		const patch = {
			groups: [
				{ hub: 'v2_classic', group: 'SPX_classic_gex_zero' },
				{ hub: 'v2_classic', group: 'SPX_spot' },
				{ hub: 'v2_state_greeks_zero', group: 'SPX_state_gamma_zero' },
				{ hub: 'v2_state_greeks_zero', group: 'SPX_spot' }
			]
		};
		const dead = await negotiate(customKey, 'PATCH', patch);
		expect(dead.status).toBe(409);
		expect(dead.json.error).toMatch(/v2_state_greeks_zero/);

		const greeksWs = await HubClient.connect(urls.v2_state_greeks_zero);
		const wrongHub = await negotiate(customKey, 'PATCH', {
			groups: [
				{ hub: 'v2_classic', group: 'SPX_state_gamma_zero' },
				{ hub: 'v2_classic', group: 'SPX_spot' }
			]
		});
		expect(wrongHub.status).toBe(400);
		const noSpot = await negotiate(customKey, 'PATCH', { groups: patch.groups.slice(0, 3) });
		expect(noSpot.status).toBe(400);
		expect(noSpot.json.error).toMatch(/Spot coverage/);

		const ok = await negotiate(customKey, 'PATCH', patch);
		expect(ok.status).toBe(200);
		expect(ok.json).toEqual({
			updated_groups: 4,
			hubs: { v2_classic: 2, v2_state_greeks_zero: 2 }
		});
		await tickAndReceive(classicWs, ['SPX_classic_gex_zero', 'SPX_spot']);
		await greeksWs.next((m) => m.group === 'SPX_state_gamma_zero');
		const before = classicWs.groupMessages('SPX_classic_gex_full').length;

		// Remove the greeks: only the classic hub keeps memberships.
		const shrink = await negotiate(customKey, 'PATCH', { groups: patch.groups.slice(0, 2) });
		expect(shrink.json).toEqual({ updated_groups: 2, hubs: { v2_classic: 2 } });
		const greeksBefore = greeksWs.groupMessages('SPX_state_gamma_zero').length;
		await tickAndReceive(classicWs, ['SPX_classic_gex_zero']);
		expect(greeksWs.groupMessages('SPX_state_gamma_zero').length).toBe(greeksBefore);
		expect(classicWs.groupMessages('SPX_classic_gex_full').length).toBe(before);
		classicWs.close();
		greeksWs.close();
	});

	it('a second POST kicks every live connection of the slot with the documented reason', async () => {
		const first = await post(customKey, ['SPX_classic_gex_full', 'SPX_state_gex_full', 'SPX_spot']);
		const a = await HubClient.connect(first.v2_classic);
		const b = await HubClient.connect(first.v2_state_gex);
		await post(customKey, ['SPY_classic_gex_full', 'SPY_spot']);
		for (const c of [a, b]) {
			const notice = await c.next((m) => m.type === 'system' && m.event === 'disconnected');
			expect(notice.message).toBe('Websocket Session Limit Reached');
			const closed = await c.closed;
			expect(closed.reason).toBe('Websocket Session Limit Reached');
		}
		// URLs of the superseded negotiation no longer connect.
		const again = await refusedUpgrade(first.v2_classic);
		expect(again.status).toBe(401);
		expect(JSON.parse(again.body).error).toMatch(/superseded/);
	});

	it('custom and platform slots are live at once; a POST kicks only its own slot', async () => {
		const custom = await post(customKey, ['SPX_classic_gex_full', 'SPX_spot']);
		const platform = await post(platformKey, ['SPX_classic_gex_full', 'SPX_spot']);
		const c = await HubClient.connect(custom.v2_classic);
		const p = await HubClient.connect(platform.v2_classic);
		const { received } = await tickAndReceive(c, ['SPX_classic_gex_full']);
		const pFrame = await p.next((m) => m.group === 'SPX_classic_gex_full');
		// One encoding per group and tick, the same bytes for every member.
		expect(pFrame.data).toBe(received[0].data);
		expect(hubs.lastStats()).toMatchObject({ groupsEncoded: 2, framesSent: 4 });
		await post(platformKey, ['SPY_classic_gex_full', 'SPY_spot']);
		expect((await p.closed).reason).toBe('Websocket Session Limit Reached');
		await tickAndReceive(c, ['SPX_classic_gex_full']);
		expect(c.messages.some((m) => m.event === 'disconnected')).toBe(false);
		c.close();
	});

	it('answers ping with pong and ignores unknown or v2 joinGroup messages without closing', async () => {
		const urls = await post(customKey, ['SPX_classic_gex_full', 'SPX_spot']);
		const c = await HubClient.connect(urls.v2_classic);
		c.send({ type: 'somethingNew', x: 1 });
		c.ws.send('not json');
		c.send({ type: 'joinGroup', group: 'SPX_classic_gex_zero', ackId: 7 });
		const ack = await c.next((m) => m.type === 'ack' && m.ackId === 7);
		expect(ack.success).toBe(false);
		expect(ack.error?.message).toMatch(/PATCH/);
		c.send({ type: 'ping' });
		await c.next((m) => m.type === 'pong');
		await tickAndReceive(c, ['SPX_classic_gex_full']);
		c.close();
	});
});

describe('access tokens', () => {
	it('a URL not connected within 15 minutes is refused; one connected in time works', async () => {
		const urls = await post(customKey, ['SPX_classic_gex_full', 'SPX_spot']);
		clock += 15 * 60_000 - 1000;
		const inTime = await HubClient.connect(urls.v2_classic);
		clock += 2000;
		const late = await refusedUpgrade(urls.v2_state_gex);
		expect(late.status).toBe(401);
		expect(JSON.parse(late.body).error).toMatch(/expired/);
		// The connection made in time is not cut when its URL ages.
		await tickAndReceive(inTime, ['SPX_classic_gex_full']);
		inTime.close();
	});

	it('refuses a tampered token, a token of another hub and a missing one', async () => {
		const urls = await post(customKey, ['SPX_classic_gex_full', 'SPX_spot']);
		const url = new URL(urls.v2_classic);
		const token = url.searchParams.get('access_token')!;
		const tampered = token.slice(0, 10) + (token[10] === 'A' ? 'B' : 'A') + token.slice(11);
		url.searchParams.set('access_token', tampered);
		expect((await refusedUpgrade(url.toString())).status).toBe(401);
		const otherHub = urls.v2_classic.replace('/v2_classic?', '/v2_orderflow?');
		expect(JSON.parse((await refusedUpgrade(otherHub)).body).error).toMatch(/another hub/);
		expect((await refusedUpgrade(urls.v2_classic.split('?')[0])).status).toBe(401);
		expect((await refusedUpgrade(urls.v2_classic.replace('v2_classic', 'nohub'))).status).toBe(404);
	});
});

describe('legacy GET flow', () => {
	it('issues v1 hub URLs and a prefix; joinGroup of prefixed groups is acked and delivered', async () => {
		const { status, json } = await negotiate(customKey, 'GET');
		expect(status).toBe(200);
		const urls = json.websocket_urls as Record<string, string>;
		const prefix = json.prefix as string;
		expect(Object.keys(urls).sort()).toEqual(V2_HUBS.map((h) => h.slice(3)).sort());
		expect(prefix).toMatch(/^[a-z]+$/);
		const c = await HubClient.connect(urls.classic);
		c.send({ type: 'joinGroup', group: `${prefix}_SPX_classic_gex_full`, ackId: 1 });
		expect(await c.next((m) => m.type === 'ack' && m.ackId === 1)).toMatchObject({ success: true });
		c.send({ type: 'joinGroup', group: `${prefix}_SPX_state_gamma_zero`, ackId: 2 });
		const wrongHub = await c.next((m) => m.type === 'ack' && m.ackId === 2);
		expect(wrongHub.success).toBe(false);
		expect(wrongHub.error?.name).toBe('Forbidden');
		c.send({ type: 'joinGroup', group: 'SPX_classic_gex_full', ackId: 3 });
		expect((await c.next((m) => m.type === 'ack' && m.ackId === 3)).success).toBe(false);

		const { received } = await tickAndReceive(c, [`${prefix}_SPX_classic_gex_full`]);
		expect(decodeFrame(received[0].data!).typeUrl).toContain('proto.gex');

		c.send({ type: 'leaveGroup', group: `${prefix}_SPX_classic_gex_full`, ackId: 4 });
		expect((await c.next((m) => m.type === 'ack' && m.ackId === 4)).success).toBe(true);
		const count = c.groupMessages(`${prefix}_SPX_classic_gex_full`).length;
		market.tick();
		c.send({ type: 'ping' });
		await c.nextNew((m) => m.type === 'pong');
		expect(c.groupMessages(`${prefix}_SPX_classic_gex_full`).length).toBe(count);

		// PATCH belongs to the v2 flow.
		expect((await negotiate(customKey, 'PATCH', { groups: [] })).status).toBe(409);
		c.close();
	});
});

describe('legacy GET flow limits', () => {
	it('refuses a joinGroup past the account limit with a Forbidden ack', async () => {
		const { json } = await negotiate(limitedKey, 'GET');
		const urls = json.websocket_urls as Record<string, string>;
		const prefix = json.prefix as string;
		const c = await HubClient.connect(urls.classic);
		const groups = ['SPX', 'SPY', 'AAPL', 'XSP', 'ES_SPX'].map(
			(t) => `${prefix}_${t}_classic_gex_full`
		);
		groups.forEach((group, i) => c.send({ type: 'joinGroup', group, ackId: 100 + i }));
		const acks = await Promise.all(
			groups.map((_, i) => c.next((m) => m.type === 'ack' && m.ackId === 100 + i))
		);
		expect(acks.slice(0, 4).every((a) => a.success)).toBe(true);
		expect(acks[4].success).toBe(false);
		expect(acks[4].error?.message).toMatch(/limit/i);
		// A POST on the same slot replaces the legacy session too.
		await post(limitedKey, ['SPX_classic_gex_full', 'SPX_spot']);
		expect((await c.closed).reason).toBe('Websocket Session Limit Reached');
	});
});

describe('every frame sent decodes (property)', () => {
	const GROUPS: Record<string, string> = {
		SPX_classic_gex_full: 'proto.gex',
		SPX_state_gex_zero: 'proto.gex',
		SPX_state_gamma_zero: 'proto.greek',
		SPX_state_charm_one: 'proto.greek',
		SPX_state_vanna_20261218: 'proto.greek',
		SPX_orderflow_orderflow: 'proto.orderflow',
		SPY_classic_gex_one: 'proto.gex',
		XSP_state_delta_zero: 'proto.greek'
	};

	it('for any subset of groups, each frame decodes to its kind with the tick timestamp', async () => {
		await fc.assert(
			fc.asyncProperty(fc.subarray(Object.keys(GROUPS), { minLength: 1 }), async (analytics) => {
				// The tick awaited below is an explicit-expiry one (every 5 s), so expiry groups have
				// frames too; the ticks before it fire while nobody is connected.
				while (market.timestamp % 5 !== 0) market.tick();
				const tickers = [...new Set(analytics.map((g) => g.split('_')[0]))];
				const urls = await post(customKey, [...analytics, ...tickers.map((t) => `${t}_spot`)]);
				const hubsUsed = Object.keys(urls).filter((hub) =>
					analytics.some((g) => hubOfGroup(g) === hub)
				);
				const clients = await Promise.all(hubsUsed.map((h) => HubClient.connect(urls[h])));
				const ts = market.timestamp;
				const waits = clients.flatMap((c, i) =>
					analytics
						.filter((g) => hubOfGroup(g) === hubsUsed[i])
						.flatMap((g) => [g, `${g.split('_')[0]}_spot`])
						.map((g) => c.nextNew((m) => m.type === 'message' && m.group === g))
				);
				market.tick();
				for (const msg of await Promise.all(waits)) {
					const frame = decodeFrame(msg.data!);
					const expected = msg.group!.endsWith('_spot') ? 'proto.spot' : GROUPS[msg.group!];
					expect(frame.typeUrl).toContain(expected);
					expect(Number(frame.value.timestamp)).toBe(ts);
					expect(frame.value.ticker).toBe(msg.group!.split('_')[0]);
				}
				for (const c of clients) c.close();
			}),
			{ numRuns: 8 }
		);
	});
});

function hubOfGroup(group: string): string {
	const p = parseGroup(group);
	if (!p.ok || p.group.kind === 'spot') throw new Error(`not an analytics group: ${group}`);
	return p.group.hub;
}
