import { expect, test, type Page } from '@playwright/test';
import { pastSessions as sessionsOf, startOwnDashboard, type OwnDashboard } from './ownDashboard';

/**
 * A past day the service must still generate, picked as a "Service day" in Orderflow: the view
 * shows where the generation stands (the service's own progress and wait) while it polls, then
 * the day's series; Classic and Levels open the same day from the server's copy at once; a
 * second day can be given up for Today (live). These tests run their own dashboard (built app,
 * free port, fresh data folder) whose embedded service answers a history request after 1.5 s
 * with its progress instead of the default minute, so the progress shows in seconds: the suite's
 * shared server keeps the default the other specs (EOD) rely on. UNG: a small chain whose past
 * day simulates quickly.
 */

let dashboard: OwnDashboard | undefined;
let base = '';

test.beforeAll(async () => {
	test.setTimeout(180_000);
	dashboard = await startOwnDashboard('serviceday', { GEXDECK_SERVICE_HISTORY_WAIT_MS: '1500' });
	base = dashboard.base;
});

test.afterAll(async () => {
	await dashboard?.stop();
});

const pastSessions = (page: Page, n: number) => sessionsOf(page, base, n);

/** Types the day into the Service day field (again, should the page not be hydrated yet). */
async function pickServiceDay(page: Page, day: string) {
	await expect(async () => {
		await page.getByTestId('service-day').fill('');
		await page.getByTestId('service-day').fill(day);
		await expect(page).toHaveURL(new RegExp(`[?&]day=${day}(&|$)`), { timeout: 2_000 });
	}).toPass({ timeout: 30_000 });
}

test('Orderflow: a service day shows its generation progress, then its series', async ({
	page
}) => {
	test.setTimeout(240_000);
	// Not the last completed session: the service builds that one in the background at start.
	const [, , day] = await pastSessions(page, 3);
	await page.goto(`${base}/UNG/orderflow`);
	const serviceDay = page.getByTestId('service-day');
	await expect(serviceDay).toBeVisible({ timeout: 30_000 });
	await pickServiceDay(page, day);
	await expect(page.getByTestId('past-day')).toContainText(day);
	// A finished day from the service is not followed.
	await expect(page.getByTestId('past-day')).toContainText('(not live)');

	// The service's own word on the day: its progress (or queue place) and the wait.
	const pending = page.getByTestId('day-pending');
	await expect(pending).toContainText(
		/Generating this day on the service: \d+%|Queued on the service/,
		{ timeout: 45_000 }
	);
	await expect(page.getByTestId('day-cancel')).toBeVisible();
	await page.screenshot({ path: 'test-results/serviceday-orderflow-generating.png' });

	// Then the day's series, from the server's copy of it.
	const timeline = page.getByTestId('timeline');
	await expect(timeline).toBeVisible({ timeout: 180_000 });
	// The series is drawn as the day's records arrive: the whole day once the loading is over.
	await expect(page.getByTestId('day-loading')).toHaveCount(0, { timeout: 60_000 });
	await expect
		.poll(async () => Number(await timeline.getAttribute('data-points')), { timeout: 30_000 })
		.toBeGreaterThan(1000);
	await expect(page.getByTestId('series-note')).toContainText(`Session ${day}`);
	await expect(page.getByTestId('series-note')).toContainText("from the server's recording");
	await page.screenshot({ path: 'test-results/serviceday-orderflow.png' });
});

test('Levels and Classic open a service day; a day still generating can be given up', async ({
	page
}) => {
	test.setTimeout(120_000);
	const [, , day, older] = await pastSessions(page, 4);
	// Levels offers the service's days too, and draws the day's path (the service built the
	// whole ticker-day above: its gex_full comes quickly).
	await page.goto(`${base}/levels/UNG`);
	await expect(page.getByTestId('service-day')).toBeVisible({ timeout: 30_000 });
	await pickServiceDay(page, day);
	await expect(page.getByTestId('levels-path')).toHaveAttribute('data-day', day, {
		timeout: 90_000
	});
	expect(Number(await page.getByTestId('levels-path').getAttribute('data-points'))).toBeGreaterThan(
		100
	);
	await page.screenshot({ path: 'test-results/serviceday-levels.png', fullPage: true });

	// Another day: the wait shows, and "Today (live)" stops it.
	await page.goto(`${base}/UNG/classic/gex_full?day=${older}`);
	await expect(page.getByTestId('day-loading')).toBeVisible({ timeout: 30_000 });
	await expect(page.getByTestId('day-pending')).toBeVisible({ timeout: 45_000 });
	await page.screenshot({ path: 'test-results/serviceday-classic-generating.png' });
	await page.getByTestId('day-cancel').click();
	await expect(page).not.toHaveURL(/[?&]day=/);
	await expect(page.getByTestId('day-loading')).toHaveCount(0);
	await expect(page.getByTestId('day-picker')).toHaveValue('');
});
