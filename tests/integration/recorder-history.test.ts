/**
 * A past day from the embedded service's history, fetched through the dashboard's REST proxy
 * (key, ledger, api_history_cache), stored in the recorder's format once, and read back by the
 * heatmap's code path (backfill body -> worker decode -> HeatmapGrid): the grid's cells equal
 * the service's own day file at sampled cells, and a second request costs no download.
 */
import { describe, expect, it } from 'vitest';
import { HeatmapGrid, columnOfGex } from '../../src/lib/charts/heatmap/heatmapGrid';
import type { ClassicChain } from '../../src/lib/contract/schemas';
import { answerBytes, backfillResponse } from '../../src/lib/server/recorder/backfillResponse';
import { importHistoryDay } from '../../src/lib/server/recorder/historyImport';
import { decodeBackfill } from '../../src/lib/stream/backfill/backfill';
import { keys, useHistoryService } from './recorder-history.test-support';
import { call } from './service-support';

// The service starts Friday 20 Nov 2026, 10:30 ET; the day before is a complete session in the
// 90-day window.
const DAY = '2026-11-19';
let histRequests = 0;
const history = useHistoryService('hist-import', (req) => {
	if (req.url?.startsWith('/v2/hist/')) histRequests++;
});

describe('a past day from the service history', () => {
	it('is stored once and renders in the heatmap with the file values', async () => {
		const deps = history.deps();
		const { recorder } = deps;
		const t = history.t;
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

		const answer = await backfillResponse(
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
