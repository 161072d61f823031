/**
 * Issue 30's shared limits over real sockets: three replicas of the built dashboard, one real
 * redis-server, the embedded service behind a forwarder that counts upstream calls. 100
 * parallel requests spread over the replicas against a budget of 5 make exactly 5 upstream
 * calls; 100 identical GETs over the replicas make one; Redis restarted: the replicas refuse
 * with a reason while it is away, /readyz says so, and they serve again once it is back. The
 * Account page of any replica lists the three and the cluster's spend against the budget.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCluster, type TestCluster } from './cluster.support';

const TICKERS = ['SPX', 'UNG', 'SPY', 'QQQ'];
const CATEGORIES = ['gex_full', 'gex_zero', 'gex_one'];
let c: TestCluster;

beforeAll(async () => {
	c = await startCluster({
		replicas: 3,
		tickers: TICKERS,
		majorsDaily: 5,
		env: { GEXDECK_QUOTA_BUDGET: 'api_majors=5' }
	});
}, 240_000);

afterAll(async () => {
	await c?.close();
});

/** Upstream calls of the majors routes (the budgeted pool). */
const majorsCalls = () =>
	[...c.upstream.calls].filter(([p]) => p.endsWith('/majors')).reduce((n, [, k]) => n + k, 0);

const get = (i: number, path: string) =>
	fetch(`${c.replicas[i % c.replicas.length].base}${path}`).then(async (r) => ({
		status: r.status,
		coalesced: r.headers.get('x-gexdeck-coalesced'),
		refused: r.headers.get('x-gexdeck-refused'),
		body: await r.text()
	}));

describe('three replicas on one Redis', () => {
	it('spend a quota of 5 with exactly 5 upstream calls for 100 parallel requests', async () => {
		const paths = TICKERS.flatMap((t) =>
			CATEGORIES.map((cat) => `/api/${t}/classic/${cat}/majors`)
		);
		const answers = await Promise.all(
			Array.from({ length: 100 }, (_, i) => get(i, paths[i % paths.length]))
		);
		expect(majorsCalls()).toBe(5);
		expect(answers.filter((a) => a.status === 200).length).toBeGreaterThanOrEqual(5);
		const refused = answers.filter((a) => a.status !== 200);
		expect(refused.length).toBeGreaterThan(0);
		for (const a of refused) {
			expect(a.status).toBe(429);
			expect(a.refused).toBe('backoff');
			expect(a.body).toContain('daily budget of 5');
		}
		// Past the cadence every replica refuses the pool without asking the upstream.
		await new Promise((r) => setTimeout(r, 1_100));
		for (let i = 0; i < 3; i++) expect((await get(i, paths[i])).status).toBe(429);
		expect(majorsCalls()).toBe(5);
	}, 60_000);

	it('make one upstream call for 100 identical GETs', async () => {
		const path = '/api/SPX/classic/gex_full';
		const before = c.upstream.count('/v2/SPX/classic/gex_full');
		const answers = await Promise.all(Array.from({ length: 100 }, (_, i) => get(i, path)));
		expect(c.upstream.count('/v2/SPX/classic/gex_full') - before).toBe(1);
		expect(answers.every((a) => a.status === answers[0].status)).toBe(true);
		expect(new Set(answers.map((a) => a.body)).size).toBe(1);
		expect(answers.filter((a) => a.coalesced === 'miss')).toHaveLength(1);
	}, 60_000);

	it('list each other and the cluster spend on the Account page', async () => {
		const page = await fetch(`${c.replicas[1].base}/account`);
		expect(page.status).toBe(200);
		const html = await page.text();
		expect(html.match(/data-testid="cluster-replica"/g)).toHaveLength(3);
		// One row of the table is this page's replica (the slot line below may name it too, when
		// this replica holds the slot).
		const table = html.slice(
			html.indexOf('data-testid="cluster-replicas"'),
			html.indexOf('data-testid="cluster-slot"')
		);
		expect(table.match(/\(this page\)/g)).toHaveLength(1);
		const ledger = html.slice(html.indexOf('data-testid="cluster-ledger"'));
		expect(ledger).toMatch(/<td>api_majors<\/td>\s*<td>5 \/ 5<\/td>/);
	}, 60_000);

	it('refuse with a reason while Redis is away and serve again when it is back', async () => {
		const ready = async (i: number) => {
			const r = await fetch(`${c.replicas[i].base}/readyz`);
			return {
				status: r.status,
				redis: ((await r.json()) as { checks: { redis?: string } }).checks.redis
			};
		};
		expect(await ready(0)).toEqual({ status: 200, redis: 'ok' });
		await c.redis.kill();
		for (let i = 0; i < 3; i++) expect(await ready(i)).toEqual({ status: 503, redis: 'failing' });
		const away = await get(1, '/api/UNG/classic/gex_full');
		expect(away.status).toBe(503);
		expect(away.refused).toBe('unreachable');
		expect(away.body).toContain('Redis');
		await c.redis.restart();
		for (let i = 0; i < 3; i++) {
			const deadline = Date.now() + 15_000;
			while ((await ready(i)).status !== 200) {
				if (Date.now() > deadline) throw new Error(`replica ${i} did not recover`);
				await new Promise((r) => setTimeout(r, 100));
			}
		}
		expect((await get(2, '/api/UNG/classic/gex_full')).status).toBe(200);
		for (const r of c.replicas) expect(r.proc.exitCode).toBeNull();
	}, 60_000);

	it('take a replica stopped with SIGTERM off the list at once', async () => {
		const listed = async () =>
			(
				(await (await fetch(`${c.replicas[0].base}/account`)).text()).match(
					/data-testid="cluster-replica"/g
				) ?? []
			).length;
		// Redis was restarted empty: the beats (every 3 s) list the three again.
		const deadline = Date.now() + 10_000;
		while ((await listed()) !== 3) {
			if (Date.now() > deadline) throw new Error('the replicas did not list again');
			await new Promise((r) => setTimeout(r, 200));
		}
		await c.replicas[2].stop();
		expect(await listed()).toBe(2);
	}, 60_000);
});
