import { expect, test } from '@playwright/test';

/**
 * A view opened while the server's recording of the day is still on its way says so: the
 * backfill progress beside the feed badge shows while the request is in flight (held back here
 * for a moment, as a full day on a slow link is), and goes away once the series is filled. The
 * dashboard records SPX from its start (the always-record list holds it).
 */
test('Orderflow shows the recorded session loading, then the series from the recording', async ({
	page
}) => {
	await page.waitForTimeout(3000);
	let release: () => void = () => undefined;
	const held = new Promise<void>((r) => (release = r));
	// The decode worker's request goes through the page's routing in Chromium.
	await page.route('**/history/SPX/orderflow_orderflow*', async (route) => {
		await held;
		await route.continue();
	});
	await page.goto('/SPX/orderflow');
	const progress = page.getByTestId('backfill-progress');
	await expect(progress).toBeVisible({ timeout: 30_000 });
	await expect(progress).toContainText('Loading SPX orderflow session');
	await expect(progress.getByRole('progressbar')).toBeVisible();
	// It fades in after a moment (a quick load never flashes it).
	await expect(progress).toHaveCSS('opacity', '1');
	await page.screenshot({ path: test.info().outputPath('backfill-progress.png') });
	release();
	await expect(progress).toHaveCount(0, { timeout: 30_000 });
	await expect(page.getByTestId('series-note')).toContainText("from the server's recording");
});
