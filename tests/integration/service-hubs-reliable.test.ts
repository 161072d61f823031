/**
 * The official Azure Web PubSub JavaScript client with its DEFAULT protocol
 * (json.reliable.webpubsub.azure.v1), the way the service's own examples use it: legacy
 * GET /v2/negotiate (Basic auth, as the 2025 examples send it), joinGroup of prefixed groups on
 * every hub, frames that decode to the REST snapshot of the same second, sequence acks, and a
 * forced TCP drop under the client (a loopback proxy resets the connections and refuses new ones
 * for two seconds): the client resumes the same connection and sees every sequence id exactly
 * once, in order, with no missed second of the feed; the account still holds one session.
 */
import { WebPubSubClient } from '@azure/web-pubsub-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { LEGACY_HUBS } from '../../src/lib/contract/hubs';
import type { Hubs } from '../../src/service/hubs/index';
import type { ReliableConnection } from '../../src/service/hubs/reliable';
import type { RunningService } from '../../src/service/server';
import { TcpProxy } from '../support/tcpProxy';
import { until } from '../support/until';
import { decodeFrame, expectGexFrameMatchesRest, type DecodedFrame } from './service-hubs.decode';
import { UA, getJson, quantKey, startHubService, type HubService } from './service-support';

const key = quantKey();
let t: HubService;
let service: RunningService;
let hubs: Hubs;
let proxy: TcpProxy;

beforeAll(async () => {
	t = await startHubService({
		seed: 12,
		// Wednesday 2026-11-18 11:00 ET: regular trading hours, the engine ticks every second.
		start: '2026-11-18T16:00:00Z',
		tickers: ['SPX']
	});
	({ service, hubs } = t);
	proxy = await TcpProxy.start(service.port);
});

afterAll(async () => {
	await proxy?.close();
	await t?.close();
});

function headers(authorization: string): Record<string, string> {
	return { 'User-Agent': UA, Accept: 'application/json', Authorization: authorization };
}

const rest = (path: string) => getJson(service.url, path, key);

interface Received {
	group: string;
	sequenceId: number;
	frame: DecodedFrame;
}

describe('official client, default (reliable) protocol', () => {
	it('joins every hub, decodes REST-equal frames, acks, and resumes across a TCP drop', async () => {
		// The 2025 examples negotiate with `Authorization: Basic <raw key>`.
		const negotiated = await fetch(`${service.url}/negotiate`, {
			headers: headers(`Basic ${key}`)
		});
		expect(negotiated.status).toBe(200);
		const { websocket_urls: urls, prefix } = (await negotiated.json()) as {
			websocket_urls: Record<string, string>;
			prefix: string;
		};
		expect(Object.keys(urls).sort()).toEqual([...LEGACY_HUBS].sort());
		const { expiries } = (await rest('/options/SPX/expiries')) as { expiries: string[] };
		const plan: Record<string, string[]> = {
			classic: ['SPX_classic_gex_full', 'SPX_spot'],
			state_gex: ['SPX_state_gex_zero'],
			state_greeks_zero: ['SPX_state_gamma_zero'],
			state_greeks_one: ['SPX_state_delta_one'],
			state_greeks: [`SPX_state_gamma_${expiries[0].replaceAll('-', '')}`],
			orderflow: ['SPX_orderflow_orderflow']
		};
		const received = new Map<string, Received[]>();
		const clients = new Map<string, WebPubSubClient>();
		const connectionIds = new Map<string, string>();
		for (const hub of LEGACY_HUBS) {
			const client = new WebPubSubClient(proxy.via(urls[hub]));
			const log: Received[] = [];
			received.set(hub, log);
			client.on('connected', (e) => connectionIds.set(hub, e.connectionId));
			client.on('group-message', (e) => {
				const base64 = Buffer.from(e.message.data as ArrayBuffer).toString('base64');
				log.push({
					group: e.message.group,
					sequenceId: e.message.sequenceId!,
					frame: decodeFrame(base64)
				});
			});
			await client.start();
			for (const group of plan[hub]) await client.joinGroup(`${prefix}_${group}`);
			clients.set(hub, client);
		}
		try {
			const slot = hubs.slots.find('demo-quant', 'custom')!;
			const session = slot.session!.id;
			expect(slot.connections.size).toBe(LEGACY_HUBS.length);
			// Every hub delivers (the explicit-expiry one every 5 s).
			await until(
				() => LEGACY_HUBS.every((h) => (received.get(h)?.length ?? 0) > 0),
				12_000,
				'a frame on every hub'
			);
			const typeOf: Record<string, string> = {
				classic: 'proto.gex',
				state_gex: 'proto.gex',
				state_greeks_zero: 'proto.greek',
				state_greeks_one: 'proto.greek',
				state_greeks: 'proto.greek',
				orderflow: 'proto.orderflow'
			};
			for (const hub of LEGACY_HUBS) {
				const first = received.get(hub)!.find((r) => !r.group.endsWith('_spot'))!;
				expect(first.frame.typeUrl, hub).toContain(typeOf[hub]);
				expect(first.group.startsWith(`${prefix}_SPX_`)).toBe(true);
			}

			// A frame equals the REST snapshot of its second.
			const classic = received.get('classic')!;
			let matched = false;
			for (let attempt = 0; attempt < 8 && !matched; attempt++) {
				const seen = classic.length;
				await until(() => classic.length > seen, 5000, 'the next classic frame');
				const last = classic.filter((r) => r.group.endsWith('gex_full')).at(-1)!;
				const snap = await rest('/SPX/classic/gex_full');
				if (snap.timestamp !== Number(last.frame.value.timestamp)) continue;
				expectGexFrameMatchesRest(last.frame, snap);
				matched = true;
			}
			expect(matched).toBe(true);

			// The client acks (about once a second): the service's resend buffers drain.
			const reliable = [...hubs.reliable.connections()] as ReliableConnection[];
			expect(reliable).toHaveLength(LEGACY_HUBS.length);
			await until(
				() => reliable.every((c) => c.acked > 0 && c.sequenceId - c.acked <= 10),
				5000,
				'acks'
			);

			// The network drops under every client and stays away for 2 s.
			const before = classic.length;
			const lastBefore = Number(classic.at(-1)!.frame.value.timestamp);
			proxy.down(2000);
			await new Promise((r) => setTimeout(r, 500));
			expect(reliable.every((c) => c.isSuspended)).toBe(true);
			await until(() => reliable.every((c) => c.resumes === 1 && c.isOpen), 15_000, 'resume');
			const resumedAt = Math.floor(service.market.now().getTime() / 1000);
			await until(() => classic.length > before + 6, 10_000, 'frames after the resume');

			for (const hub of LEGACY_HUBS) {
				const ids = received.get(hub)!.map((r) => r.sequenceId);
				// Every id exactly once, in order, from 1.
				expect(ids, hub).toEqual(ids.map((_, i) => i + 1));
			}
			// Each second once, in order; the seconds computed while the network was away came
			// after the resume (resent), not lost.
			const seconds = classic
				.filter((r) => r.group.endsWith('gex_full'))
				.map((r) => Number(r.frame.value.timestamp));
			for (let i = 1; i < seconds.length; i++) expect(seconds[i]).toBeGreaterThan(seconds[i - 1]);
			const duringCut = seconds.filter((t) => t > lastBefore && t < resumedAt);
			expect(duringCut.length).toBeGreaterThan(0);
			// The same connections, the same session, one slot holding one connection per hub.
			expect(new Set(reliable.map((c) => c.connectionId))).toEqual(new Set(connectionIds.values()));
			expect(hubs.slots.find('demo-quant', 'custom')).toBe(slot);
			expect(slot.session!.id).toBe(session);
			expect(slot.connections.size).toBe(LEGACY_HUBS.length);
			expect(slot.membershipCount()).toBe(7);
			expect(proxy.refused).toBeGreaterThan(0);
		} finally {
			for (const c of clients.values()) c.stop();
		}
		await until(() => hubs.reliable.size === 0, 5000, 'connections to end on stop');
	});
});

describe('subprotocols and recoveries that cannot be served', () => {
	async function negotiate(): Promise<Record<string, string>> {
		const res = await fetch(`${service.url}/negotiate`, {
			method: 'POST',
			headers: { ...headers(`Basic ${btoa(`${key}:`)}`), 'Content-Type': 'application/json' },
			body: JSON.stringify({ groups: ['SPX_classic_gex_zero', 'SPX_spot'] })
		});
		expect(res.status).toBe(200);
		return ((await res.json()) as { websocket_urls: Record<string, string> }).websocket_urls;
	}

	it('refuses a subprotocol it does not speak, naming the ones it does', async () => {
		const urls = await negotiate();
		const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
			const ws = new WebSocket(urls.v2_classic, 'protobuf.webpubsub.azure.v1');
			ws.on('unexpected-response', (_req, res) => {
				let body = '';
				res.on('data', (c) => (body += c));
				res.on('end', () => resolve({ status: res.statusCode!, body }));
			});
			ws.on('open', () => reject(new Error('upgrade accepted')));
			ws.on('error', () => undefined);
		});
		expect(answer.status).toBe(400);
		expect(JSON.parse(answer.body).error).toBe(
			'Subprotocol protobuf.webpubsub.azure.v1 is not supported: use one of json.webpubsub.azure.v1, json.reliable.webpubsub.azure.v1.'
		);
	});

	it('closes a recovery with a wrong token with 1008 and says why', async () => {
		const urls = await negotiate();
		const ws = new WebSocket(urls.v2_classic, 'json.reliable.webpubsub.azure.v1');
		const connected = await new Promise<{ connectionId: string; reconnectionToken: string }>(
			(resolve) => ws.once('message', (d) => resolve(JSON.parse(String(d))))
		);
		expect(connected.reconnectionToken).toMatch(/^[A-Za-z0-9_-]{20,}$/);
		const recovery = new URL(urls.v2_classic);
		recovery.searchParams.set('awps_connection_id', connected.connectionId);
		recovery.searchParams.set('awps_reconnection_token', 'wrong');
		const again = new WebSocket(recovery, 'json.reliable.webpubsub.azure.v1');
		const messages: string[] = [];
		again.on('message', (d) => messages.push(String(d)));
		const close = await new Promise<{ code: number; reason: string }>((resolve) =>
			again.on('close', (code, reason) => resolve({ code, reason: String(reason) }))
		);
		expect(close.code).toBe(1008);
		expect(close.reason).toMatch(/cannot be recovered/);
		expect(JSON.parse(messages[0])).toMatchObject({ type: 'system', event: 'disconnected' });
		ws.close();
	});
});

describe('Basic auth on REST', () => {
	it('accepts Basic <raw key> and Basic base64(key:) like Bearer, and the same refusals', async () => {
		const bearer = await fetch(`${service.url}/SPX/classic/gex_zero/majors`, {
			headers: headers(`Bearer ${key}`)
		});
		expect(bearer.status).toBe(200);
		for (const auth of [`Basic ${key}`, `Basic ${btoa(`${key}:`)}`]) {
			const res = await fetch(`${service.url}/SPX/classic/gex_zero/majors`, {
				headers: headers(auth)
			});
			expect(res.status, auth).toBe(200);
			expect(((await res.json()) as { ticker: string }).ticker).toBe('SPX');
		}
		// History: past the key check, a date in the future is the route's own refusal (no
		// simulated day has to be generated to tell Basic from Bearer here).
		const { end_date } = (await rest('/options/SPX/expiries')) as { end_date: string };
		const histPath = `${service.url}/hist/SPX/classic/gex_zero/${end_date}?noredirect`;
		const histBasic = await fetch(histPath, { headers: headers(`Basic ${key}`) });
		const histBearer = await fetch(histPath, { headers: headers(`Bearer ${key}`) });
		expect(histBasic.status).toBe(400);
		expect(await histBasic.json()).toEqual(await histBearer.json());
		const unknown = await fetch(`${service.url}/SPX/classic/gex_zero/majors`, {
			headers: headers(`Basic ${btoa('gexbot_custom_nope:')}`)
		});
		const asBearer = await fetch(`${service.url}/SPX/classic/gex_zero/majors`, {
			headers: headers('Bearer gexbot_custom_nope')
		});
		expect(unknown.status).toBe(asBearer.status);
		expect(await unknown.json()).toEqual(await asBearer.json());
		const malformed = await fetch(`${service.url}/SPX/classic/gex_zero/majors`, {
			headers: headers(`Token ${key}`)
		});
		expect(malformed.status).toBe(400);
		expect(await malformed.json()).toEqual({
			error: 'Authorization header must be "Bearer <API key>".'
		});
	});
});
