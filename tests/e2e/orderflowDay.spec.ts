import { join } from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { SessionRecorder } from '../../src/lib/server/recorder/sessionRecorder';
import { UpdateTap } from '../../src/lib/server/updates/tap';
import { spxOrderflow } from '../../src/lib/wire/arbitraries.test-support';
import { encodeFrame, initWireEncoder } from '../../src/lib/wire/encode';

/**
 * Orderflow's series on a recorded full day, drawn from the day's flow overview: a past SPX
 * session of orderflow, one payload a second (23,400), recorded through the real SessionRecorder
 * into the suite's data folder, then the view opened on it. The whole day draws every 10 s step
 * from one overview answer under 1 MB and never reads the day's raw records; a zoomed window of
 * half an hour reads that window's raw records (every second) and no more. (The time to drawn is
 * the overview bench's: `npm run bench -- overview`.)
 */

const DAY = '2026-11-23';
const OPEN = 1795444200; // 2026-11-23 09:30 ET (14:30 UTC)
const STREAM = 'orderflow_orderflow';
const SECONDS = 23_400;
/** The session at the overview's 10 s. */
const STEPS = SECONDS / 10;

test.beforeAll(async () => {
	test.setTimeout(180_000);
	await initWireEncoder();
	const dataDir = process.env.GEXDECK_E2E_DATA_DIR ?? 'data/e2e';
	const recorder = new SessionRecorder({ root: join(dataDir, 'recordings') });
	const tap = new UpdateTap();
	recorder.attach(tap);
	for (let s = 0; s < SECONDS; s++) {
		const body = spxOrderflow(OPEN, s);
		const any = encodeFrame('orderflow', body);
		tap.publish({ source: 'stream', group: `SPX_${STREAM}`, receivedAt: Date.now(), any });
	}
	recorder.close();
});

/**
 * /history answers the page loads: which read raw records (seen through the page's routing,
 * which the decode worker's requests go through too), and the bytes on the wire of the
 * page's own (the overview is fetched by the page).
 */
async function historyOf(page: Page) {
	const seen = { bytes: 0, overviews: 0, rawDays: 0, windows: [] as string[] };
	const sized: Promise<void>[] = [];
	await page.route(`**/history/SPX/${STREAM}**`, (route) => {
		const url = new URL(route.request().url());
		if (url.pathname.endsWith('/overview')) seen.overviews++;
		else if (!url.searchParams.has('from')) seen.rawDays++;
		else seen.windows.push(`${url.searchParams.get('from')}-${url.searchParams.get('to')}`);
		return route.continue();
	});
	page.on('requestfinished', (r) => {
		if (!new URL(r.url()).pathname.startsWith('/history/')) return;
		sized.push(
			r.sizes().then((s) => void (seen.bytes += s.responseBodySize + s.responseHeadersSize))
		);
	});
	return { seen, settled: () => Promise.all(sized) };
}

test("Orderflow's series of a recorded full day: every 10 s step from one overview under 1 MB", async ({
	page
}) => {
	const history = await historyOf(page);
	await page.goto(`/SPX/orderflow?day=${DAY}`);
	const series = page.getByTestId('series');
	await expect(series).toHaveAttribute('data-overview', String(STEPS), { timeout: 30_000 });
	await expect(page.getByTestId('timeline')).toHaveAttribute('data-points', String(STEPS));
	await expect(series).toHaveAttribute('data-first', String(OPEN));
	await expect(series).toHaveAttribute('data-last', String(OPEN + SECONDS - 10));
	// The flow line is drawn across the session (decimated to the chart's width).
	const line = page.locator('[data-testid="timeline-dex"] path[data-series="dexoflow"]');
	expect(Number(await line.getAttribute('data-points'))).toBeGreaterThan(100);
	await history.settled();
	expect(history.seen.overviews).toBe(1);
	expect(history.seen.rawDays).toBe(0);
	expect(history.seen.windows).toEqual([]);
	expect(history.seen.bytes).toBeLessThan(1024 ** 2);
	await expect(page.getByTestId('series-note')).toContainText("from the server's recording");
});

test('a zoomed half hour of the day reads its raw records, every second of it', async ({
	page
}) => {
	const history = await historyOf(page);
	// 10:00-10:30 ET: 1,801 seconds where the overview has 181 steps.
	await page.goto(`/SPX/orderflow?day=${DAY}&zoom=1000-1030`);
	const series = page.getByTestId('series');
	await expect(series).toHaveAttribute('data-overview', String(STEPS), { timeout: 30_000 });
	await expect(series).toHaveAttribute('data-detail', '1801', { timeout: 30_000 });
	await expect(page.getByTestId('timeline')).toHaveAttribute(
		'data-points',
		String(STEPS - 181 + 1801)
	);
	await history.settled();
	expect(history.seen.rawDays).toBe(0);
	expect(history.seen.windows).toEqual([`${OPEN + 1800}-${OPEN + 3600}`]);
});
