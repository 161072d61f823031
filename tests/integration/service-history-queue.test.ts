/**
 * The history generation queue over real sockets: ten concurrent requests for ten different
 * past days run at most N generations at a time; every request is answered at once (200 or a 504
 * that says queued or generating, with its place, progress, an estimated wait and Retry-After);
 * none is lost while its client keeps asking (each day ends up on disk and is then a plain 302,
 * and a request job is dropped only when nobody asked about it for two minutes); the service's memory stays
 * bounded while they run.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Market } from '../../src/service/simulatedMarket';
import type { RunningService } from '../../src/service/server';
import { api, keysOf, startTestService, type TestService } from './service-support';

const CONCURRENCY = 2;
/** Ten sessions before Friday 20 Nov 2026 (Veterans Day is a stock-market session). */
const DAYS = [
	'2026-11-06',
	'2026-11-09',
	'2026-11-10',
	'2026-11-11',
	'2026-11-12',
	'2026-11-13',
	'2026-11-16',
	'2026-11-17',
	'2026-11-18',
	'2026-11-19'
];
/** Resident memory the service process may reach while the ten days generate. */
const RSS_BOUND = 800e6;

const keys = keysOf();
let t: TestService;
let service: RunningService;

beforeAll(async () => {
	t = await startTestService({
		// HYG: the smallest chain, so ten whole days stay a short test.
		tickers: ['HYG'],
		start: '2026-11-20T15:30:00Z',
		marketOptions: { historyConcurrency: CONCURRENCY, historyWaitMs: 1500, eodTickers: [] }
	});
	({ service } = t);
}, 120_000);

afterAll(async () => {
	await t?.close();
});

interface Pending {
	error: string;
	status: 'queued' | 'generating';
	position: number;
	progress: number;
	eta_seconds: number;
}

describe('history generation queue', () => {
	it('runs at most N days at a time, answers the rest with their place, and loses none', async () => {
		const market = service.market as Market;
		let peakRss = 0;
		const sampler = setInterval(() => {
			peakRss = Math.max(peakRss, process.memoryUsage().rss);
		}, 100);
		try {
			const path = (date: string) => `/hist/HYG/classic/gex_full/${date}?noredirect`;
			const first = await Promise.all(
				DAYS.map((d) => api(service.url, path(d), { key: keys.quant }))
			);
			const pending = first.filter((r) => r.status === 504);
			for (const r of first) expect([200, 504]).toContain(r.status);
			// Two run (and may finish within the wait); every other one is queued behind them.
			expect(pending.length).toBeGreaterThanOrEqual(DAYS.length - CONCURRENCY);
			const queued = pending.map((r) => r.json() as Pending).filter((b) => b.status === 'queued');
			expect(queued.length).toBeGreaterThanOrEqual(DAYS.length - CONCURRENCY);
			for (const r of pending) {
				const body = r.json() as Pending;
				expect(body.error).toMatch(/queued \(position \d+ of \d+\)|still being generated/);
				expect(Number(r.headers['retry-after'])).toBe(body.eta_seconds);
				expect(body.eta_seconds).toBeGreaterThan(0);
			}
			// Places are distinct and the estimated wait grows with the place.
			const byPlace = [...queued].sort((a, b) => a.position - b.position);
			expect(new Set(byPlace.map((b) => b.position)).size).toBe(byPlace.length);
			for (let i = 1; i < byPlace.length; i++)
				expect(byPlace[i].eta_seconds).toBeGreaterThanOrEqual(byPlace[i - 1].eta_seconds);
			expect(market.historyQueue.size.running).toBeLessThanOrEqual(CONCURRENCY);

			// A second request for a queued day joins its job instead of queueing another.
			const again = await api(service.url, path(DAYS[DAYS.length - 1]), { key: keys.quant });
			if (again.status === 504) expect((again.json() as Pending).position).toBeLessThanOrEqual(8);

			// Clients that wait ask again now and then, as the dashboard does per Retry-After (a
			// queued day nobody asks about for two minutes is dropped: its client left).
			const deadline = Date.now() + 480_000;
			let asked = Date.now();
			while (market.historyQueue.size.running + market.historyQueue.size.waiting > 0) {
				expect(market.historyQueue.size.running).toBeLessThanOrEqual(CONCURRENCY);
				if (Date.now() > deadline) throw new Error('history queue did not drain in 8 minutes');
				if (Date.now() - asked > 20_000) {
					asked = Date.now();
					for (const d of DAYS) void api(service.url, path(d), { key: keys.quant }).catch(() => 0);
				}
				await new Promise((r) => setTimeout(r, 250));
			}
			expect(market.historyQueue.abandoned).toBe(0);
			expect(market.historyQueue.peakRunning).toBe(CONCURRENCY);
			expect(market.historyQueue.started).toBe(DAYS.length);
			// None lost: every day is now a file read, in any category of its ticker.
			for (const d of DAYS) {
				const r = await api(service.url, `/hist/HYG/state/charm_one/${d}?noredirect`, {
					key: keys.quant
				});
				expect(r.status, `${d}: ${r.text().slice(0, 200)}`).toBe(200);
			}
			expect(market.historyQueue.started).toBe(DAYS.length);
		} finally {
			clearInterval(sampler);
		}
		expect(peakRss).toBeLessThan(RSS_BOUND);
	}, 600_000);
});
