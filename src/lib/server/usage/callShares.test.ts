/**
 * Who caused each upstream call (usage/callShares.ts), through the real proxy against a loopback
 * upstream: a call is its causer's, an identical request answered by it is 'shared' and never
 * counted twice (the callers' calls add up to the ledger's total), the dashboard's own calls are
 * 'gexdeck', 429s are not counted, windows reset; and the Redis store shows every replica the
 * same numbers (a real redis-server, tests/support/redis.ts).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { generateKey } from '$lib/contract/keys';
import { startRedis, type RunningRedis } from '../../../../tests/support/redis';
import { PoolBackoff } from '../backoff';
import { connectRedis } from '../cluster/redis';
import { SharedShares } from '../cluster/sharedShares';
import { UpstreamProxy } from '../proxy';
import { QuotaLedger } from '../quotaLedger';
import type { UpstreamTarget } from '../upstream';
import { GEXDECK_CALLER, MemoryShares, userCaller } from './callShares';

const key = generateKey('custom');
let server: Server;
let base: string;
let dataCalls = 0;
let status = 200;

beforeAll(async () => {
	server = createServer((req, res) => {
		res.setHeader('content-type', 'application/json');
		if (req.url === '/v2/whoami') {
			return res.end(JSON.stringify({ _id: 'acct', max_level: 'quant', addons: [] }));
		}
		dataCalls++;
		// Slow enough that concurrent identical requests overlap and share one call.
		setTimeout(() => res.writeHead(status).end(JSON.stringify({ path: req.url })), 50);
	});
	await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
	base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));
beforeEach(() => {
	dataCalls = 0;
	status = 200;
});

function setup() {
	const target: UpstreamTarget = {
		baseUrl: `${base}/v2`,
		rootUrl: base,
		kind: 'configured',
		customKey: key,
		researchKey: undefined,
		customKeySource: 'environment',
		researchKeySource: 'environment',
		demoAccounts: [],
		demoAccountId: undefined
	};
	const ledger = new QuotaLedger();
	const shares = new MemoryShares();
	const proxy = new UpstreamProxy({
		target: async () => target,
		ledger,
		userAgent: 'gexdeck/test',
		backoff: new PoolBackoff({ baseMs: 60_000, random: () => 0.5 }),
		shares
	});
	const get = (path: string, caller?: string) =>
		proxy.handle('GET', path, new URLSearchParams(), caller);
	const read = async () => (await shares.read('acct', ['api_default', 'api_majors'])) ?? {};
	return { ledger, shares, get, read };
}
const alice = userCaller('alice-id');
const bob = userCaller('bob-id');

describe('each user’s calls through the proxy', () => {
	it('counts a call for the user whose request caused it', async () => {
		const { get, read, ledger } = setup();
		await get('SPX/classic/gex_full', alice);
		await get('NDX/classic/gex_full', bob);
		await get('NDX/classic/gex_full/majors', bob);
		const shares = await read();
		expect(shares.api_default.daily).toEqual({
			[alice]: { calls: 1, shared: 0 },
			[bob]: { calls: 1, shared: 0 }
		});
		expect(shares.api_majors.monthly).toEqual({ [bob]: { calls: 1, shared: 0 } });
		expect(ledger.usage('acct').api_default.daily.requests).toBe(2);
	});

	it('counts a coalesced call once, for its causer; the other user sees it as shared', async () => {
		const { get, read, ledger } = setup();
		const answers = await Promise.all([
			get('SPX/classic/gex_full', alice),
			get('SPX/classic/gex_full', bob),
			get('SPX/classic/gex_full', bob)
		]);
		expect(answers.map((a) => a.status)).toEqual([200, 200, 200]);
		expect(dataCalls).toBe(1);
		const daily = (await read()).api_default.daily;
		expect(daily[alice]).toEqual({ calls: 1, shared: 0 });
		expect(daily[bob]).toEqual({ calls: 0, shared: 2 });
		// Never double counted: the callers' calls are the account's, as the ledger counts them.
		const sum = Object.values(daily).reduce((n, c) => n + c.calls, 0);
		expect(sum).toBe(ledger.usage('acct').api_default.daily.requests);
		expect(sum).toBe(1);
	});

	it("counts the dashboard's own calls (no caller: recorder, alerts) as gexdeck", async () => {
		const { get, read } = setup();
		await get('SPX/classic/gex_full');
		expect((await read()).api_default.daily).toEqual({
			[GEXDECK_CALLER]: { calls: 1, shared: 0 }
		});
	});

	it('does not count 429 answers (they spend no quota) nor routes outside a pool', async () => {
		const { get, read } = setup();
		status = 429;
		await get('SPX/classic/gex_full', alice);
		status = 200;
		await get('tickers', alice);
		expect(await read()).toEqual({});
	});
});

describe('MemoryShares', () => {
	it('starts each daily and monthly window again at zero', async () => {
		let now = new Date('2026-11-27T15:00:00Z');
		const shares = new MemoryShares(() => now);
		await shares.add('acct', 'api_default', alice, 'calls');
		await shares.add('acct', 'api_default', bob, 'shared');
		now = new Date('2026-11-28T15:00:00Z');
		await shares.add('acct', 'api_default', alice, 'calls');
		const got = (await shares.read('acct', ['api_default'])).api_default;
		expect(got.daily).toEqual({ [alice]: { calls: 1, shared: 0 } });
		expect(got.monthly).toEqual({
			[alice]: { calls: 2, shared: 0 },
			[bob]: { calls: 0, shared: 1 }
		});
		now = new Date('2026-12-01T15:00:00Z');
		expect((await shares.read('acct', ['api_default'])).api_default.monthly).toEqual({});
	});
});

describe('SharedShares (Redis)', () => {
	let redis: RunningRedis;
	const clients: Redis[] = [];
	beforeAll(async () => {
		redis = await startRedis();
	}, 30_000);
	afterAll(async () => {
		for (const c of clients) c.disconnect();
		await redis?.stop();
	});

	it('shows every replica the same counts, per window', async () => {
		let now = new Date('2026-11-27T15:00:00Z');
		const [one, two] = [0, 1].map(() => {
			const c = connectRedis(redis.url);
			clients.push(c);
			return new SharedShares(c, () => now, 'test:shares');
		});
		await one.add('acct', 'api_default', alice, 'calls');
		await two.add('acct', 'api_default', alice, 'calls');
		await two.add('acct', 'api_default', bob, 'shared');
		await one.add('acct', 'api_majors', GEXDECK_CALLER, 'calls');
		const pools = ['api_default', 'api_majors', 'api_max_change'];
		const seenByOne = await one.read('acct', pools);
		expect(seenByOne).toEqual(await two.read('acct', pools));
		expect(seenByOne.api_default.daily).toEqual({
			[alice]: { calls: 2, shared: 0 },
			[bob]: { calls: 0, shared: 1 }
		});
		expect(seenByOne.api_majors.monthly).toEqual({ [GEXDECK_CALLER]: { calls: 1, shared: 0 } });
		expect(seenByOne.api_max_change).toBeUndefined();
		now = new Date('2026-11-28T15:00:00Z');
		const nextDay = await two.read('acct', pools);
		expect(nextDay.api_default.daily).toEqual({});
		expect(nextDay.api_default.monthly[alice]).toEqual({ calls: 2, shared: 0 });
	});
});
