/**
 * The feed holder over real sockets, counting what goes upstream: the embedded service with its
 * hubs, the dashboard's stream relay (its negotiation requests counted at its fetch) and the
 * dashboard's REST proxy (its upstream GETs counted at its http client).
 *
 * Two clients holding the same feed cost one membership (no second negotiation) when the account
 * streams, and one poll per second (not one per client) when it polls; each update is decoded
 * once and reaches both clients' subscribers; a route the account is not entitled to says so.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { feedOf } from '../../src/lib/contract/feeds';
import { FeedHolder, type FeedUpdate } from '../../src/lib/server/feeds';
import { httpGet } from '../../src/lib/server/httpClient';
import { UpstreamProxy } from '../../src/lib/server/proxy';
import { QuotaLedger } from '../../src/lib/server/quotaLedger';
import { StreamRelay } from '../../src/lib/server/stream';
import { UpdateTap } from '../../src/lib/server/updates/tap';
import { demoAccounts } from '../../src/service/accounts/demo';
import { attachHubs } from '../../src/service/hubs/index';
import { configuredTarget, quantKey, startTestService, type TestService } from './service-support';

const UNG = feedOf('UNG', 'classic', 'gex_full');
const classicKey = demoAccounts().accounts.find((a) => a._id === 'demo-classic')!.keys[0].key;

let svc: TestService;

beforeAll(async () => {
	// Wednesday 2026-11-18 10:05 ET at 30x: the market is open and UNG updates every second.
	svc = await startTestService({ start: '2026-11-18T15:05:00Z', speed: 30, tickers: ['UNG'] });
	await attachHubs(svc.service);
}, 120_000);

afterAll(async () => {
	await svc?.close();
});

/** Resolves once `ok()` holds (polled every 50 ms), or fails after `ms`. */
async function until(ok: () => boolean, ms = 30_000): Promise<void> {
	const deadline = Date.now() + ms;
	while (!ok()) {
		if (Date.now() > deadline) throw new Error('timed out');
		await new Promise((r) => setTimeout(r, 50));
	}
}

describe('feed holder on a streaming account', () => {
	it('two clients holding the same feed take one membership and one negotiation', async () => {
		const tap = new UpdateTap();
		const negotiations: { method: string; groups: number }[] = [];
		const relay = new StreamRelay({
			baseUrl: svc.service.url,
			key: quantKey(),
			userAgent: 'gexdeck/test',
			tap,
			backoff: { baseMs: 50, maxMs: 400 },
			fetch: async (input, init) => {
				if (String(input).includes('/negotiate')) {
					const body = JSON.parse(String(init?.body ?? '{}')) as { groups?: unknown[] };
					negotiations.push({
						method: init?.method ?? 'GET',
						groups: Array.isArray(body.groups) ? body.groups.length : 0
					});
				}
				return fetch(input, init);
			}
		});
		const holder = new FeedHolder({ tap, relay, account: async () => ({ streams: true }) });
		try {
			await holder.decide();
			const recorder = holder.client('recorder');
			const alerts = holder.client('alerts');
			const gotA: FeedUpdate[] = [];
			const gotB: FeedUpdate[] = [];
			recorder.subscribe((u) => gotA.push(u));
			alerts.subscribe((u) => gotB.push(u));

			recorder.hold([UNG]);
			await relay.settled();
			await until(() => gotA.some((u) => u.feed !== undefined));
			const afterFirst = negotiations.length;
			expect(afterFirst).toBeGreaterThan(0);
			expect(relay.status().usage.used).toBe(2); // UNG_classic_gex_full + UNG_spot

			alerts.hold([UNG]);
			await relay.settled();
			await new Promise((r) => setTimeout(r, 1500));
			// The second client's hold changed nothing upstream.
			expect(negotiations.length).toBe(afterFirst);
			expect(relay.status().usage.used).toBe(2);
			expect(relay.viewerCount).toBe(2);
			expect(alerts.status()).toMatchObject({
				mode: 'stream',
				feeds: [{ group: 'UNG_classic_gex_full', held: true, reason: null }],
				usage: { used: 2 }
			});

			// Each frame decoded once, the same object handed to both subscribers.
			const firstShared = gotA.findIndex((u) => gotB.includes(u));
			expect(firstShared).toBeGreaterThanOrEqual(0);
			const shared = gotA.slice(firstShared);
			expect(shared.length).toBeGreaterThan(0);
			expect(shared.every((u) => gotB.includes(u))).toBe(true);
			expect(holder.fanout.counters.decoded).toBe(gotA.length);
			expect(shared.some((u) => u.source === 'stream' && u.frame.kind === 'gex')).toBe(true);
			expect(shared.some((u) => u.source === 'stream' && u.frame.kind === 'spot')).toBe(true);

			// One client letting go keeps the membership for the other.
			recorder.release();
			await relay.settled();
			expect(relay.status().usage.used).toBe(2);
			alerts.release();
			await relay.settled();
			expect(relay.status().usage.used).toBe(0);
		} finally {
			holder.close();
			await relay.close();
		}
	}, 90_000);
});

describe('feed holder on a polling account', () => {
	it('two clients holding the same feed cost one poll per second', async () => {
		const tap = new UpdateTap();
		const upstreamGets: string[] = [];
		const target = configuredTarget(svc.service.url, classicKey);
		const proxy = new UpstreamProxy({
			target: async () => target,
			ledger: new QuotaLedger(),
			userAgent: 'gexdeck/test',
			tap,
			get: (url, headers, timeoutMs) => {
				if (!url.pathname.endsWith('/whoami')) upstreamGets.push(url.pathname);
				return httpGet(url, headers, timeoutMs);
			}
		});
		const polls: string[] = [];
		let open = true;
		const holder = new FeedHolder({
			tap,
			poll: (route) => {
				polls.push(route);
				return proxy.handle('GET', route, new URLSearchParams());
			},
			account: async () => ({ streams: false }),
			isMarketOpen: () => open
		});
		try {
			await holder.decide();
			const recorder = holder.client('recorder');
			const alerts = holder.client('alerts');
			const gotA: FeedUpdate[] = [];
			const gotB: FeedUpdate[] = [];
			recorder.subscribe((u) => gotA.push(u));
			alerts.subscribe((u) => gotB.push(u));
			recorder.hold([UNG]);
			alerts.hold([UNG, feedOf('UNG', 'state', 'gamma_zero')]);

			await until(() => holder.poller!.counters.ticks >= 4);
			await new Promise((r) => setTimeout(r, 300));
			const ticks = holder.poller!.counters.ticks;
			const ungPolls = polls.filter((p) => p === 'UNG/classic/gex_full').length;
			// One request per tick for the feed both clients hold, not one per client.
			expect(ungPolls).toBe(ticks);
			const ungGets = upstreamGets.filter((p) => p.endsWith('/UNG/classic/gex_full')).length;
			expect(ungGets).toBeGreaterThan(0);
			expect(ungGets).toBeLessThanOrEqual(ticks);
			// The State route is refused before it reaches the upstream.
			expect(upstreamGets.some((p) => p.includes('/state/'))).toBe(false);

			expect(recorder.status().feeds).toEqual([
				{ feed: UNG, group: 'UNG_classic_gex_full', held: true, reason: null }
			]);
			const gamma = alerts.status().feeds.find((f) => f.group === 'UNG_state_gamma_zero')!;
			expect(gamma.held).toBe(false);
			expect(gamma.reason).toMatch(/^not entitled: /);

			// Every fresh snapshot decoded once and handed to both clients.
			expect(gotA.length).toBeGreaterThan(0);
			expect(gotA.every((u) => gotB.includes(u))).toBe(true);
			expect(holder.fanout.counters.decoded).toBe(gotA.length);

			open = false;
			const before = polls.length;
			await new Promise((r) => setTimeout(r, 2200));
			expect(polls.length).toBe(before);
			expect(recorder.status().feeds[0]).toMatchObject({ held: false, reason: 'market closed' });
		} finally {
			holder.close();
		}
	}, 90_000);
});
