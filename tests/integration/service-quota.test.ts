/**
 * Quotas over real HTTP: a pool's daily allowance runs out (429 with the upstream's exact body),
 * other pools keep working, the first breach per pool and window writes one alert e-mail to the
 * outbox, the daily window resets at 00:00 America/New_York and the monthly one on the 1st, and
 * the counters survive a restart. Simulated time is driven through the market clock's wall source.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OUTBOX_FILE } from '../../src/service/quota/accountQuotaLedger';
import { etDate } from '../../src/service/quota/windows';
import { api, keysOf, startTestService, type TestService } from './service-support';

const keys = keysOf();
// Tuesday 24 Nov 2026, 23:58:00 ET (EST, UTC-5).
const START = '2026-11-25T04:58:00Z';
let shift = 0;
const wall = () => Date.now() + shift;
/** Moves the simulated clock (speed 1) forward. */
const advance = (ms: number) => {
	shift += ms;
};

let t: TestService;
let root: string;
const majors = '/v2/UNG/classic/full/majors';
const maxchange = '/v2/UNG/classic/full/maxchange';

function outbox(): { pool: string; window: string; window_id: string; account: string }[] {
	try {
		return readFileSync(join(t.dataDir, OUTBOX_FILE), 'utf8')
			.trim()
			.split('\n')
			.filter(Boolean)
			.map((line) => JSON.parse(line));
	} catch {
		return [];
	}
}

async function start(dataDir?: string) {
	t = await startTestService({ start: START, tickers: ['UNG'], wall, dataDir });
	root = t.service.rootUrl;
}

beforeAll(async () => {
	await start();
}, 120_000);

afterAll(async () => {
	await t?.close();
});

describe('quota pools', () => {
	it('counts per pool, survives a restart, then answers 429 with the exact body', async () => {
		expect(etDate(t.service.market.now())).toBe('2026-11-24');
		for (let i = 0; i < 2; i++)
			expect((await api(root, majors, { key: keys.limited })).status).toBe(200);
		const dataDir = t.dataDir;
		await t.close(true);
		shift = 0;
		await start(dataDir);
		expect((await api(root, majors, { key: keys.limited })).status).toBe(200);
		for (let i = 0; i < 2; i++) {
			const r = await api(root, majors, { key: keys.limited });
			expect(r.status).toBe(429);
			expect(r.text()).toBe('{"error":"Rate limit exceeded."}');
		}
		// Pools are independent, and other accounts are unaffected.
		expect((await api(root, '/v2/UNG/classic/full', { key: keys.limited })).status).toBe(200);
		expect((await api(root, maxchange, { key: keys.limited })).status).toBe(200);
		expect((await api(root, majors, { key: keys.quant })).status).toBe(200);
	}, 120_000);

	it('records the first breach per pool and window as one alert e-mail', () => {
		const mails = outbox();
		expect(mails).toHaveLength(1);
		expect(mails[0]).toMatchObject({
			account: 'limited',
			pool: 'api_majors',
			window: 'daily',
			window_id: '2026-11-24'
		});
	});

	it('resets the daily window at 00:00 ET', async () => {
		advance(3 * 60_000); // 00:01 ET on Wednesday 25 Nov
		expect(etDate(t.service.market.now())).toBe('2026-11-25');
		for (let i = 0; i < 3; i++)
			expect((await api(root, majors, { key: keys.limited })).status).toBe(200);
		expect((await api(root, majors, { key: keys.limited })).status).toBe(429);
		const mails = outbox();
		expect(mails).toHaveLength(2);
		expect(mails[1]).toMatchObject({
			pool: 'api_majors',
			window: 'daily',
			window_id: '2026-11-25'
		});
	}, 60_000);

	it('applies the monthly window and resets it on the 1st at 00:00 ET', async () => {
		// One max-change request was spent on the 24th; the monthly allowance is 4.
		for (let i = 0; i < 3; i++)
			expect((await api(root, maxchange, { key: keys.limited })).status).toBe(200);
		expect((await api(root, maxchange, { key: keys.limited })).status).toBe(429);
		expect(outbox().at(-1)).toMatchObject({
			pool: 'api_max_change',
			window: 'monthly',
			window_id: '2026-11'
		});
		// To Monday 30 Nov 23:59:30 ET: still November.
		advance(Date.parse('2026-12-01T04:59:30Z') - t.service.market.now().getTime());
		expect((await api(root, maxchange, { key: keys.limited })).status).toBe(429);
		expect(outbox().filter((m) => m.pool === 'api_max_change')).toHaveLength(1);
		advance(60_000); // 00:00:30 ET on 1 Dec
		expect(etDate(t.service.market.now())).toBe('2026-12-01');
		expect((await api(root, maxchange, { key: keys.limited })).status).toBe(200);
	}, 120_000);
});
