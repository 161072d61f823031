/**
 * Interoperability with a client nobody here wrote: the official Azure Web PubSub JavaScript
 * client (`@azure/web-pubsub-client`, json.webpubsub.azure.v1) on a URL negotiated from the
 * embedded service with its real simulated market. A received frame, decoded with protobufjs
 * and zstd, carries exactly the wire integers of the REST snapshot of the same second.
 */
import { WebPubSubClient, WebPubSubJsonProtocol } from '@azure/web-pubsub-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toWire, U100 } from '../../src/lib/contract/scaling';
import { HubClient } from './service-hubs.client';
import { decodeFrame, expectGexFrameMatchesRest, type DecodedFrame } from './service-hubs.decode';
import {
	getJson,
	negotiateUrls,
	quantKey,
	startHubService,
	type HubService
} from './service-support';

const key = quantKey();
let t: HubService;

beforeAll(async () => {
	t = await startHubService({
		seed: 11,
		// Wednesday 2026-11-18 10:30 ET: regular trading hours, so the engine ticks every second.
		start: '2026-11-18T15:30:00Z',
		tickers: ['SPX', 'SPY']
	});
});

afterAll(async () => {
	await t?.close();
});

const rest = (path: string) => getJson(t.service.url, path, key);

describe('official @azure/web-pubsub-client', () => {
	it('receives group frames that decode to the REST snapshot of the same second', async () => {
		const websocket_urls = await negotiateUrls(t.service.url, key, [
			'SPX_classic_gex_full',
			'SPX_spot'
		]);

		const client = new WebPubSubClient(websocket_urls.v2_classic, {
			protocol: WebPubSubJsonProtocol(),
			autoReconnect: false
		});
		const gexFrames: DecodedFrame[] = [];
		const spotByTs = new Map<number, DecodedFrame>();
		let wake: (() => void) | undefined;
		client.on('group-message', (e) => {
			const frame = decodeFrame(Buffer.from(e.message.data as ArrayBuffer).toString('base64'));
			if (e.message.group === 'SPX_spot') spotByTs.set(Number(frame.value.timestamp), frame);
			else if (e.message.group === 'SPX_classic_gex_full') gexFrames.push(frame);
			wake?.();
		});
		await client.start();
		try {
			// The REST snapshot moves on every second: compare against the first frame whose
			// second is still the one REST serves.
			let matched = false;
			for (let attempt = 0; attempt < 8 && !matched; attempt++) {
				const seen = gexFrames.length;
				await new Promise<void>((resolve, reject) => {
					const timer = setTimeout(() => reject(new Error('no frame within 5 s')), 5000);
					wake = () => {
						if (gexFrames.length > seen) {
							clearTimeout(timer);
							resolve();
						}
					};
				});
				const frame = gexFrames[gexFrames.length - 1];
				const snap = await rest('/SPX/classic/gex_full');
				if (snap.timestamp !== Number(frame.value.timestamp)) continue;
				matched = true;
				expectGexFrameMatchesRest(frame, snap);
				// The spot frame of the same calculation: same ticker and timestamp.
				const deadline = Date.now() + 3000;
				while (!spotByTs.has(snap.timestamp as number) && Date.now() < deadline) {
					await new Promise((r) => setTimeout(r, 20));
				}
				const spot = spotByTs.get(snap.timestamp as number);
				expect(spot?.typeUrl).toContain('proto.spot');
				expect(spot?.value.ticker).toBe('SPX');
				expect(spot?.value.spot).toBe(toWire(snap.spot as number, U100));
			}
			expect(matched).toBe(true);
		} finally {
			client.stop();
		}
	});

	it('streams explicit-expiry greek groups of the market calendar every 5 seconds', async () => {
		const { expiries } = (await rest('/options/SPX/expiries')) as { expiries: string[] };
		const group = `SPX_state_gamma_${expiries[1].replaceAll('-', '')}`;
		const websocket_urls = await negotiateUrls(t.service.url, key, [group, 'SPX_spot']);
		const client = await HubClient.connect(websocket_urls.v2_state_greeks);
		try {
			const first = await client.next((m) => m.group === group, 8000);
			const second = await client.nextNew((m) => m.group === group, 8000);
			const [a, b] = [first, second].map((m) => decodeFrame(m.data!));
			expect(a.typeUrl).toContain('proto.greek');
			expect(a.value.ticker).toBe('SPX');
			expect((a.value.mini_contracts as unknown[]).length).toBeGreaterThan(0);
			expect(Number(b.value.timestamp) - Number(a.value.timestamp)).toBe(5);
		} finally {
			client.close();
		}
	});
});
