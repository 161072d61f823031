import { expect, test } from '@playwright/test';

/**
 * Issue 25: the price chart beside Classic's histogram draws from the day Classic's replay
 * loaded, so opening Classic asks the server for the day once (it asked a second time, for the
 * price chart's own load of the day's overview); the price view still loads the day itself.
 */

test.use({ viewport: { width: 1280, height: 900 } });

test('Classic asks for the day once; the price chart beside the histogram draws from it', async ({
	page
}) => {
	const asked: string[] = [];
	page.on('request', (r) => {
		const url = new URL(r.url());
		if (url.pathname.startsWith('/history/SPX/classic_gex_full')) asked.push(url.pathname);
	});
	await page.goto('/SPX/classic/gex_full');
	const chart = page.getByTestId('classic-price').getByTestId('price-chart');
	await expect(chart).toBeVisible({ timeout: 45_000 });
	await expect
		.poll(async () => Number(await chart.getAttribute('data-candles')), { timeout: 30_000 })
		.toBeGreaterThan(0);
	await expect(chart.locator('path[data-level="zero"]')).toHaveAttribute('d', /^M[\d.]+ [\d.]+H/);
	// The replay's one read of the day, and nothing more for it while the page runs.
	await page.waitForTimeout(2_000);
	expect(asked).toEqual(['/history/SPX/classic_gex_full']);

	// The price view on its own loads the day (its overview) and draws it.
	asked.length = 0;
	await page.goto('/SPX/price/gex_full');
	await expect
		.poll(async () => Number(await page.getByTestId('price-chart').getAttribute('data-candles')), {
			timeout: 45_000
		})
		.toBeGreaterThan(0);
	expect(asked.length).toBeGreaterThan(0);
});
