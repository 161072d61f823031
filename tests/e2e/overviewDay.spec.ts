import { join } from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { SessionRecorder } from '../../src/lib/server/recorder/sessionRecorder';
import { UpdateTap } from '../../src/lib/server/updates/tap';
import { spxChain } from '../../src/lib/wire/arbitraries.test-support';
import { encodeFrame, initWireEncoder } from '../../src/lib/wire/encode';

/**
 * Whole-day views on a recorded full day, drawn from the day overview: a past SPX session of
 * 400 strikes recorded through the real SessionRecorder into the suite's data folder (the
 * fixture of the overview's own tests and bench: spxChain, one chain of its own a step), then
 * the levels path, the heatmap and Classic's timeline opened on it. Each draws every 10 s step
 * of the session from under 1 MB of /history and never reads the day's raw records; Classic's
 * histogram at a moment is that one record. (The time to drawn is the overview bench's:
 * `npm run bench -- overview`.)
 */

const DAY = '2026-11-23';
const OPEN = 1795444200; // 2026-11-23 09:30 ET (14:30 UTC)
const STREAM = 'classic_gex_full';
/** 09:30-16:00 at the overview's 10 s: a full session's columns (one calculation each). */
const STEPS = 2340;

test.beforeAll(async () => {
	test.setTimeout(180_000);
	await initWireEncoder();
	const dataDir = process.env.GEXDECK_E2E_DATA_DIR ?? 'data/e2e';
	const recorder = new SessionRecorder({ root: join(dataDir, 'recordings') });
	const tap = new UpdateTap();
	recorder.attach(tap);
	for (let s = 0; s < STEPS; s++) {
		const any = encodeFrame('gex', { ...spxChain(400, s + 1), timestamp: OPEN + s * 10 });
		tap.publish({ source: 'stream', group: `SPX_${STREAM}`, receivedAt: Date.now(), any });
	}
	recorder.close();
});

/** /history answers the page loads: bytes on the wire, and whether any read the raw day. */
function historyOf(page: Page) {
	const seen = {
		bytes: 0,
		overviews: 0,
		/** The day of each overview asked (`today` without one). */
		overviewDays: [] as string[],
		rawDays: 0,
		/** Reads of one moment (`from=to=<t>`), as `from-to`. */
		moments: [] as string[],
		/** Moments asked as JSON (`/moment`, Classic's first of a past day). */
		jsonMoments: 0,
		sized: [] as Promise<void>[]
	};
	// Reads are counted when asked (a worker's requestfinished can be missed on a loaded machine:
	// the fresh-clone run once saw the chart draw a moment whose read never "finished").
	page.on('request', (r) => {
		const url = new URL(r.url());
		if (url.pathname === `/history/SPX/${STREAM}/overview`) {
			seen.overviews++;
			seen.overviewDays.push(url.searchParams.get('day') ?? 'today');
		}
		if (url.pathname === `/history/SPX/${STREAM}/moment`) seen.jsonMoments++;
		if (url.pathname === `/history/SPX/${STREAM}` && !url.searchParams.has('from')) seen.rawDays++;
		if (url.pathname === `/history/SPX/${STREAM}` && url.searchParams.has('from')) {
			seen.moments.push(`${url.searchParams.get('from')}-${url.searchParams.get('to')}`);
		}
	});
	page.on('requestfinished', (r) => {
		const url = new URL(r.url());
		if (!url.pathname.startsWith('/history/')) return;
		seen.sized.push(
			r.sizes().then((s) => void (seen.bytes += s.responseBodySize + s.responseHeadersSize))
		);
	});
	return seen;
}

test('the levels path of a recorded full day: every 10 s step from the overview lines', async ({
	page
}) => {
	await page.setViewportSize({ width: 390, height: 844 });
	const history = historyOf(page);
	await page.goto(`/levels/SPX?day=${DAY}`);
	const path = page.getByTestId('levels-path');
	await expect(path).toHaveAttribute('data-points', String(STEPS), { timeout: 30_000 });
	await expect(path).toHaveAttribute('data-day', DAY);
	await expect(path).toHaveAttribute('data-first', String(OPEN));
	await expect(path).toHaveAttribute('data-last', String(OPEN + (STEPS - 1) * 10));
	// Four lines across the session: spot, zero gamma and the two majors.
	for (const line of ['spot', 'zg', 'pos', 'neg']) {
		const d = (await path.locator(`path.${line}`).getAttribute('d')) ?? '';
		expect(d.split('L')).toHaveLength(STEPS);
	}
	// A marked moment reads the step's values (spxChain's spot is its documented chain's).
	await path.locator('svg').focus();
	await page.keyboard.press('Home');
	await expect(page.getByTestId('levels-path-readout')).toContainText('09:30:00 ET · spot');
	await Promise.all(history.sized);
	expect(history.overviews).toBe(1);
	expect(history.rawDays).toBe(0);
	expect(history.bytes).toBeLessThan(100_000);
});

test('the heatmap of a recorded full day: all 2,340 columns from under 1 MB', async ({ page }) => {
	const history = historyOf(page);
	const doc = await page.goto(`/SPX/heatmap/gex_full?day=${DAY}`);
	// The overview is announced first in the Link header, before the page's ~60 scripts and
	// styles (it queued behind them otherwise); the head's preload and the view take that one.
	expect(doc?.headers().link).toMatch(
		new RegExp(
			`^</history/SPX/classic_gex_full/overview\\?metric=vol&day=${DAY}>; rel="preload"; as="fetch"; crossorigin, <`
		)
	);
	const heat = page.getByTestId('heatmap');
	await expect(heat).toHaveAttribute('data-columns', String(STEPS), { timeout: 30_000 });
	await expect(heat).toHaveAttribute('data-rows', '400');
	await expect(heat).toHaveAttribute('data-first', String(OPEN));
	await Promise.all(history.sized);
	expect(history.overviews).toBe(1);
	expect(history.rawDays).toBe(0);
	expect(history.bytes).toBeLessThan(1024 ** 2);
	await heat.screenshot({ path: 'test-results/heatmap-full-day.png' });
});

test("Classic's timeline of a recorded full day: drawn in the page, one record a moment", async ({
	page
}) => {
	const history = historyOf(page);
	const last = OPEN + (STEPS - 1) * 10;
	const path = `/SPX/classic/gex_full?day=${DAY}`;
	// The server draws the day opened at its end into the page (daySeed.ts): slider, moment and
	// histogram are in the HTML, before any script runs.
	const html = await (await page.request.get(path)).text();
	expect(html.match(/<input[^>]*data-testid="replay-slider"[^>]*>/)?.[0]).toContain(
		`max="${STEPS - 1}"`
	);
	expect(html).toContain(`data-moment="${last}"`);
	expect(html).toMatch(/data-testid="histogram"/);
	expect(html).toContain(`data-unix="${last}"`);
	// The answers inlined for the hydration keep only the headers the views read: no cookie,
	// no policy of the answer (hooks.server.ts).
	const inlined = [
		...html.matchAll(
			/<script type="application\/json" data-sveltekit-fetched[^>]*>([^<]*)<\/script>/g
		)
	].map((m) => JSON.parse(m[1]) as { headers: Record<string, string> });
	expect(inlined).toHaveLength(3);
	for (const { headers } of inlined) {
		expect(Object.keys(headers).every((h) => h.startsWith('x-gexdeck-'))).toBe(true);
	}
	expect(html).not.toMatch(/set-cookie/i);
	// A shared moment is drawn in the page too: the step nearest the link's.
	const shared = await (await page.request.get(`${path}&at=${OPEN + 1003}`)).text();
	expect(shared).toContain(`data-moment="${OPEN + 1000}"`);
	// Hydration keeps what the server drew: no chart node is removed.
	await page.addInitScript(() => {
		const w = window as unknown as { chartsRemoved: number };
		w.chartsRemoved = 0;
		new MutationObserver((records) => {
			for (const r of records)
				for (const n of r.removedNodes)
					if (n instanceof Element && (n.matches('.charts') || n.querySelector('.charts')))
						w.chartsRemoved++;
		}).observe(document, { childList: true, subtree: true });
	});
	await page.goto(path);
	const replay = page.getByTestId('replay');
	const slider = page.getByTestId('replay-slider');
	const charts = page.locator('.charts[data-moment]');
	// Every step of the day on the slider, opened at its last: the histogram of that one record.
	await expect(replay).toHaveAttribute('data-count', String(STEPS), { timeout: 30_000 });
	await expect(slider).toHaveAttribute('max', String(STEPS - 1));
	await expect(charts).toHaveAttribute('data-moment', String(last), { timeout: 30_000 });
	await expect(page.locator('rect.bar').first()).toBeVisible();
	await expect(page.getByTestId('timestamp')).toHaveAttribute('data-unix', String(last));
	// The price chart beside it draws the day from the same lines: a candle a minute.
	await expect(page.getByTestId('classic-price').getByTestId('price-chart')).toHaveAttribute(
		'data-candles',
		String(STEPS / 6)
	);
	expect(
		await page.evaluate(() => (window as unknown as { chartsRemoved: number }).chartsRemoved)
	).toBe(0);
	await Promise.all(history.sized);
	expect(history.rawDays).toBe(0);
	// The lines by both metrics and the last step's chain came inlined in the page: the browser
	// asked for none of them, and the decode worker read no record.
	expect(history.overviews).toBe(0);
	expect(history.jsonMoments).toBe(0);
	expect(history.moments).toEqual([]);
	expect(html.length + history.bytes).toBeLessThan(1024 ** 2);

	// A scrub to the open reads that one record and draws it.
	await slider.focus();
	await page.keyboard.press('Home');
	await expect(replay).toHaveAttribute('data-at', String(OPEN));
	await expect(charts).toHaveAttribute('data-moment', String(OPEN));
	// The settled moment goes into the link, and the load runs again: it asks for nothing.
	await expect(page).toHaveURL(new RegExp(`at=${OPEN}`));
	await expect(page.getByTestId('timestamp')).toHaveAttribute('data-unix', String(OPEN));
	await page.keyboard.press('ArrowRight');
	await expect(charts).toHaveAttribute('data-moment', String(OPEN + 10));
	await expect
		.poll(() => history.moments)
		.toEqual([`${OPEN}-${OPEN}`, `${OPEN + 10}-${OPEN + 10}`]);
	// Back to a moment read before, and to the last (the page's): no read again.
	await page.keyboard.press('ArrowLeft');
	await expect(charts).toHaveAttribute('data-moment', String(OPEN));
	await page.keyboard.press('End');
	await expect(charts).toHaveAttribute('data-moment', String(last));
	expect(history.moments).toHaveLength(2);
	expect(history.jsonMoments).toBe(0);
	expect(history.overviews).toBe(0);
	expect(history.rawDays).toBe(0);
});

test('Classic opened on a past day from within the app fetches the day as before', async ({
	page
}) => {
	const history = historyOf(page);
	const last = OPEN + (STEPS - 1) * 10;
	await page.goto('/SPX/classic/gex_full');
	await page.getByTestId('day-picker').selectOption(DAY);
	const charts = page.locator('.charts[data-moment]');
	await expect(charts).toHaveAttribute('data-moment', String(last), { timeout: 30_000 });
	await expect(page.getByTestId('replay-slider')).toHaveAttribute('max', String(STEPS - 1));
	// The day's lines by both metrics and its last step's chain, asked as the view opened it.
	expect(history.overviewDays.filter((d) => d === DAY)).toHaveLength(2);
	expect(history.jsonMoments).toBe(1);
	expect(history.rawDays).toBe(0);
});

test.describe('on a phone', () => {
	test.use({ viewport: { width: 390, height: 844 } });

	test('a past day drawn by the server fits the screen before the page has started', async ({
		page
	}) => {
		// The page as the server drew it: no script of the app runs.
		await page.route('**/_app/immutable/**', (r) => r.abort());
		await page.goto(`/SPX/classic/gex_full?day=${DAY}`);
		const box = (await page.getByTestId('histogram').boundingBox())!;
		expect(box.width).toBeGreaterThan(200);
		expect(box.x + box.width).toBeLessThanOrEqual(390);
		expect(await page.evaluate(() => document.documentElement.dataset.started)).toBeUndefined();
	});
});
