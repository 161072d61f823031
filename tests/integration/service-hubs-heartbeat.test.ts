/**
 * Server-side WebSocket pings: a live client (whose WebSocket stack answers pings) stays
 * connected through idle periods; a peer that stops answering is cut after two ping rounds.
 */
import type { Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoAccounts } from '../../src/service/accounts/demo';
import type { RunningService } from '../../src/service/server';
import { HubClient } from './service-hubs.client';
import { ManualMarket } from './service-hubs.market';
import { negotiateUrls, startHubService, type HubService } from './service-support';

const PING_MS = 150;
const accounts = demoAccounts();
const quant = accounts.accounts.find((a) => a._id === 'demo-quant')!;
const keys = {
	custom: quant.keys.find((k) => k.integration === 'custom')!.key,
	platform: quant.keys.find((k) => k.integration === 'ninjatrader')!.key
};
let service: RunningService;
let t: HubService;

beforeAll(async () => {
	t = await startHubService({
		market: new ManualMarket(['SPX']),
		accounts,
		hubs: { pingIntervalMs: PING_MS }
	});
	({ service } = t);
});

afterAll(async () => {
	await t?.close();
});

async function connect(key: string): Promise<HubClient> {
	const urls = await negotiateUrls(service.url, key, ['SPX_classic_gex_full', 'SPX_spot']);
	return HubClient.connect(urls.v2_classic);
}

describe('heartbeats', () => {
	it('keeps an idle but answering client and cuts one that stopped answering pings', async () => {
		const alive = await connect(keys.custom);
		const dead = await connect(keys.platform);
		let pings = 0;
		alive.ws.on('ping', () => pings++);
		(dead.ws as unknown as { _socket: Socket })._socket.pause();
		await new Promise((r) => setTimeout(r, PING_MS * 6));
		expect(pings).toBeGreaterThanOrEqual(2);
		expect(alive.ws.readyState).toBe(alive.ws.OPEN);
		// The server side of the dead peer is gone: the slot has no live connection any more.
		const patch = await fetch(`${service.url}/negotiate`, {
			method: 'PATCH',
			headers: {
				'User-Agent': 'gexdeck-tests/1.0',
				'Content-Type': 'application/json',
				Authorization: `Bearer ${keys.platform}`
			},
			body: JSON.stringify({
				groups: [
					{ hub: 'v2_classic', group: 'SPX_classic_gex_full' },
					{ hub: 'v2_classic', group: 'SPX_spot' }
				]
			})
		});
		expect(patch.status).toBe(409);
		alive.close();
	});
});
