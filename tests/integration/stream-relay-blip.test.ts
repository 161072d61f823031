/**
 * A 3-second network cut between the dashboard's relay and the service: every TCP connection
 * through a loopback proxy is reset and new ones are refused for 3 s while the market keeps
 * ticking. The relay holds its hubs on the reliable subprotocol, so it resumes the same upstream
 * connections without a negotiation, and both viewers get every second of the feed exactly once
 * and in order: the frames missed during the cut arrive after it.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
	attachStreamEndpoint,
	StreamRelay,
	type StreamEndpoint
} from '../../src/lib/server/stream';
import { demoAccounts } from '../../src/service/accounts/demo';
import { TcpProxy } from '../support/tcpProxy';
import { decodeFrame } from './service-hubs.decode';
import { ManualMarket } from './service-hubs.market';
import { StreamViewer } from './stream-relay.viewer';
import { quantKey, startHubService, type HubService } from './service-support';

const market = new ManualMarket();
const accounts = demoAccounts();
const key = quantKey(accounts);
let proxy: TcpProxy;
let relay: StreamRelay;
let dashboard: Server;
let endpoint: StreamEndpoint;
let t: HubService;
let ticker: ReturnType<typeof setInterval> | undefined;
/** Negotiation requests the relay made (attempts, counted before they reach the network). */
const negotiations: { method: string; at: number }[] = [];

beforeAll(async () => {
	t = await startHubService({ market, accounts });
	proxy = await TcpProxy.start(t.service.port);
	const counting: typeof fetch = (input, init) => {
		if (String(input).includes('/negotiate')) {
			negotiations.push({ method: init?.method ?? 'GET', at: Date.now() });
		}
		return fetch(input, init);
	};
	relay = new StreamRelay({
		// Through the proxy: the hub URLs the service answers point at the proxy too.
		baseUrl: proxy.via(t.service.url),
		key,
		userAgent: 'gexdeck/test',
		backoff: { baseMs: 50, maxMs: 400 },
		fetch: counting
	});
	dashboard = createServer((_req, res) => res.writeHead(404).end());
	endpoint = attachStreamEndpoint(dashboard, relay, () => true);
	await new Promise<void>((r) => dashboard.listen(0, '127.0.0.1', r));
});

afterAll(async () => {
	clearInterval(ticker);
	endpoint?.close();
	await relay?.close();
	await new Promise((r) => dashboard?.close(r));
	await proxy?.close();
	await t?.close();
});

const wait = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Timestamps of a viewer's frames of `group`, decoded from the relayed Any bytes. */
function seconds(viewer: StreamViewer, group: string): number[] {
	return viewer
		.frames(group)
		.map((f) => Number(decodeFrame(Buffer.from(f.any).toString('base64')).value.timestamp));
}

it('a 3 s cut resumes without a negotiation and without a gap, for every viewer', async () => {
	const url = `ws://127.0.0.1:${(dashboard.address() as AddressInfo).port}/stream`;
	const a = await StreamViewer.open(url);
	const b = await StreamViewer.open(url);
	await a.request({ type: 'subscribe', groups: ['SPX_classic_gex_full'] });
	await b.request({ type: 'subscribe', groups: ['SPX_classic_gex_full', 'SPX_state_gamma_zero'] });
	await relay.settled();
	expect(relay.state).toBe('live');
	// The market computes a second every 100 ms of wall time, cut or no cut.
	ticker = setInterval(() => market.tick(false), 100);
	await a.nextFrame('SPX_classic_gex_full');
	await b.nextFrame('SPX_state_gamma_zero');
	await wait(300);

	const posts = negotiations.filter((n) => n.method === 'POST').length;
	const cutAt = Date.now();
	proxy.down(3000);
	await wait(3000);
	const during = negotiations.filter((n) => n.at >= cutAt);
	// Wait for the resumption and a few seconds of feed after it.
	const deadline = Date.now() + 15_000;
	while (relay.openHubs().length < 2 || proxy.refused === 0 || resumes() < 2) {
		if (Date.now() > deadline) throw new Error(`no resume (resumes ${resumes()})`);
		await wait(50);
	}
	await wait(1000);
	clearInterval(ticker);
	ticker = undefined;
	await wait(300);

	expect(during).toEqual([]);
	// Viewers were told while the hubs resumed, and the relay is live again after.
	const told = a.items.flatMap((i) =>
		i.kind === 'message' && i.message.type === 'status' ? [i.message] : []
	);
	expect(told.map((m) => m.state)).toEqual(expect.arrayContaining(['reconnecting', 'live']));
	expect(told.find((m) => m.state === 'reconnecting')?.reason).toMatch(/resuming the same/);
	expect(told.at(-1)?.state).toBe('live');
	expect(relay.state).toBe('live');
	expect(negotiations.filter((n) => n.method === 'POST').length).toBe(posts);
	expect(relay.counters.hubDrops).toBe(0);
	expect(proxy.refused).toBeGreaterThan(0);
	const last = market.timestamp - 1;
	for (const [viewer, groups] of [
		[a, ['SPX_classic_gex_full']],
		[b, ['SPX_classic_gex_full', 'SPX_state_gamma_zero']]
	] as const) {
		for (const group of groups) {
			const got = seconds(viewer, group);
			// Every computed second from the first one seen to the last one, once, in order.
			expect(got.length).toBeGreaterThan(40);
			expect(got, group).toEqual(got.map((_, i) => got[0] + i));
			expect(got.at(-1)).toBe(last);
		}
	}
	// The service kept the same connections: one per hub, the session unchanged.
	const slot = t.hubs.slots.find('demo-quant', 'custom')!;
	expect(slot.connections.size).toBe(2);
});

/** Recoveries of the relay's upstream hubs, as the service counted them. */
function resumes(): number {
	let n = 0;
	for (const c of t.hubs.reliable.connections()) n += c.resumes;
	return n;
}
