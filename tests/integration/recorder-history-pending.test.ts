/**
 * A past day the embedded service is still generating, asked for through the dashboard's code
 * path (historyDayStatus -> REST proxy -> /v2/hist over real sockets): a page is answered within
 * its hold with where the day stands (the service's 504: progress and wait, then Retry-After),
 * the service is asked again only once its Retry-After has passed however often pages poll,
 * and the day then arrives and is stored once.
 */
import { describe, expect, it } from 'vitest';
import type { HistoryPending } from '../../src/lib/contract/historyPending';
import { historyDayStatus, typicalDaySeconds } from '../../src/lib/server/recorder/historyImport';
import { useHistoryService } from './recorder-history.test-support';

// The service starts Friday 20 Nov 2026, 10:30 ET; the Wednesday before is a complete session
// in the window.
const DAY = '2026-11-18';
/** Wall ms of each /v2/hist request and the Retry-After of each 504 the service sent. */
const asked: number[] = [];
const retryAfter: number[] = [];

// The service holds a history request 300 ms before answering 504 with the day's progress.
const history = useHistoryService(
	'hist-pending',
	(req, res) => {
		if (!req.url?.startsWith('/v2/hist/')) return;
		asked.push(Date.now());
		// The service writes its headers with writeHead: read the 504's Retry-After there.
		const writeHead = res.writeHead.bind(res) as (...args: unknown[]) => typeof res;
		res.writeHead = ((status: number, ...rest: unknown[]) => {
			const headers = rest.find((h) => typeof h === 'object' && h !== null) as
				Record<string, unknown> | undefined;
			if (status === 504) retryAfter.push(Number(headers?.['Retry-After']));
			return writeHead(status, ...rest);
		}) as typeof res.writeHead;
	},
	300
);

describe('a past day the service is still generating', () => {
	it('is answered with its progress at once, polled without hammering, then stored', async () => {
		const deps = history.deps();
		const { recorder } = deps;

		// A page (or several) asking every 200 ms, each held at most 150 ms.
		const seen: { pending: HistoryPending; retryAfter: number; heldMs: number }[] = [];
		const started = Date.now();
		const deadline = Date.now() + 330_000;
		for (;;) {
			const before = Date.now();
			const status = await historyDayStatus(deps, 'UNG', 'orderflow_orderflow', DAY, 150);
			const heldMs = Date.now() - before;
			if (status.ready) break;
			seen.push({ pending: status.pending, retryAfter: status.retryAfter, heldMs });
			expect(Date.now()).toBeLessThan(deadline);
			await new Promise((r) => setTimeout(r, 200));
		}

		// Before the service's first answer: how long ago it was asked (no day done yet: no
		// estimate).
		const requesting = seen.filter((s) => s.pending.state === 'requesting');
		expect(requesting.length).toBeGreaterThan(0);
		expect(requesting[0].pending.message).toMatch(
			/^Asked the service for UNG orderflow_orderflow on 2026-11-18 \d+ s ago\.$/
		);
		expect(requesting[0].pending.etaSeconds).toBeNull();
		const tookS = (Date.now() - started) / 1000;

		// Progress was reported, from the service's own 504 (not only "asking").
		const generating = seen.filter((s) => s.pending.state === 'generating');
		expect(generating.length).toBeGreaterThan(0);
		for (const s of generating) {
			expect(s.pending.progress).toBeGreaterThanOrEqual(0);
			expect(s.pending.progress).toBeLessThanOrEqual(1);
			expect(s.pending.etaSeconds).not.toBeNull();
			expect(s.retryAfter).toBeGreaterThanOrEqual(1);
		}
		// No page waited on the service's hold: answered within the hold plus the proxy's work.
		expect(Math.max(...seen.map((s) => s.heldMs))).toBeLessThan(5_000);
		// Many polls, few upstream requests: each came after the previous 504's Retry-After.
		expect(seen.length).toBeGreaterThan(asked.length);
		expect(retryAfter.length).toBe(asked.length - 1);
		for (let i = 1; i < asked.length; i++) {
			expect(retryAfter[i - 1]).toBeGreaterThanOrEqual(1);
			expect(asked[i] - asked[i - 1]).toBeGreaterThanOrEqual(retryAfter[i - 1] * 1000 - 50);
		}

		// Stored once: a later page is answered from the disk, no upstream request.
		const requests = asked.length;
		expect(recorder.read(DAY, 'UNG', 'orderflow_orderflow').length).toBeGreaterThan(100);
		expect(await historyDayStatus(deps, 'UNG', 'orderflow_orderflow', DAY)).toEqual({
			ready: true
		});
		expect(asked.length).toBe(requests);

		// The next day asked for is estimated from this one while the service has not answered.
		const typical = typicalDaySeconds();
		expect(typical).not.toBeNull();
		expect(Math.abs(typical! - tookS)).toBeLessThanOrEqual(2);
		const next = await historyDayStatus(deps, 'UNG', 'orderflow_orderflow', '2026-11-17', 50);
		expect(next.ready).toBe(false);
		if (!next.ready) {
			expect(next.pending.state).toBe('requesting');
			expect(next.pending.etaSeconds).toBe(typical);
			expect(next.pending.message).toContain(`the last days took about ${typical} s`);
		}
		recorder.close();
	}, 360_000);
});
