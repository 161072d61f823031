/**
 * A consumer that stops reading: its connection is closed with a clear reason once the bytes
 * queued for it pass the bound, instead of the service's memory growing with every tick; the
 * other members of the same groups keep receiving.
 */
import type { Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoAccounts } from '../../src/service/accounts/demo';
import type { Hubs } from '../../src/service/hubs/index';
import type { RunningService } from '../../src/service/server';
import { HubClient } from './service-hubs.client';
import { ManualMarket } from './service-hubs.market';
import { negotiateUrls, startHubService, type HubService } from './service-support';

const market = new ManualMarket(['SPX']);
const accounts = demoAccounts();
const quant = accounts.accounts.find((a) => a._id === 'demo-quant')!;
const customKey = quant.keys.find((k) => k.integration === 'custom')!.key;
const platformKey = quant.keys.find((k) => k.integration === 'ninjatrader')!.key;
const MAX_BUFFERED = 256 * 1024;
let service: RunningService;
let hubs: Hubs;
let t: HubService;

beforeAll(async () => {
	t = await startHubService({ market, accounts, hubs: { maxBufferedBytes: MAX_BUFFERED } });
	({ service, hubs } = t);
});

afterAll(async () => {
	await t?.close();
});

async function connect(key: string): Promise<HubClient> {
	const groups = [
		'SPX_classic_gex_full',
		'SPX_classic_gex_zero',
		'SPX_classic_gex_one',
		'SPX_spot'
	];
	return HubClient.connect((await negotiateUrls(service.url, key, groups)).v2_classic);
}

describe('slow consumers', () => {
	it('closes a connection that stops reading, with the reason, and keeps serving the others', async () => {
		const slow = await connect(customKey);
		const healthy = await connect(platformKey);
		// Stop reading at the TCP level: the kernel buffers fill, then the server's queue grows.
		const socket = (slow.ws as unknown as { _socket: Socket })._socket;
		socket.pause();

		// The same tick delivered again and again: what a burst of seconds would queue.
		const tick = market.tick();
		let dropped = 0;
		let rounds = 0;
		for (; rounds < 50_000 && dropped === 0; rounds++) {
			dropped += hubs.deliver(tick).framesDropped;
			// Let the event loop write to the sockets between rounds, as the real cadence does.
			if (rounds % 50 === 0) await new Promise((r) => setImmediate(r));
		}
		expect(dropped).toBeGreaterThan(0);

		const framesBefore = healthy.groupMessages('SPX_classic_gex_full').length;
		const wait = healthy.nextNew((m) => m.group === 'SPX_classic_gex_full', 10_000);
		hubs.deliver(market.tick());
		await wait;
		expect(healthy.groupMessages('SPX_classic_gex_full').length).toBeGreaterThan(framesBefore);
		expect(healthy.messages.some((m) => m.event === 'disconnected')).toBe(false);

		socket.resume();
		const closed = await slow.closed;
		expect(closed.code).toBe(1008);
		expect(closed.reason).toMatch(/not reading fast enough/);
		healthy.close();
	});
});
