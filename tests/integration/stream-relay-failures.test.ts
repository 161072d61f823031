/**
 * The relay when the upstream says no or is not there: an upstream limit lower than the
 * relay's own (403) revokes only the groups of that change; an unreachable upstream is retried
 * with growing delays; a refused key stops without retrying.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
	attachStreamEndpoint,
	StreamRelay,
	type StreamEndpoint
} from '../../src/lib/server/stream';
import { demoAccounts } from '../../src/service/accounts/demo';
import { ManualMarket } from './service-hubs.market';
import { StreamViewer } from './stream-relay.viewer';
import { startHubService, type HubService } from './service-support';

const market = new ManualMarket();
const accounts = demoAccounts();
const research = accounts.accounts.find((a) => a._id === 'demo-research')!;
research.group_limit = 4;
const limitedKey = research.keys.find((k) => k.key.startsWith('gexbot_custom_'))!.key;
let t: HubService;
const cleanups: (() => Promise<void> | void)[] = [];

beforeAll(async () => {
	t = await startHubService({ market, accounts });
});

afterAll(async () => {
	for (const c of cleanups.reverse()) await c();
	await t?.close();
});

function hubsOf(account: string): string[] {
	const out: string[] = [];
	for (const [hub, groups] of t.hubs.slots.find(account, 'custom')?.memberships ?? []) {
		for (const g of groups) out.push(`${hub}/${g}`);
	}
	return out;
}

async function mount(relay: StreamRelay): Promise<string> {
	const server: Server = createServer((_q, s) => s.writeHead(404).end());
	const endpoint: StreamEndpoint = attachStreamEndpoint(server, relay, () => true);
	await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
	cleanups.push(async () => {
		endpoint.close();
		await relay.close();
		await new Promise((r) => server.close(r));
	});
	return `ws://127.0.0.1:${(server.address() as AddressInfo).port}/stream`;
}

describe('stream relay failures', () => {
	it('an upstream refusal revokes only the groups of that change, with the reason', async () => {
		const relay = new StreamRelay({
			baseUrl: t.service.url,
			key: limitedKey,
			userAgent: 'gexdeck/test'
		});
		const viewer = await StreamViewer.open(await mount(relay));
		await viewer.request({
			type: 'subscribe',
			groups: ['SPX_classic_gex_full', 'SPX_state_gamma_zero']
		});
		await relay.settled();
		expect(relay.state).toBe('live');
		const revoked = viewer.nextNew((i) => i.kind === 'message' && i.message.type === 'revoked');
		const reply = await viewer.request({ type: 'subscribe', groups: ['SPX_orderflow_orderflow'] });
		// The relay's own limit (150) let it through; the account's upstream limit (4) does not.
		expect(reply).toMatchObject({ accepted: ['SPX_orderflow_orderflow'] });
		const item = await revoked;
		if (item.kind !== 'message' || item.message.type !== 'revoked') throw new Error('no revoke');
		expect(item.message.refused).toHaveLength(1);
		expect(item.message.refused[0].group).toBe('SPX_orderflow_orderflow');
		expect(item.message.refused[0].reason).toMatch(/Upstream refused: .*limit/i);
		await relay.settled();
		expect(relay.state).toBe('live');
		expect(relay.status().groups).toEqual([
			'SPX_classic_gex_full',
			'SPX_state_gamma_zero',
			'SPX_spot'
		]);
		const waits = [
			viewer.nextFrame('SPX_classic_gex_full'),
			viewer.nextFrame('SPX_state_gamma_zero')
		];
		market.tick();
		await Promise.all(waits);
	});

	it('an unreachable upstream is retried with growing delays, never in a tight loop', async () => {
		let posts = 0;
		const relay = new StreamRelay({
			baseUrl: 'http://127.0.0.1:9/v2',
			key: limitedKey,
			userAgent: 'gexdeck/test',
			backoff: { baseMs: 40, maxMs: 1000 },
			random: () => 0.5,
			fetch: (input, init) => {
				posts++;
				return fetch(input, init);
			}
		});
		const viewer = await StreamViewer.open(await mount(relay));
		await viewer.request({ type: 'subscribe', groups: ['SPX_classic_gex_full'] });
		const isRetry = (i: (typeof viewer.items)[number]) =>
			i.kind === 'message' && i.message.type === 'status' && i.message.state === 'reconnecting';
		while (viewer.items.filter(isRetry).length < 4) await viewer.nextNew(isRetry);
		const delays = viewer.items
			.filter(isRetry)
			.slice(0, 4)
			.map((i) => {
				const reason = i.kind === 'message' && i.message.type === 'status' ? i.message.reason : '';
				return Number(/retrying in (\d+) ms/.exec(reason ?? '')?.[1]);
			});
		// Equal jitter at random 0.5: 3/4 of 40, 80, 160, 320 ms.
		expect(delays).toEqual([30, 60, 120, 240]);
		expect(posts).toBeGreaterThanOrEqual(4);
		expect(posts).toBeLessThanOrEqual(5);
	});

	it('a refused key stops in the error state without retrying', async () => {
		let posts = 0;
		const relay = new StreamRelay({
			baseUrl: t.service.url,
			key: 'gexbot_custom_' + 'x'.repeat(43),
			userAgent: 'gexdeck/test',
			backoff: { baseMs: 10 },
			fetch: (input, init) => {
				posts++;
				return fetch(input, init);
			}
		});
		const viewer = await StreamViewer.open(await mount(relay));
		await viewer.request({ type: 'subscribe', groups: ['SPX_classic_gex_full'] });
		const status = await viewer.status('error');
		expect(status.type === 'status' && status.reason).toMatch(/401/);
		await new Promise((r) => setTimeout(r, 300));
		expect(posts).toBe(1);
		expect(relay.state).toBe('error');
	});
});

describe('stream relay target', () => {
	it('asks for the current key before negotiating; refresh() after a settings change resumes', async () => {
		const quant = accounts.accounts.find((a) => a._id === 'demo-quant')!;
		const quantKey = quant.keys.find((k) => k.integration === 'custom')!.key;
		const target: { baseUrl: string; key: string | undefined } = {
			baseUrl: t.service.url,
			key: undefined
		};
		const relay = new StreamRelay({ target: () => target, userAgent: 'gexdeck/test' });
		const viewer = await StreamViewer.open(await mount(relay));
		await viewer.request({ type: 'subscribe', groups: ['SPY_classic_gex_full'] });
		const error = await viewer.status('error');
		expect(error.type === 'status' && error.reason).toMatch(/No custom-script key/);

		target.key = limitedKey;
		relay.refresh();
		await viewer.status('live');
		const research = 'demo-research';
		expect(hubsOf(research)).toContain('v2_classic/SPY_classic_gex_full');

		// Another key (another account): the relay leaves the old session and negotiates anew.
		target.key = quantKey;
		relay.refresh();
		await relay.settled();
		await viewer.status('live');
		expect(hubsOf('demo-quant')).toContain('v2_classic/SPY_classic_gex_full');
		const waits = viewer.nextFrame('SPY_classic_gex_full');
		market.tick();
		await waits;
	});
});
