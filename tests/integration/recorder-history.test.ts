/**
 * A past day from the embedded service's history, fetched through the dashboard's REST proxy
 * (key, ledger, api_history_cache), stored in the recorder's format once, and read back by the
 * heatmap's code path (backfill body -> worker decode -> HeatmapGrid): the grid's cells equal
 * the service's own day file at sampled cells, and a second request costs no download.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HeatmapGrid, columnOfGex } from '../../src/lib/charts/heatmapGrid';
import type { ClassicChain } from '../../src/lib/contract/schemas';
import { QuotaLedger } from '../../src/lib/server/quotaLedger';
import { UpstreamProxy } from '../../src/lib/server/proxy';
import { answerBytes, backfillResponse } from '../../src/lib/server/recorder/backfillResponse';
import { importHistoryDay } from '../../src/lib/server/recorder/historyImport';
import { SessionRecorder } from '../../src/lib/server/recorder/sessionRecorder';
import { decodeBackfill } from '../../src/lib/stream/backfill';
import { call, keysOf, startTestService, type TestService } from './service-support';

// Friday 20 Nov 2026, 10:30 ET; the day before is a complete session in the 90-day window.
const START = '2026-11-20T15:30:00Z';
const DAY = '2026-11-19';
const keys = keysOf();
let t: TestService;
let dir: string;
let histRequests = 0;

beforeAll(async () => {
	t = await startTestService({ start: START });
	t.service.server.on('request', (req) => {
		if (req.url?.startsWith('/v2/hist/')) histRequests++;
	});
	dir = mkdtempSync(join(tmpdir(), 'gexdeck-hist-import-'));
}, 120_000);

afterAll(async () => {
	await t?.close();
	if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('a past day from the service history', () => {
	it('is stored once and renders in the heatmap with the file values', async () => {
		const ledger = new QuotaLedger(join(dir, 'ledger.json'));
		const proxy = new UpstreamProxy({
			target: async () => ({
				baseUrl: t.service.url,
				rootUrl: t.service.rootUrl,
				kind: 'configured',
				customKey: keys.quant,
				researchKey: undefined,
				customKeySource: 'environment',
				researchKeySource: 'none',
				demoAccounts: [],
				demoAccountId: undefined
			}),
			ledger,
			userAgent: 'gexdeck/test'
		});
		const recorder = new SessionRecorder({ root: join(dir, 'recordings') });
		const deps = { recorder, proxy, userAgent: 'gexdeck/test' };
		const stored = await importHistoryDay(deps, 'UNG', 'classic_gex_full', DAY);
		expect(stored).toBeGreaterThan(100);
		expect(histRequests).toBe(1);

		// The service's own file, downloaded the way any client does.
		const redirect = await call(`${t.service.url}/hist/UNG/classic/gex_full/${DAY}`, {
			key: keys.quant
		});
		expect(redirect.status).toBe(302);
		const file = (await call(String(redirect.headers.location))).json() as ClassicChain[];
		expect(histRequests).toBe(2);

		// Fetched once: asking again reads the disk.
		expect(await importHistoryDay(deps, 'UNG', 'classic_gex_full', DAY)).toBe(stored);
		expect(histRequests).toBe(2);

		const answer = backfillResponse(
			recorder,
			'UNG',
			'classic_gex_full',
			new URLSearchParams(`day=${DAY}`)
		);
		expect(answer.status).toBe(200);
		const decoded = decodeBackfill(await answerBytes(answer));
		expect(decoded.corrupt).toBe(0);
		const grid = HeatmapGrid.from(
			decoded.updates.flatMap((u) => (u.kind === 'gex' ? [columnOfGex(u.value, 'vol')] : []))
		);
		const distinct = file.filter((s, i) => i === 0 || s.timestamp > file[i - 1].timestamp);
		expect(grid.length).toBe(distinct.length);

		// Sampled cells: the calculation at a column, a strike of its ladder.
		let seed = 11;
		const rnd = (n: number) => (seed = (seed * 16807) % 2147483647) % n;
		for (let k = 0; k < 200; k++) {
			const c = rnd(distinct.length);
			const snap = distinct[c];
			const [strike, vol] = snap.strikes[rnd(snap.strikes.length)];
			expect(grid.times[c]).toBe(snap.timestamp);
			expect(grid.value(c, grid.rowNear(strike))).toBe(Math.fround(vol));
			expect(grid.spot[c]).toBe(snap.spot);
			expect(grid.zeroGamma[c]).toBe(snap.zero_gamma);
		}
		recorder.close();
	}, 240_000);
});
